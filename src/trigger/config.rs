//! The settings of a trigger: its arguments (columns, options, and for the dedup triggers
//! the bound, action and link column), checked against its table; for the dedup triggers
//! the `Config` built from them (cached per backend and trigger in cache.rs).

use std::ffi::CStr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::trigger::{Action, DedupError, QueryTarget};
use simhash_core::Options;

use super::column::{column, relation_names, schema_name, type_name, Column};
use super::key::{keys, Keys};
use super::Decision;
use crate::error::raise;

/// The trigger's arguments.
///
/// # Safety
/// `trigger` must be the Trigger of a firing trigger.
pub(crate) unsafe fn trigger_args(trigger: *const pg_sys::Trigger) -> Vec<String> {
    // SAFETY: tgargs holds tgnargs NUL-terminated strings.
    unsafe {
        (0..(*trigger).tgnargs as usize)
            .map(|i| CStr::from_ptr(*(*trigger).tgargs.add(i)).to_string_lossy().into_owned())
            .collect()
    }
}

/// Raises the ERROR for invalid trigger arguments: 39P01 when the trigger was declared with
/// the wrong number of them, 22023 for a wrong value.
pub(crate) fn bad_args(e: DedupError, func: &str) -> ! {
    let code = if e.is_protocol() {
        PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED
    } else {
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
    };
    raise(code, format!("{func}: {e}"), None, None)
}

/// The fingerprint column, checked: ERROR 42804 unless bigint, 428C9 when it is generated
/// (a BEFORE trigger can neither read nor set it). `from_text`: whether the trigger computes
/// it from a text column (else the row brings it), for the HINT.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn fp_column(rel: pg_sys::Relation, fp_name: &str, func: &str, from_text: bool) -> Column {
    // SAFETY: forwarded from the caller.
    let fp = unsafe { column(rel, fp_name, func, "fingerprint") };
    if fp.base_type != pg_sys::INT8OID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: fingerprint column \"{fp_name}\" has type {}, expected bigint", type_name(fp.base_type)),
            None,
            None,
        );
    }
    if fp.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: fingerprint column \"{fp_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger can neither read nor set it.".into()),
            Some(if from_text {
                "Make it a plain bigint column: the trigger computes the fingerprint from the text and stores it there."
            } else {
                "Make it a plain bigint column and insert the fingerprint into it."
            }),
        );
    }
    fp
}

/// The fingerprint and text columns, checked: as [`fp_column`], and ERROR 42804 unless the
/// text column is text or varchar.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn fp_and_text(
    rel: pg_sys::Relation,
    fp_name: &str,
    text_name: &str,
    func: &str,
) -> (Column, Column) {
    // SAFETY: forwarded from the caller.
    unsafe { (fp_column(rel, fp_name, func, true), text_column(rel, text_name, func)) }
}

/// The text column, checked: ERROR 42804 unless text or varchar, 428C9 when it is a stored
/// generated column (computed after BEFORE triggers: the trigger would read NULL and do
/// nothing, issue 49).
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn text_column(rel: pg_sys::Relation, text_name: &str, func: &str) -> Column {
    // SAFETY: forwarded from the caller.
    let text = unsafe { column(rel, text_name, func, "text") };
    if text.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: text column \"{text_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger would read NULL and check nothing.".into()),
            Some("Name a plain column: fill it in a BEFORE trigger of your own that fires first (triggers fire in name order), or give the trigger the column the text comes from."),
        );
    }
    if text.base_type != pg_sys::TEXTOID && text.base_type != pg_sys::VARCHAROID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!(
                "{func}: text column \"{text_name}\" has type {}, expected text or varchar",
                type_name(text.base_type)
            ),
            None,
            None,
        );
    }
    text
}

/// The segments and text columns of `simhash_segments_trigger`, checked: ERROR 42804 unless
/// the segments column is bigint[] and the text column text or varchar, 428C9 when the
/// segments column is generated.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn segments_and_text(
    rel: pg_sys::Relation,
    seg_name: &str,
    text_name: &str,
    func: &str,
) -> (Column, Column) {
    // SAFETY: forwarded from the caller.
    let seg = unsafe { column(rel, seg_name, func, "segments") };
    if seg.base_type != pg_sys::INT8ARRAYOID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: segments column \"{seg_name}\" has type {}, expected bigint[]", type_name(seg.base_type)),
            None,
            None,
        );
    }
    if seg.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: segments column \"{seg_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger cannot set it.".into()),
            Some("Make it a plain bigint[] column, or drop the trigger and keep the generated column."),
        );
    }
    // SAFETY: forwarded from the caller.
    (seg, unsafe { text_column(rel, text_name, func) })
}

/// A measure's index pre-check: before its check query, a dedup trigger walks an index
/// itself and skips the query when no index entry can be a match. Sound because an index
/// holds an entry for every row version, visible to us or not, and the advisory locks are
/// taken first (fingerprints/precheck.rs has the argument).
pub(crate) trait PreCheck {
    /// For `simhash_*_dedup_query`: which indexes the pre-check scans.
    fn describe(&self) -> String;

    /// Whether some entry of the index may be a match for `value`, the new row's checked
    /// column (a fingerprint, an int8 datum, or segments, a non-empty bigint[] datum without
    /// NULLs) under `config`'s bound: false proves that no row version is.
    ///
    /// # Safety
    /// Must run in the firing trigger whose config is `config`, with an active snapshot;
    /// `heap` is its open relation, on which the pre-check was found since its last relcache
    /// invalidation (which drops the config).
    unsafe fn may_match(&self, heap: pg_sys::Relation, value: pg_sys::Datum, config: &Config) -> bool;
}

/// Everything a dedup trigger derives from its arguments and table, built on its first
/// firing in a backend.
pub(crate) struct Config {
    pub relid: pg_sys::Oid,
    pub relname: String,
    /// The checked column: the fingerprint, the segments, or for the similarity trigger the
    /// text itself (the column its lock keys are hashed with).
    pub fp: Column,
    /// The text the fingerprint is computed from; None for `simhash_dedup_fp_trigger`,
    /// whose rows bring their fingerprint.
    pub text: Option<Column>,
    pub link: Option<Column>,
    /// The Hamming bound (`simhash_dedup_trigger`, `simhash_dedup_fp_trigger`).
    pub k: u32,
    /// The resemblance bound (`simhash_segments_dedup_trigger`; 0 for the others).
    pub min_resemblance: f64,
    /// The segment dedup trigger's `"max_distance"` option (0: segments match exactly).
    pub max_distance: u32,
    pub action: Action,
    /// What the trigger fingerprints the text with: its options argument, or the defaults
    /// of the definition its C symbol defaults to.
    pub options: Options,
    /// The key columns as listed in DETAIL, e.g. `id` or `a, b` (`ctid` without a primary key).
    pub key_label: String,
    /// Their attribute numbers (empty for `ctid`), to decide whether the inserting user may
    /// see the key (mod.rs, `may_see_key`).
    pub key_attnums: Vec<i16>,
    /// The key's type, when the check query returns it (link).
    pub link_type: Option<(bool, i16)>,
    pub query_insert: String,
    pub query_update: String,
    /// The measure's index pre-check, run before the check query, if it has one here: the
    /// block indexes of the fingerprint trigger (fingerprints/precheck.rs), when a set is
    /// cheaper to scan than the query is to run, or the GIN index on the segments column
    /// (segments/precheck.rs).
    pub precheck: Option<Box<dyn PreCheck>>,
    /// The bounds and locks of `simhash_similarity_dedup_trigger` (None for the others).
    pub similarity: Option<Similarity>,
    /// Whether the check query must be planned on an index, sequential scans off: its locks
    /// cover only the candidates an index lookup can return (check.rs, `IndexPlan`).
    pub plan_on_index: bool,
    /// What decides (mod.rs): with [`Decision::Passage`] the check queries return every
    /// candidate and its text, and the dedup decision picks.
    pub decision: Decision,
}

/// What `simhash_similarity_dedup_trigger` adds to its Config (similarity/trigger.rs).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Similarity {
    pub min_similarity: f64,
    /// The option `"min_containment"`.
    pub min_containment: Option<f64>,
    /// The `simhash_ops` (or `simhash_band_ops`) index on the text column, if it has one.
    pub index: Option<pg_sys::Oid>,
    /// The keys an insert locks: those of the column's indexes (with bands when it has a
    /// `simhash_band_ops` index).
    pub locked: simhash_core::similarity::trigger::LockedKeys,
    /// Whether locking the new text's index keys makes every two inserters that could find
    /// each other contend: an index, and thresholds its lookups answer from keys
    /// (`simhash_core::similarity::trigger::lookups_share_keys`). Else an insert takes the table's key
    /// exclusively.
    pub by_keys: bool,
}

/// What every dedup trigger's check query is built from: its table, schema-qualified and
/// quoted, the extension's schema, quoted, and the table's key and link column.
pub(crate) struct Target {
    pub table: String,
    pub relname: String,
    pub schema: String,
    pub keys: Keys,
}

/// The [`Target`] of a trigger on `rel` with link column `link_name`, checked (key.rs), also
/// against the columns the trigger reads or writes, `read` (role, column).
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
pub(crate) unsafe fn target(
    rel: pg_sys::Relation,
    link_name: Option<&str>,
    read: &[(&str, &Column)],
    ext_schema: pg_sys::Oid,
    func: &str,
) -> Target {
    // SAFETY: forwarded from the caller.
    unsafe {
        let (table, relname) = relation_names(rel);
        let keys = keys(rel, link_name, read, &relname, func);
        Target { table, relname, schema: schema_name(ext_schema), keys }
    }
}

impl Target {
    /// What the check queries read and return, for an insert or (`exclude_ctid`) an update;
    /// `decide`: the text column the dedup decision reads.
    pub(crate) fn query<'a>(&'a self, exclude_ctid: bool, decide: Option<&'a str>) -> QueryTarget<'a> {
        QueryTarget {
            table: &self.table,
            ext_schema: &self.schema,
            key_columns: &self.keys.quoted,
            with_link_value: self.keys.link.is_some(),
            exclude_ctid,
            decide,
        }
    }
}

impl Config {
    /// The config of a trigger on `rel` that checks column `fp` and the text `fp` is computed from (one pair),
    /// with `query(target)` as its insert and update check queries (the target's
    /// `exclude_ctid` false, then true), deciding by `decision` (the decision reads `text`,
    /// so a trigger without one decides by the measure); no bound and no pre-check (the
    /// caller sets its own).
    ///
    /// # Safety
    /// `rel` must be an open relation.
    pub(crate) unsafe fn new(
        rel: pg_sys::Relation,
        target: Target,
        (fp, text): (Column, Option<Column>),
        action: Action,
        options: Options,
        decision: Decision,
        query: impl Fn(QueryTarget<'_>) -> String,
    ) -> Config {
        let decision = if text.is_some() { decision } else { Decision::Measure };
        let decide = (decision == Decision::Passage).then(|| text.as_ref().map(|c| c.sql.as_str())).flatten();
        let (query_insert, query_update) = (query(target.query(false, decide)), query(target.query(true, decide)));
        Config {
            // SAFETY: an open relation (caller).
            relid: unsafe { (*rel).rd_id },
            relname: target.relname,
            fp,
            text,
            link: target.keys.link,
            k: 0,
            min_resemblance: 0.0,
            max_distance: 0,
            action,
            options,
            key_label: target.keys.label,
            key_attnums: target.keys.attnums,
            link_type: target.keys.link_type,
            query_insert,
            query_update,
            precheck: None,
            similarity: None,
            plan_on_index: false,
            decision,
        }
    }
}
