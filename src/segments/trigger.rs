//! `simhash_segments_dedup_trigger(segments_column, text_column, min_resemblance, action
//! [, link_column] [, options])`: a BEFORE INSERT OR UPDATE row trigger that sets
//! segments_column = simhash_segments(text [, options]), as `simhash_segments_trigger` does,
//! and rejects, skips or links a row whose segments resemble those of an existing row at
//! `min_resemblance` or more (docs/segments.md, "Dedup on insert by resemblance").
//!
//! It is `simhash_dedup_trigger` with another measure, and shares its machinery: the
//! per-backend cache of the config and plans (cache.rs), the primary key and link column
//! (key.rs), the check as the table owner with the REPEATABLE READ re-check (check.rs), the
//! escalating advisory locks (lock.rs) and the actions (act.rs). What differs:
//! - The locks are keys of a prefix of the row's segments in ascending order, which every
//!   resembling row shares (`simhash_core::segments::trigger::segment_lock_keys`).
//! - The check query (`simhash_core::segments::trigger::segments_check_query`) finds candidates
//!   through the GIN index on the segments column (`&&`), by the row's rare segments only:
//!   those that at most `simhash.segment_max_rows` existing rows have. A passage repeated
//!   in thousands of rows (a disclaimer, a dateline) would make every insert read them all
//!   and says nothing about any one of them. Resemblance is then measured over all segments.
//! - Before the check query, the GIN index on the segments column, if there is one, is asked
//!   whether any row version has one of the row's segments; if none has, the query is not
//!   run (precheck.rs).
//! - A NULL text, or a text without a segment (fewer than 6 features in all), is never a
//!   duplicate: no lock, no check.
//! - The option `"max_distance": k` (2.1.0) matches segments within k bits, as
//!   `simhash_resemblance(a, b, k)`; candidates still share a rare segment exactly, and every
//!   segment is locked, since a resembling row may share no more than that one. Not under
//!   definition 3 (22023), whose segments are shingle hashes (`segments::options_within`).
//!
//! Two C symbols each, as for the Hamming triggers (mod.rs): `simhash_segments_dedup_trigger`
//! and `simhash_segments_dedup_query`, 2.x's, keep definition 2 (a database not yet updated,
//! and the `_v2` functions since 3.0.0); their `_v3` twins default to definition 3.

use pgrx::prelude::*;
use simhash_core::segments::trigger::SegmentsCheckQuery;
use simhash_core::trigger::QueryTarget;

use super::precheck::segments_index;
use super::segment_options;
use super::segments_of;
use crate::text::text_datum_to_utf8;
use crate::trigger::act::{act, unchecked};
use crate::trigger::check::{query_as_owner, Found, Match};
use crate::trigger::config::{bad_args, split_decision, target, Config, Configured, Measure, PreCheck};
use crate::trigger::lock::lock_keys;
use crate::trigger::{dedup_query, firing, replace, value_of, Decision, Firing};

use super::column_trigger::segments_and_text;
use super::precheck::SegmentsIndex;
use simhash_core::{Definition, Options};

use crate::segments::SEGMENT_MAX_ROWS;

const F: &str = "simhash_segments_dedup_trigger";

/// What the segments dedup trigger adds to its config.
pub(crate) struct Segments {
    /// The resemblance bound.
    pub min_resemblance: f64,
    /// The option `"max_distance"` (0: segments match exactly).
    pub max_distance: u32,
    /// What the trigger cuts the text into segments with.
    pub options: Options,
    /// The GIN index on the segments column, which the pre-check scans, if any.
    pub precheck: Option<SegmentsIndex>,
}

impl Measure for Segments {
    /// The definition when the options name none, and what decides.
    type Variant = (Definition, Decision);

    unsafe fn build(
        rel: pg_sys::Relation,
        args: &[String],
        ext_schema: pg_sys::Oid,
        (default, decision): (Definition, Decision),
        func: &str,
    ) -> Configured<Self> {
        // SAFETY: forwarded from the caller.
        unsafe { config(rel, args, ext_schema, default, decision, func) }
    }

    unsafe fn describe(config: &Configured<Self>, _: pg_sys::Oid, _: (Definition, Decision)) -> Option<String> {
        config.measure.precheck.as_ref().map(|i| i.describe())
    }
}

/// Takes the locks that make two inserters of resembling rows contend: the keys of a prefix
/// of the row's segments (`simhash_core::segments::trigger::segment_lock_keys`), which any
/// resembling row shares.
fn lock(config: &Configured<Segments>, segments: &[u64]) {
    let (relid, attnum) = (config.relid.to_u32(), config.checked.attnum);
    let table = simhash_core::segments::trigger::segments_table_lock_key(relid, attnum);
    let m = &config.measure;
    lock_keys(table, || {
        simhash_core::segments::trigger::segment_lock_keys(relid, attnum, segments, m.min_resemblance, m.max_distance)
    });
}

/// Checks the trigger's arguments against its table and builds its check queries; `default`
/// is the definition when the options name none.
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
unsafe fn config(
    rel: pg_sys::Relation,
    args: &[String],
    ext_schema: pg_sys::Oid,
    default: Definition,
    decision: Decision,
    func: &str,
) -> Configured<Segments> {
    let (args, decision) = split_decision(args, decision, func);
    let parsed =
        simhash_core::segments::trigger::parse_segments_dedup_args(&args).unwrap_or_else(|e| bad_args(e, func));
    let (options, max_distance) = segment_options(parsed.options.as_deref(), default, func);
    // SAFETY: forwarded from the caller.
    unsafe {
        let (seg, text) = segments_and_text(rel, &parsed.segments_column, &parsed.text_column, func);
        let target =
            target(rel, parsed.link_column.as_deref(), &[("segments", &seg), ("text", &text)], ext_schema, func);
        let query = |target: QueryTarget<'_>| {
            simhash_core::segments::trigger::segments_check_query(&SegmentsCheckQuery {
                target,
                segments: &seg.sql,
                max_distance,
            })
        };
        let precheck = segments_index(rel, seg.attnum);
        Configured {
            common: Config::new(rel, target, (seg.clone(), Some(text)), parsed.action, decision, query),
            measure: Segments { min_resemblance: parsed.min_resemblance, max_distance, options, precheck },
        }
    }
}

/// The body of the `simhash_segments_dedup_trigger` symbols; `default` is the definition
/// when the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn dedup_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { dedup_body(fcinfo, default, Decision::Measure) }
}

/// The segments dedup trigger deciding by `decision`.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn dedup_body(
    fcinfo: pg_sys::FunctionCallInfo,
    default: Definition,
    decision: Decision,
) -> pg_sys::Datum {
    // SAFETY: called by the fmgr with a valid fcinfo (caller); `firing` checks it is a BEFORE
    // ROW INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call;
    // the config checked that the columns are a bigint[] and a text/varchar of the relation.
    unsafe {
        let Firing { td, is_update, desc, tuple, config, plans } = firing::<Segments>(fcinfo, F, (default, decision));
        let text = config.text.as_ref().expect("the segments trigger has a text column");
        let Some(segments) = segments_of(tuple, desc, text, &config.measure.options) else {
            return unchecked(tuple, desc, &config, &[(config.checked.attnum, None)]);
        };
        let value = segments.clone().into_datum();
        let set = [(config.checked.attnum, value)];
        if segments.is_empty() {
            return unchecked(tuple, desc, &config, &set);
        }
        let exclude = if is_update {
            // An UPDATE that keeps the segments was checked when the row got them.
            let old = value_of((*td).tg_trigtuple, desc, &config.checked)
                .and_then(|old| Vec::<Option<i64>>::from_datum(old, false));
            if old.is_some_and(|old| old.iter().copied().eq(segments.iter().map(|&s| Some(s)))) {
                return pg_sys::Datum::from(replace(tuple, desc, &set));
            }
            Some((*(*td).tg_trigtuple).t_self)
        } else {
            None
        };
        let ids: Vec<u64> = segments.iter().map(|&s| s as u64).collect();
        lock(&config, &ids);
        let min_resemblance = config.measure.min_resemblance;
        let what = |m: &Match<f64>| format!("has resemblance {:.3} (min_resemblance {min_resemblance})", m.measure);
        let array = value.expect("an array datum");
        if let Some(index) = &config.measure.precheck {
            // No row version has one of its segments: nothing to check (precheck.rs).
            if !index.may_match((*td).tg_relation, array) {
                return act(td, &config, F, Found::None, tuple, &set, what);
            }
        }
        let params = vec![
            array,
            pg_sys::Datum::from(SEGMENT_MAX_ROWS.get()),
            min_resemblance.into_datum().expect("a float8 datum"),
        ];
        let types = [pg_sys::INT8ARRAYOID, pg_sys::INT4OID, pg_sys::FLOAT8OID];
        // The decision reads the new text (segments came from it, so it is not NULL).
        let doc = value_of(tuple, desc, text).map(|d| text_datum_to_utf8(d));
        let found = query_as_owner::<f64>(td, &config, plans, &types, params, exclude, doc.as_deref(), None);
        act(td, &config, F, found, tuple, &set, what)
    }
}

v1_function!(
    /// `simhash_segments_dedup_trigger()` since 7.0.0: definition 3 by default; the candidates,
    /// most resembling first, and the first decision 3 calls the same passage as the new text
    /// (docs/decision.md), at the strictness of the option `"decision"`.
    pg_finfo_simhash_segments_dedup_trigger_d3, simhash_segments_dedup_trigger_d3 => dedup_body, Definition::V3, Decision::LATEST
);

/// The body of both `simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[])
/// → text` symbols (since 2.0.1): the check query the segments dedup trigger with these
/// arguments runs on `tbl` for an INSERT, after the same validation (`default` is the
/// trigger's definition when the options name none), e.g. to EXPLAIN it, with its pre-check
/// in a trailing comment (`simhash_dedup_query`'s counterpart).
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
pub(crate) unsafe fn dedup_query_body(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { query_of(fcinfo, default, Decision::Measure) }
}

/// The segments dedup trigger's check query, deciding by `decision`.
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
pub(crate) unsafe fn query_of(
    fcinfo: pg_sys::FunctionCallInfo,
    default: Definition,
    decision: Decision,
) -> pg_sys::Datum {
    const Q: &str = "simhash_segments_dedup_query";
    // SAFETY: forwarded from the caller.
    unsafe { dedup_query::<Segments>(fcinfo, (default, decision), Q) }
}

v1_function!(
    /// `simhash_segments_dedup_query(tbl, VARIADIC trigger_args)` since 7.0.0: the query of
    /// `simhash_segments_dedup_trigger`, which returns every candidate and its text.
    pg_finfo_simhash_segments_dedup_query_d3, simhash_segments_dedup_query_d3 => query_of, Definition::V3, Decision::LATEST
);

pgrx::extension_sql_file!("../../sql/segments/trigger.sql", name = "segments_trigger", requires = ["trigger"]);
