//! The dedup decision in SQL (sql/decision/decision.sql; docs/decision.md):
//! `simhash_same_passage(a, b [, decision])`, what the triggers and bulk functions ask of every
//! candidate (`simhash_core::decision`), and 6.0's `simhash_same_passage_d2(a, b)`. The triggers
//! call the core directly (src/trigger/); `simhash_explain` lists what it weighed
//! (src/similarity/explain.rs).

use pgrx::prelude::*;
use simhash_core::decision::{decide, Rule, Strictness, Version};

use crate::text::text_datum_to_utf8;

/// The decision of two text arguments of `fcinfo` by `rule`.
///
/// # Safety
/// `fcinfo` must be that of a STRICT function whose first two arguments are text.
unsafe fn same_passage(fcinfo: pg_sys::FunctionCallInfo, rule: Rule) -> pg_sys::Datum {
    // SAFETY: both arguments are non-NULL text datums (caller).
    unsafe {
        let a = text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0));
        let b = text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1));
        pg_sys::Datum::from(decide(rule, &*a, &*b, None, &mut crate::error::tick).duplicate)
    }
}

function_info_v1!(pg_finfo_simhash_same_passage);
/// `simhash_same_passage_d2(a text, b text) → boolean` since 7.0.0 (6.0.0's
/// `simhash_same_passage`, on its symbol): decision 2 on two texts, read as UTF-8 whatever the
/// database's encoding (`text_datum_to_utf8`, as `simhash_similarity`).
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_same_passage(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: the fmgr calls it as the STRICT (text, text) function of sql/compat/decision2.sql.
    unsafe { same_passage(fcinfo, Rule::D2) }
}

function_info_v1!(pg_finfo_simhash_same_passage_d3);
/// `simhash_same_passage(a text, b text, decision text DEFAULT 'balanced') → boolean` since
/// 7.0.0: decision 3 at the strictness `decision` names (loose, balanced, strict); ERROR 22023
/// for another.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_same_passage_d3(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: the fmgr calls it as the STRICT (text, text, text) function of
    // sql/decision/decision.sql: three non-NULL text datums.
    unsafe {
        let name = text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 2));
        let strictness = strictness(&name, "simhash_same_passage");
        same_passage(fcinfo, Rule { version: Version::D3, strictness })
    }
}

/// The strictness named `name`, or ERROR 22023 naming `func`.
pub(crate) fn strictness(name: &str, func: &str) -> Strictness {
    Strictness::parse(name).unwrap_or_else(|| {
        crate::error::raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: unknown decision \"{name}\": expected loose, balanced or strict"),
            None,
            None,
        )
    })
}

pgrx::extension_sql_file!("../sql/decision/decision.sql", name = "decision");
