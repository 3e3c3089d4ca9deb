//! `simhash_segments_trigger(segments_column, text_column [, options])`: a BEFORE INSERT OR
//! UPDATE row trigger that sets segments = simhash_segments(text [, options]), NULL for a
//! NULL text. `simhash_create_segments` (sql/segments/segments.sql) installs it, so that a
//! segments column added to a live table stays exact from the moment it exists, while the
//! rows already there are filled in batches.

use pgrx::prelude::*;
use simhash_core::trigger as args;

use super::config::{bad_args, options, segments_and_text, trigger_args};
use super::{fired, replace, segments_of};
use crate::segments::DEFAULT_DEFINITION;

function_info_v1!(pg_finfo_simhash_segments_trigger);
/// `simhash_segments_trigger()` since 2.0.0.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_segments_trigger(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    const F: &str = "simhash_segments_trigger";
    // SAFETY: called by the fmgr with a valid fcinfo; `fired` checks it is a BEFORE ROW
    // INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call,
    // and the columns are checked to be a text/varchar and a bigint[] of that relation.
    unsafe {
        let f = fired(fcinfo, F);
        let td = f.td;
        let parsed = args::parse_segments_args(&trigger_args((*td).tg_trigger)).unwrap_or_else(|e| bad_args(e, F));
        let options = options(parsed.options.as_deref(), DEFAULT_DEFINITION, F);
        let rel = (*td).tg_relation;
        let (seg, text) = segments_and_text(rel, &parsed.fp_column, &parsed.text_column, F);
        let tuple = if f.is_update { (*td).tg_newtuple } else { (*td).tg_trigtuple };
        let value = segments_of(tuple, (*rel).rd_att, &text, &options).map(|s| s.into_datum().expect("an array datum"));
        pg_sys::Datum::from(replace(tuple, (*rel).rd_att, &[(seg.attnum, value)]))
    }
}
