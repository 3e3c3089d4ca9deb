//! The `options jsonb` argument (and the options argument of the triggers, a JSON
//! string): deserialized by serde into `simhash_core::Options`.

use pgrx::callconv::{Arg, ArgAbi};
use pgrx::prelude::*;
use simhash_core::RawOptions;
use simhash_core::{Definition, Options, Tokenizer, Weighting};

use crate::error::raise;

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
/// is an ERROR (22023) that names it and the function `func`. `default` is the definition
/// when the options name none.
pub fn parse(options: &JsonbArg, default: Definition, func: &str) -> Options {
    parse_value(&jsonb_value(options, func), default, func)
}

/// The options as a JSON value: 22023 for a document serde_json cannot read.
pub(crate) fn jsonb_value(options: &JsonbArg, func: &str) -> serde_json::Value {
    // SAFETY: a JsonbArg holds a non-NULL jsonb datum (FromDatum, from_raw); jsonb_out
    // detoasts it and returns a palloc'd C string, freed below.
    let text = unsafe { pgrx::direct_function_call::<&std::ffi::CStr>(pg_sys::jsonb_out, &[Some(options.0)]) }
        .expect("jsonb_out returned NULL");
    let value = json_value(&text.to_string_lossy(), func);
    // SAFETY: the C string came from jsonb_out's palloc and nothing else refers to it.
    unsafe { pg_sys::pfree(text.as_ptr() as *mut std::ffi::c_void) };
    value
}

/// [`parse`] of options written as JSON text (a trigger argument, `simhash(doc, options
/// text)`): 22023 also for bad JSON.
pub fn parse_str(json: &str, default: Definition, func: &str) -> Options {
    parse_value(&json_value(json, func), default, func)
}

/// Options written as JSON text, as a JSON value: 22023 for bad JSON.
pub(crate) fn json_value(json: &str, func: &str) -> serde_json::Value {
    serde_json::from_str::<serde_json::Value>(json).unwrap_or_else(|e| {
        ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("{func}: invalid options: {e}"));
    })
}

/// [`parse`] of options as a JSON value.
pub(crate) fn parse_value(value: &serde_json::Value, default: Definition, func: &str) -> Options {
    checked(serde_path_to_error::deserialize(value), default, func)
}

/// Where a key that `simhash()`'s options refuse is taken instead: the HINT for it.
const TAKEN_ELSEWHERE: &str = "\"max_distance\" is an option of simhash_segments_dedup_trigger and simhash_explain, \
                               and an argument of simhash_resemblance, simhash_containment and simhash_similar.";

fn checked(
    raw: Result<RawOptions, serde_path_to_error::Error<serde_json::Error>>,
    default: Definition,
    func: &str,
) -> Options {
    let raw = match raw {
        Ok(raw) => raw,
        Err(e) => {
            let path = e.path().to_string();
            let msg = if path == "." {
                format!("{func}: invalid options: {}", e.inner())
            } else {
                format!("{func}: invalid option \"{path}\": {}", e.inner())
            };
            let hint = (path == "max_distance").then_some(TAKEN_ELSEWHERE);
            raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, msg, None, hint);
        }
    };
    raw.validate(default).unwrap_or_else(|e| {
        raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("{func}: invalid options: {e}"), None, None)
    })
}

/// The options of a trigger: its options argument, parsed as `simhash(doc, options)` parses
/// its jsonb (ERROR 22023 on a bad one), else `default`'s defaults, as `simhash(doc)`.
pub(crate) fn trigger_options(json: Option<&str>, default: Definition, func: &str) -> Options {
    match json {
        Some(json) => parse_value(&object(json, func), default, func),
        None => Options::new(default, Tokenizer::Jieba, Weighting::Tfidf),
    }
}

/// A trigger's options argument as a JSON object: ERROR 22023 for bad JSON or other JSON (an
/// array or null, which serde would read as no options: issue 49).
pub(crate) fn object(json: &str, func: &str) -> serde_json::Value {
    let value = json_value(json, func);
    if !value.is_object() {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: invalid options: expected a JSON object, got {value}"),
            None,
            None,
        );
    }
    value
}
