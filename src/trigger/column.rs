//! A user column of a trigger's table, looked up by name, and the quoting of names for the
//! trigger's SQL: shared by the configs (config.rs) and the key lookup (key.rs).

use std::ffi::{CStr, CString};

use pgrx::pg_sys;
use pgrx::prelude::*;

use crate::error::raise;

/// A NUL-terminated copy of a Rust string (identifiers from trigger arguments can't hold NUL).
pub(crate) fn cstring(s: &str) -> CString {
    CString::new(s).expect("trigger arguments are C strings")
}

/// `quote_identifier(name)`.
pub(crate) fn quote_ident(name: &str) -> String {
    let c = cstring(name);
    // SAFETY: quote_identifier reads a NUL-terminated string and returns either it or a
    // palloc'd quoted copy; we copy the result before `c` is dropped.
    unsafe { CStr::from_ptr(pg_sys::quote_identifier(c.as_ptr())).to_string_lossy().into_owned() }
}

/// The trigger's relation as a quoted, schema-qualified name, and its plain name for messages.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn relation_names(rel: pg_sys::Relation) -> (String, String) {
    // SAFETY: an open relation has a valid pg_class form; the namespace exists while the
    // relation is open and locked.
    unsafe {
        let name = (*(*rel).rd_rel).relname.data.as_ptr();
        let nsp = pg_sys::get_namespace_name((*(*rel).rd_rel).relnamespace);
        let qualified = CStr::from_ptr(pg_sys::quote_qualified_identifier(nsp, name)).to_string_lossy().into_owned();
        (qualified, CStr::from_ptr(name).to_string_lossy().into_owned())
    }
}

/// A user column of the trigger's table.
#[derive(Clone, Debug)]
pub(crate) struct Column {
    pub attnum: i16,
    pub base_type: pg_sys::Oid,
    pub generated: bool,
    /// quote_identifier(name)
    pub sql: String,
}

/// Looks a column up by name: ERROR 42703 when it doesn't exist or is a system column.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn column(rel: pg_sys::Relation, name: &str, func: &str, role: &str) -> Column {
    // SAFETY: SPI_fnumber only reads the descriptor (no SPI connection needed); attributes
    // 1..=natts are initialized entries of it.
    unsafe {
        let desc = (*rel).rd_att;
        let attnum = pg_sys::SPI_fnumber(desc, cstring(name).as_ptr());
        if attnum <= 0 {
            let (_, relname) = relation_names(rel);
            let what = if attnum == pg_sys::SPI_ERROR_NOATTRIBUTE { "does not exist" } else { "is a system column" };
            raise(
                PgSqlErrorCode::ERRCODE_UNDEFINED_COLUMN,
                format!("{func}: {role} column \"{name}\" of relation \"{relname}\" {what}"),
                None,
                None,
            );
        }
        let att = &crate::pg_compat::tuple_desc_attrs(desc)[attnum as usize - 1];
        Column {
            attnum: attnum as i16,
            base_type: pg_sys::getBaseType(att.atttypid),
            generated: att.attgenerated != 0,
            sql: quote_ident(name),
        }
    }
}

/// The name of a type, for messages.
pub(crate) fn type_name(oid: pg_sys::Oid) -> String {
    // SAFETY: format_type_be returns a palloc'd string for any OID.
    unsafe { CStr::from_ptr(pg_sys::format_type_be(oid)).to_string_lossy().into_owned() }
}

/// The extension's schema, quoted for SQL.
pub(crate) fn schema_name(ext_schema: pg_sys::Oid) -> String {
    // SAFETY: get_namespace_name returns a palloc'd copy of an existing schema's name (the
    // extension's, which cannot be dropped while its function runs).
    quote_ident(&unsafe { CStr::from_ptr(pg_sys::get_namespace_name(ext_schema)) }.to_string_lossy())
}
