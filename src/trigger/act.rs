//! What a dedup trigger does once its check has run: reject (23505, like a unique index),
//! skip (the row is not inserted, counted by `simhash_dedup_skipped`) or link (a column set
//! to the matching row's key), with a DETAIL that names the key only when the inserting user
//! may see it; a match that only the latest snapshot sees is a serialization failure (40001).
//! Shared by every measure's dedup trigger.

use std::ffi::CStr;
use std::sync::atomic::{AtomicI64, Ordering};

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::trigger::Action;

use super::check::{Found, Match};
use super::config::Config;
use super::replace;
use crate::error::raise;

/// Rows skipped by the dedup triggers' action `skip` in this session (see
/// `simhash_dedup_skipped`). A backend runs one query at a time, so Relaxed is enough.
static SKIPPED: AtomicI64 = AtomicI64::new(0);

/// Rows this session's dedup triggers skipped.
pub(crate) fn skipped() -> i64 {
    SKIPPED.load(Ordering::Relaxed)
}

/// Whether the current user may see the key of an existing row in DETAIL: the rule of
/// PostgreSQL's BuildIndexValueDescription (access/index/genam.c), which decides whether a
/// unique violation's DETAIL shows `Key (...)=(...)`. Not when row-level security applies
/// to the user on the table (`check_enable_rls` is RLS_ENABLED); else with SELECT on the
/// table; else with SELECT on every key column. `ctid` (no primary key) has no column
/// privilege: it needs SELECT on the table.
///
/// How near the row is (the measure's figure) is shown to everyone: the
/// inserter can compute its own row's value, and the error already says that a row within
/// the bound exists; the figure adds a few bits about that row's value, which a few inserts
/// of varied texts would reveal anyway, and nothing about its key or its text.
pub(crate) fn may_see_key(relid: pg_sys::Oid, key_attnums: &[i16]) -> bool {
    // SAFETY: catalog lookups inside the transaction, on the trigger's relation (open and
    // locked for the statement); `noError = true`, so check_enable_rls raises no ERROR for
    // row_security = off, and the ACL checks return a result instead of raising.
    unsafe {
        if pg_sys::check_enable_rls(relid, pg_sys::InvalidOid, true) == pg_sys::CheckEnableRlsResult::RLS_ENABLED as i32
        {
            return false;
        }
        let user = pg_sys::GetUserId();
        let select = pg_sys::ACL_SELECT as pg_sys::AclMode;
        if pg_sys::pg_class_aclcheck(relid, user, select) == pg_sys::AclResult::ACLCHECK_OK {
            return true;
        }
        !key_attnums.is_empty()
            && key_attnums.iter().all(|&attnum| {
                pg_sys::pg_attribute_aclcheck(relid, attnum, user, select) == pg_sys::AclResult::ACLCHECK_OK
            })
    }
}

/// The row for a text the trigger does not check (NULL, or too short for the measure): the
/// columns the trigger computes set as in `set` (none when it computes none) and the link
/// column, if any, to NULL.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`, the trigger's table, which `config` describes;
/// each value in `set` a datum of its column's type.
pub(crate) unsafe fn unchecked(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    config: &Config,
    set: &[(i16, Option<pg_sys::Datum>)],
) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { with_link(tuple, desc, config, set, None) }
}

/// `tuple` with the columns of `set` replaced and the link column, if any, set to `link`;
/// `tuple` itself when there is nothing to set.
///
/// # Safety
/// As [`unchecked`]; `link` a datum of the link column's type.
unsafe fn with_link(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    config: &Config,
    set: &[(i16, Option<pg_sys::Datum>)],
    link: Option<pg_sys::Datum>,
) -> pg_sys::Datum {
    let mut cols = set.to_vec();
    if let Some(column) = &config.link {
        cols.push((column.attnum, link));
    }
    if cols.is_empty() {
        return pg_sys::Datum::from(tuple);
    }
    // SAFETY: forwarded from the caller.
    pg_sys::Datum::from(unsafe { replace(tuple, desc, &cols) })
}

/// Acts on what the check found: raises (reject, or 40001 for a concurrent match), returns
/// NULL (skip), or returns the row with the columns of `set` set (what the trigger computed)
/// and the link column, if any, to the match's key or NULL. `what(m)` says how the match is near, after
/// "Key (id)=(7)" or "An existing row", e.g. "is at distance 2 (bound 3)".
///
/// # Safety
/// `td` must be the TriggerData of the firing trigger `config` describes, `tuple` its new
/// row; each value in `set` a datum of its column's type.
pub(crate) unsafe fn act<T>(
    td: *mut pg_sys::TriggerData,
    config: &Config,
    func: &str,
    found: Found<T>,
    tuple: pg_sys::HeapTuple,
    set: &[(i16, Option<pg_sys::Datum>)],
    what: impl Fn(&Match<T>) -> String,
) -> pg_sys::Datum {
    // The check ran as the table owner; what DETAIL says is decided for the inserting
    // user (the user id is restored by now).
    let detail = |m: &Match<T>| {
        if may_see_key(config.relid, &config.key_attnums) {
            format!("Key ({})=({}) {}.", config.key_label, m.key, what(m))
        } else {
            format!("An existing row {}.", what(m))
        }
    };
    // SAFETY: the trigger's Trigger and relation are valid for the call (caller).
    let (trigger_name, desc) =
        unsafe { (CStr::from_ptr((*(*td).tg_trigger).tgname).to_string_lossy(), (*(*td).tg_relation).rd_att) };
    match (found, config.action) {
        (Found::Concurrent(m), _) => raise(
            PgSqlErrorCode::ERRCODE_T_R_SERIALIZATION_FAILURE,
            format!(
                "could not serialize access due to a concurrent near-duplicate in relation \"{}\" (trigger \"{trigger_name}\")",
                config.relname
            ),
            Some(detail(&m)),
            Some("The transaction might succeed if retried."),
        ),
        (Found::Visible(m), Action::Reject) => raise(
            PgSqlErrorCode::ERRCODE_UNIQUE_VIOLATION,
            format!(
                "new row for relation \"{}\" is a near-duplicate of an existing row (trigger \"{trigger_name}\")",
                config.relname
            ),
            Some(detail(&m)),
            None,
        ),
        (Found::Visible(m), Action::Skip) => {
            SKIPPED.fetch_add(1, Ordering::Relaxed);
            // DEBUG1, not NOTICE: a bulk load can skip millions of rows.
            ereport!(
                DEBUG1,
                PgSqlErrorCode::ERRCODE_SUCCESSFUL_COMPLETION,
                format!("{func}: skipped a near-duplicate row of \"{}\"", config.relname),
                detail(&m)
            );
            pg_sys::Datum::from(0usize)
        }
        (found, _) => {
            let link = match found {
                Found::Visible(m) => m.link_value,
                _ => None,
            };
            // SAFETY: forwarded from the caller.
            unsafe { with_link(tuple, desc, config, set, link) }
        }
    }
}
