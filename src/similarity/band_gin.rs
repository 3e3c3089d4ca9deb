//! The GIN operator class `simhash_band_ops` for `text` (sql/similarity/band.sql): a text's
//! keys are its MinHash band keys (`simhash_core::similarity::band_lookup`), whose posting
//! lists hold near-duplicates and do not grow with the table, for similarity lookups from
//! 0.5 on. Its own extractValue and extractQuery, and `simhash_band_keys(text)`; consistent
//! and triConsistent are `simhash_ops`' (gin.rs), with one key required. The operator is the
//! same `@%`, so the planner support function (support.rs) makes the same index condition
//! for either operator class, and the planner picks an index by cost: a lookup this one does
//! not answer from keys (containment, or below 0.5) reads the whole index, which costs more
//! than a `simhash_ops` index or a sequential scan.

use pgrx::prelude::*;
use simhash_core::similarity::band_lookup::{band_index_keys, band_lookup};
use simhash_core::similarity::Version;

use super::gin::{extract_query_with, key_datums};
use super::{text_arg, tick};

function_info_v1!(pg_finfo_simhash_band_gin_extract_value);
/// `extractValue(text, internal nkeys, internal nullFlags) → internal`: the text's band keys.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_band_gin_extract_value(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: GIN calls it with a non-NULL text item and a pointer to the key count (the
    // declaration in band.sql); nullFlags may stay NULL (no key is NULL).
    unsafe {
        let text = text_arg(fcinfo, 0);
        let n = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1).cast_mut_ptr::<i32>();
        key_datums(&band_index_keys(&text, Version::M2, &mut tick), n)
    }
}

function_info_v1!(pg_finfo_simhash_band_gin_extract_query);
/// `extractQuery(simhash_query, …) → internal`: the query's band keys, one required, or every
/// row (GIN_SEARCH_MODE_ALL) for a lookup bands do not answer.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_band_gin_extract_query(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: GIN calls it with the arguments band.sql declares, as extract_query_with needs.
    unsafe { extract_query_with(fcinfo, |q| band_lookup(&q.text, Version::M2, q.measure, q.threshold, &mut tick)) }
}

function_info_v1!(pg_finfo_simhash_band_keys);
/// `simhash_band_keys(doc text) → int4[]` (STRICT): the keys a `simhash_band_ops` index holds
/// for a text, ascending (empty for a text without shingles).
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_band_keys(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT (text) in band.sql, so argument 0 is a non-NULL text.
    unsafe { band_index_keys(&text_arg(fcinfo, 0), Version::M2, &mut tick).into_datum().expect("an array datum") }
}

pgrx::extension_sql_file!("../../sql/similarity/band.sql", name = "similarity_band", requires = ["similarity_gin"]);
