//! `simhash_segments_trigger(segments_column, text_column [, options])`: a BEFORE INSERT OR
//! UPDATE row trigger that sets segments = simhash_segments(text [, options]), NULL for a
//! NULL text. `simhash_create_segments` (sql/segments/segments.sql) installs it, so that a
//! segments column added to a live table stays exact from the moment it exists, while the
//! rows already there are filled in batches. Two C symbols, as for the Hamming triggers
//! (mod.rs): `simhash_segments_trigger`, 2.x's, keeps definition 2 (a database not yet
//! updated, and `simhash_segments_trigger_v2()` since 3.0.0), `_v3` defaults to definition 3.

use pgrx::prelude::*;
use simhash_core::trigger as args;
use simhash_core::Definition;

use super::segments_of;
use crate::fingerprints::options::trigger_options as options;
use crate::trigger::column::Column;
use crate::trigger::config::{bad_args, computed_column, text_column, trigger_args};
use crate::trigger::{fired, replace};

/// The segments and text columns of a segments trigger, checked: ERROR 42804 unless the
/// segments column is bigint[] and the text column text or varchar, 428C9 when the segments
/// column is generated.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn segments_and_text(
    rel: pg_sys::Relation,
    seg_name: &str,
    text_name: &str,
    func: &str,
) -> (Column, Column) {
    let hint = "Make it a plain bigint[] column, or drop the trigger and keep the generated column.";
    // SAFETY: forwarded from the caller.
    unsafe {
        let seg = computed_column(rel, seg_name, func, "segments", pg_sys::INT8ARRAYOID, hint);
        (seg, text_column(rel, text_name, func))
    }
}

/// The body of both `simhash_segments_trigger` symbols; `default` is the definition when
/// the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn segments_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
    const F: &str = "simhash_segments_trigger";
    // SAFETY: called by the fmgr with a valid fcinfo (caller); `fired` checks it is a BEFORE
    // ROW INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call,
    // and the columns are checked to be a text/varchar and a bigint[] of that relation.
    unsafe {
        let f = fired(fcinfo, F);
        let td = f.td;
        let parsed = args::parse_segments_args(&trigger_args((*td).tg_trigger)).unwrap_or_else(|e| bad_args(e, F));
        let options = options(parsed.options.as_deref(), default, F);
        let rel = (*td).tg_relation;
        let (seg, text) = segments_and_text(rel, &parsed.fp_column, &parsed.text_column, F);
        let tuple = if f.is_update { (*td).tg_newtuple } else { (*td).tg_trigtuple };
        let value = segments_of(tuple, (*rel).rd_att, &text, &options).map(|s| s.into_datum().expect("an array datum"));
        pg_sys::Datum::from(replace(tuple, (*rel).rd_att, &[(seg.attnum, value)]))
    }
}

v1_function!(
    /// `simhash_segments_trigger()` since 3.0.0: definition 3 by default.
    pg_finfo_simhash_segments_trigger_v3, simhash_segments_trigger_v3 => segments_trigger, Definition::V3
);
