//! The dedup decision in SQL (sql/decision/decision.sql; docs/decision.md):
//! `simhash_same_passage(a, b)`, what the triggers and bulk functions of 6.0 ask of every
//! candidate (`simhash_core::decision`). The triggers call the core directly (src/trigger/);
//! `simhash_explain` lists what it weighed (src/similarity/explain.rs).

use pgrx::prelude::*;

use crate::text::text_datum_to_utf8;

function_info_v1!(pg_finfo_simhash_same_passage);
/// `simhash_same_passage(a text, b text) → boolean`: the dedup decision on two texts, read as
/// UTF-8 whatever the database's encoding (`text_datum_to_utf8`, as `simhash_similarity`).
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_same_passage(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: the fmgr calls it as the STRICT (text, text) function of
    // sql/decision/decision.sql: both arguments are non-NULL text datums.
    unsafe {
        let a = text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0));
        let b = text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1));
        pg_sys::Datum::from(
            simhash_core::decision::decide(simhash_core::decision::Version::LATEST, &*a, &*b, &mut crate::error::tick)
                .duplicate,
        )
    }
}

pgrx::extension_sql_file!("../sql/decision/decision.sql", name = "decision");
