//! The trigger table's primary key, which DETAIL names and `link` copies, and the link
//! column, checked against it: part of every dedup trigger's config (config.rs, `target`).

use std::ffi::CStr;

use pgrx::pg_sys;
use pgrx::prelude::*;

use super::column::{column, quote_ident, type_name, Column};
use crate::error::raise;

/// The primary key and the link column of a dedup trigger's table.
pub(crate) struct Keys {
    /// The key columns as listed in DETAIL, e.g. `id` or `a, b` (`ctid` without a primary key).
    pub label: String,
    /// Their attribute numbers (empty for `ctid`).
    pub attnums: Vec<i16>,
    /// Their names, quoted for SQL.
    pub quoted: Vec<String>,
    pub link: Option<Column>,
    /// The key's (byval, len), with a link column.
    pub link_type: Option<(bool, i16)>,
}

/// Reads the primary key of `rel` and checks the link column `link_name`, if any: ERROR
/// 55000 unless the key has one column, 42804 unless the link column has its type, 428C9
/// when the link column is generated, 22023 when it is the key or one of the columns the
/// trigger reads or writes, `read` (role, column), which a link would overwrite (issue 49).
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
pub(crate) unsafe fn keys(
    rel: pg_sys::Relation,
    link_name: Option<&str>,
    read: &[(&str, &Column)],
    relname: &str,
    func: &str,
) -> Keys {
    // SAFETY: `rel` is open (caller); catalog lookups run inside a transaction. The primary
    // key index is opened and closed with AccessShareLock, as the planner does.
    unsafe {
        // The primary key, for DETAIL and for link.
        let mut key_names = Vec::new();
        let mut key_attnums = Vec::new();
        let mut key_types = Vec::new();
        let pk = crate::pg_compat::primary_key_index(rel);
        if pk != pg_sys::InvalidOid {
            let index = pg_sys::index_open(pk, pg_sys::AccessShareLock as i32);
            let form = (*index).rd_index;
            let attrs = crate::pg_compat::tuple_desc_attrs((*rel).rd_att);
            for j in 0..(*form).indnkeyatts as usize {
                let attnum = *(*form).indkey.values.as_ptr().add(j);
                let att = &attrs[attnum as usize - 1];
                key_names.push(CStr::from_ptr(att.attname.data.as_ptr()).to_string_lossy().into_owned());
                key_attnums.push(attnum);
                key_types.push((att.atttypid, att.attbyval, att.attlen));
            }
            pg_sys::index_close(index, pg_sys::AccessShareLock as i32);
        }
        let mut link = None;
        let mut link_type = None;
        if let Some(name) = link_name {
            let col = column(rel, name, func, "link");
            if key_names.len() != 1 {
                raise(
                    PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                    format!("{func}: action link needs a single-column primary key on \"{relname}\""),
                    Some(format!(
                        "The table has {}.",
                        if key_names.is_empty() {
                            "no primary key".to_owned()
                        } else {
                            format!("a primary key of {} columns", key_names.len())
                        }
                    )),
                    Some("The link column receives the primary key of the matching row."),
                );
            }
            let (key_type, byval, len) = key_types[0];
            if col.base_type != pg_sys::getBaseType(key_type) {
                raise(
                    PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                    format!(
                        "{func}: link column \"{name}\" has type {}, but the primary key \"{}\" has type {}",
                        type_name(col.base_type),
                        key_names[0],
                        type_name(key_type)
                    ),
                    None,
                    None,
                );
            }
            if col.generated {
                raise(
                    PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
                    format!("{func}: link column \"{name}\" is a generated column"),
                    None,
                    None,
                );
            }
            let key = key_attnums.contains(&col.attnum).then_some("primary key");
            if let Some(role) = key.or_else(|| read.iter().find(|(_, c)| c.attnum == col.attnum).map(|(r, _)| *r)) {
                raise(
                    PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                    format!("{func}: link column \"{name}\" is the {role} column of \"{relname}\""),
                    Some("A link writes the matching row's key into the link column, which would overwrite it.".into()),
                    Some("Add a column of the primary key's type for the link, e.g. dup_of, and name it."),
                );
            }
            link = Some(col);
            link_type = Some((byval, len));
        }
        Keys {
            label: if key_names.is_empty() { "ctid".into() } else { key_names.join(", ") },
            quoted: key_names.iter().map(|n| quote_ident(n)).collect(),
            attnums: key_attnums,
            link,
            link_type,
        }
    }
}
