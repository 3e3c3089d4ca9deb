//! The `options jsonb` argument (and the options argument of the triggers, a JSON
//! string): deserialized by serde into `simhash_core::Options`.

use pgrx::callconv::{Arg, ArgAbi};
use pgrx::prelude::*;
use simhash_core::RawOptions;
use simhash_core::{Definition, Options};

/// A `jsonb` argument, kept as its datum until [`parse`] reads it.
///
/// Not pgrx's `JsonB`: that parses the jsonb's text with serde_json before the function
/// runs, and panics (an ERROR with SQLSTATE XX000, internal_error) on values jsonb holds
/// but serde_json refuses: a number beyond f64 (`1e400`, in any key) and nesting deeper
/// than 128. The SQL fuzz run (tests/integration/fuzz_sql.sh) found both.
pub struct JsonbArg(pg_sys::Datum);

impl FromDatum for JsonbArg {
    unsafe fn from_polymorphic_datum(datum: pg_sys::Datum, is_null: bool, _: pg_sys::Oid) -> Option<Self> {
        (!is_null).then_some(JsonbArg(datum))
    }
}

// SAFETY: the datum is only ever read as a jsonb, which the SQL type below guarantees.
unsafe impl<'fcx> ArgAbi<'fcx> for JsonbArg {
    unsafe fn unbox_arg_unchecked(arg: Arg<'_, 'fcx>) -> Self {
        // SAFETY: forwarded from the caller (a non-NULL jsonb argument).
        unsafe { arg.unbox_arg_using_from_datum() }.expect("a non-NULL jsonb argument")
    }
}

pgrx::impl_sql_translatable!(JsonbArg, arg_only = "jsonb");

impl JsonbArg {
    /// # Safety
    /// `datum` must be a non-NULL `jsonb` datum.
    pub unsafe fn from_raw(datum: pg_sys::Datum) -> JsonbArg {
        JsonbArg(datum)
    }
}

/// Parse and validate options; a bad key or value, or a document serde_json cannot read,
/// is an ERROR (22023) that names it. `default` is the definition when the options name none.
pub fn parse(options: &JsonbArg, default: Definition) -> Options {
    // SAFETY: a JsonbArg holds a non-NULL jsonb datum (FromDatum, from_raw); jsonb_out
    // detoasts it and returns a palloc'd C string, freed below.
    let text = unsafe { pgrx::direct_function_call::<&std::ffi::CStr>(pg_sys::jsonb_out, &[Some(options.0)]) }
        .expect("jsonb_out returned NULL");
    let options = parse_str(&text.to_string_lossy(), default);
    // SAFETY: the C string came from jsonb_out's palloc and nothing else refers to it.
    unsafe { pg_sys::pfree(text.as_ptr() as *mut std::ffi::c_void) };
    options
}

/// [`parse`] of options written as JSON text (a trigger argument): 22023 also for bad JSON.
pub fn parse_str(json: &str, default: Definition) -> Options {
    parse_value(&json_value(json), default)
}

/// Options written as JSON text, as a JSON value: 22023 for bad JSON.
pub(crate) fn json_value(json: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(json).unwrap_or_else(|e| {
        ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("invalid simhash options: {e}"));
    })
}

/// [`parse`] of options as a JSON value.
pub(crate) fn parse_value(value: &serde_json::Value, default: Definition) -> Options {
    checked(serde_path_to_error::deserialize(value), default)
}

fn checked(raw: Result<RawOptions, serde_path_to_error::Error<serde_json::Error>>, default: Definition) -> Options {
    let raw = match raw {
        Ok(raw) => raw,
        Err(e) => {
            let path = e.path().to_string();
            let msg = if path == "." {
                format!("invalid simhash options: {}", e.inner())
            } else {
                format!("invalid simhash option \"{path}\": {}", e.inner())
            };
            ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, msg);
        }
    };
    match raw.validate(default) {
        Ok(o) => o,
        Err(e) => {
            ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("invalid simhash options: {e}"));
        }
    }
}
