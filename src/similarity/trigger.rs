//! `simhash_similarity_dedup_trigger(text_column, min_similarity, action [, link_column]
//! [, options])`: a BEFORE INSERT OR UPDATE row trigger that rejects, skips or links a row
//! whose text has `simhash_similarity(existing, new) >= min_similarity` with an existing row
//! of the table, or, with the option `{"min_containment": γ}`, whose text holds γ of the
//! other's shingles or more either way (`simhash_containment(new, existing) >= γ OR
//! simhash_containment(existing, new) >= γ`).
//!
//! It is `simhash_segments_dedup_trigger` with another measure, and shares its machinery: the
//! per-backend cache of the config and plans (cache.rs), the primary key and link column
//! (key.rs), the check as the table owner with the REPEATABLE READ re-check (check.rs), the
//! escalating advisory locks (lock.rs) and the actions (act.rs). What differs:
//! - It computes no column: the text itself is what is compared.
//! - The check query (`simhash_core::similarity::trigger::similarity_check_query`) is written with the
//!   predicate `simhash_similarity_at_least(t.body, $1, $2)`, which the planner support
//!   function makes a `simhash_ops` index condition, and with containment the condition
//!   `t.body @% simhash_query($1, 'either_way', $3)` (one scan for both containments; measure
//!   1's trigger ORs its two containment predicates): a BitmapOr of GIN index scans, also in
//!   the generic plan the trigger keeps, whose recheck is the exact measure. Without a `simhash_ops` index on the text column the same query
//!   scans the table: exact, and as slow as the table is long.
//! - The match (DETAIL, link) is the row with the highest similarity, ties broken by the
//!   smallest key. A row that matches by containment alone has a similarity below
//!   `min_similarity`, so it is chosen only when no row matches by similarity, and then the
//!   most similar of those; DETAIL gives its containment too.
//! - The locks (`simhash_core::similarity::trigger::similarity_lock_keys`): one per index key of the new
//!   text, and with `min_containment`, for a short text (under about 50 characters), one per
//!   key its containment lookup asks for (every shingle's), since any row that the text's
//!   lookups could find, or whose lookups could find the text, shares one of them (the
//!   core's module docs). So short texts with containment run side by side as long ones do
//!   (5.x locked the table for each of them). That holds for candidates that come
//!   from the index's keys: with no `simhash_ops` index (a valid one, on the column alone,
//!   not partial), or thresholds below those lookups answer from keys (0.25 for similarity,
//!   0.5 for containment; below them a lookup reads the whole index), an insert takes the
//!   table's key exclusively instead, so such inserts run one at a time (lock.rs,
//!   `lock_similarity`). With the index, the check is prepared and run with sequential scans
//!   off (check.rs, `IndexPlan`): the planner scans a table its statistics call empty, and a
//!   scan finds rows that share no key. What remains outside the argument is a lossy bitmap
//!   (a lookup whose candidates outgrow work_mem), whose recheck tests whole pages.
//! - A `simhash_band_ops` index on the column (5.2.0) serves the same query: the locks then
//!   take the new text's band keys (any two texts that find each other through it share one;
//!   with both operator classes on the column, both kinds of keys), and the thresholds it
//!   answers from keys are similarity 0.5 and above (`lookups_share_keys`); below them an
//!   insert locks the table. It answers no containment (the planner support function makes
//!   no condition of it for that index), so with `min_containment` the check's containment
//!   comes from a `simhash_ops` index beside it, and an insert into a column with a band
//!   index alone locks the table (docs/similarity.md, "Which index").
//! - A NULL text, or a text without a letter or digit (no shingle, hence no index key, and a
//!   measure of 0 with every text), is never a duplicate: no lock, no check.
//! - An UPDATE is compared with every row but itself; one that keeps the text is not checked.
//!
//! One C symbol each per version of the measure, suffixed `_m1` or `_m2`, as
//! `simhash_similarity`'s (src/similarity/measure.rs): measure 1's trigger (4.x's, renamed
//! `simhash_similarity_dedup_trigger_m1` by the update to 5.0.0) keeps its behaviour, its
//! queries name measure 1's functions and its candidates come from a `simhash_ops_m1` index.

use pgrx::prelude::*;
use simhash_core::similarity::band_lookup::BAND_THETA;
use simhash_core::similarity::lookup::{MIN_CONTAINMENT, MIN_SIMILARITY};
use simhash_core::similarity::trigger::{LockedKeys, SimilarityCheckQuery};
use simhash_core::similarity::Version;
use simhash_core::trigger::QueryTarget;

use crate::similarity::frame_keys;
use crate::text::text_datum_to_utf8;
use crate::trigger::act::{act, unchecked};
use crate::trigger::check::{query_as_owner, texts_as_owner, Match};
use crate::trigger::config::{bad_args, split_decision, target, text_column, Config, Configured, Measure};
use crate::trigger::indexes::{gin_indexes, relation_name};
use crate::trigger::lock::{lock_keys, lock_table};
use crate::trigger::{dedup_query, firing, value_of, Decision, Firing};

/// What `simhash_similarity_dedup_trigger` adds to its config.
#[derive(Clone, Debug)]
pub(crate) struct Similarity {
    pub min_similarity: f64,
    /// The option `"min_containment"`.
    pub min_containment: Option<f64>,
    /// The `simhash_ops` (or `simhash_band_ops`) index on the text column, if it has one.
    pub index: Option<pg_sys::Oid>,
    /// The keys an insert locks: those of the column's indexes (with bands when it has a
    /// `simhash_band_ops` index).
    pub locked: LockedKeys,
    /// Whether locking the new text's index keys makes every two inserters that could find
    /// each other contend: an index, and thresholds its lookups answer from keys
    /// (`simhash_core::similarity::trigger::lookups_share_keys`). Else an insert takes the
    /// table's key exclusively.
    pub by_keys: bool,
    /// Whether the check's lookups take the frame keys the trigger learns (an `int4[]` after
    /// the thresholds) and its reading learns them (src/similarity/frame_keys.rs).
    pub framed: bool,
    /// With `framed`, the probe a backend runs before its first check
    /// (`simhash_core::similarity::trigger::similarity_probe_query`).
    pub probe: String,
}

impl Measure for Similarity {
    /// The version of the measure, and what decides.
    type Variant = (Version, Decision);

    unsafe fn build(
        rel: pg_sys::Relation,
        args: &[String],
        ext_schema: pg_sys::Oid,
        (v, decision): (Version, Decision),
        func: &str,
    ) -> Configured<Self> {
        // SAFETY: forwarded from the caller.
        unsafe { config(rel, args, ext_schema, v, decision, func) }
    }

    unsafe fn describe(
        config: &Configured<Self>,
        ext_schema: pg_sys::Oid,
        (v, _): (Version, Decision),
    ) -> Option<String> {
        // The operator class's name in this catalog: measure 1's is simhash_ops_m1 since
        // 5.0.0, simhash_ops in a 4.x catalog.
        // SAFETY: inside a transaction (caller).
        let opclass = format!("simhash_ops{}", unsafe { crate::similarity::sql_suffix(ext_schema, v) });
        Some(describe(&config.measure, &config.checked.sql, &opclass))
    }
}

/// The locks of an insert: `keys`, those of the new text's index keys
/// (`simhash_core::similarity::trigger::similarity_lock_keys`), which every text that a lookup
/// of it could find, or whose lookup could find it, shares, when `by_keys`. When not (no
/// `simhash_ops` index, or thresholds below what lookups answer from keys: the query finds
/// rows that share no key), the table key alone, exclusively: such inserts run one at a time.
fn lock(config: &Config, by_keys: bool, keys: Vec<u64>) {
    let (relid, attnum) = (config.relid.to_u32(), config.checked.attnum);
    let table = simhash_core::similarity::trigger::similarity_table_lock_key(relid, attnum);
    if by_keys {
        lock_keys(table, || keys);
    } else {
        lock_table(table);
    }
}

/// The trigger's name under version `v` and `decision`.
fn trigger_name(v: Version, decision: Decision) -> &'static str {
    match (v, decision) {
        (Version::M1, _) => "simhash_similarity_dedup_trigger_m1",
        (Version::M2, Decision::Measure) => "simhash_similarity_dedup_trigger_d1",
        (Version::M2, Decision::Passage(r)) if r.version == simhash_core::decision::Version::D2 => {
            "simhash_similarity_dedup_trigger_d2"
        }
        (Version::M2, Decision::Passage(_)) => "simhash_similarity_dedup_trigger",
    }
}

/// Checks the trigger's arguments against its table, finds its `simhash_ops` index (of version
/// `v`) and builds its check queries.
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
unsafe fn config(
    rel: pg_sys::Relation,
    args: &[String],
    ext_schema: pg_sys::Oid,
    v: Version,
    decision: Decision,
    func: &str,
) -> Configured<Similarity> {
    let (args, decision) = split_decision(args, decision, func);
    let parsed =
        simhash_core::similarity::trigger::parse_similarity_dedup_args(&args).unwrap_or_else(|e| bad_args(e, func));
    // SAFETY: forwarded from the caller; the relation is locked by the statement (trigger)
    // or by dedup_query, as gin_index needs.
    unsafe {
        let text = text_column(rel, &parsed.text_column, func);
        let target = target(rel, parsed.link_column.as_deref(), &[("text", &text)], ext_schema, func);
        let with_containment = parsed.min_containment.is_some();
        let suffix = crate::similarity::sql_suffix(ext_schema, v);
        // Decision 3's trigger of measure 2 learns its table's frame keys (frame_keys.rs); 6.0's
        // `_d2` keeps its lookups.
        let framed = v == Version::M2
            && suffix.is_empty()
            && matches!(decision, Decision::Passage(r) if r.version != simhash_core::decision::Version::D2);
        let query = |target: QueryTarget<'_>| {
            simhash_core::similarity::trigger::similarity_check_query(&SimilarityCheckQuery {
                target,
                text: &text.sql,
                with_containment,
                suffix,
                framed,
            })
        };
        let probe = simhash_core::similarity::trigger::similarity_probe_query(
            &SimilarityCheckQuery {
                target: target.query(false, None),
                text: &text.sql,
                with_containment,
                suffix,
                framed,
            },
            simhash_core::similarity::frame_keys::LEARN_AT_MOST,
        );
        let indexes = crate::similarity::match_operator(ext_schema, v)
            .map(|op| gin_indexes(rel, text.attnum, op))
            .unwrap_or_default();
        // A simhash_band_ops index (measure 2's only: it holds measure 2's @%).
        let band_family = crate::similarity::band_opfamily(ext_schema);
        let has = |band: bool| {
            indexes.iter().any(|i| (band_family != pg_sys::InvalidOid && i.opfamily == band_family) == band)
        };
        // What the inserters lock: the keys of the indexes the check may use.
        let locked = match (has(true), has(false)) {
            (true, false) => LockedKeys::Bands,
            (true, true) => LockedKeys::Both,
            (false, _) => LockedKeys::Sample,
        };
        let index = indexes.first().map(|i| i.oid);
        let by_keys = index.is_some()
            && simhash_core::similarity::trigger::lookups_share_keys(
                parsed.min_similarity,
                parsed.min_containment,
                locked,
            );
        let similarity = Similarity {
            min_similarity: parsed.min_similarity,
            min_containment: parsed.min_containment,
            index,
            locked,
            by_keys,
            framed,
            probe,
        };
        let common = Config::new(rel, target, (text.clone(), Some(text.clone())), parsed.action, decision, query);
        // A sequential scan would find rows that share no key with the new text (an empty
        // or small table, VACUUMed, plans as one), which the key locks do not cover.
        Configured { common: Config { plan_on_index: by_keys, ..common }, measure: similarity }
    }
}

/// How the trigger's check finds candidates and what it locks, for
/// `simhash_similarity_dedup_query`'s trailing comment; `opclass` is the operator class of
/// the trigger's measure (`simhash_ops`, or `simhash_ops_m1`).
fn describe(s: &Similarity, column: &str, opclass: &str) -> String {
    match s.index {
        Some(_) if s.by_keys && s.locked == LockedKeys::Bands => {
            "candidates from the simhash_band_ops index; locks on the new text's band keys".to_owned()
        }
        Some(_) if s.by_keys && s.locked == LockedKeys::Both => {
            format!("candidates from the {opclass} and simhash_band_ops indexes; locks on the new text's index and band keys")
        }
        Some(_) if s.locked == LockedKeys::Bands && s.min_containment.is_some() && s.min_similarity >= BAND_THETA => {
            format!(
                "the simhash_band_ops index answers no containment (create a {opclass} index on {column} \
                 beside it): every row is a candidate, and an insert locks the table"
            )
        }
        Some(_) if s.locked.bands() => format!(
            "thresholds below those the simhash_band_ops index answers from keys (similarity {BAND_THETA}, \
             no containment): every row is a candidate, and an insert locks the table"
        ),
        Some(index) if s.by_keys => {
            format!("candidates from the {opclass} index {}; locks on the new text's index keys", relation_name(index))
        }
        Some(index) => format!(
            "thresholds below those the {opclass} index {} answers from keys (similarity {MIN_SIMILARITY}, \
             containment {MIN_CONTAINMENT}): every row is a candidate, and an insert locks the table",
            relation_name(index)
        ),
        None => format!("no {opclass} index on {column}: the query scans the table, and an insert locks the table"),
    }
}

/// What DETAIL says of the match `m` (its similarity, and with containment both shares),
/// after "Key (id)=(7)" or "An existing row".
fn what(m: &Match<Vec<f64>>, s: &Similarity) -> String {
    let similarity = m.measure[0];
    match (s.min_containment, &m.measure[..]) {
        (Some(g), &[_, new_in_row, row_in_new]) if similarity < s.min_similarity => {
            let (how, c) = if new_in_row >= g {
                ("contains the new text", new_in_row)
            } else {
                ("is contained in the new text", row_in_new)
            };
            format!("has similarity {similarity:.3} and {how} at containment {c:.3} (min_containment {g})")
        }
        _ => format!("has similarity {similarity:.3} (min_similarity {})", s.min_similarity),
    }
}

/// The trigger's body under version `v` and `decision`.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn dedup_trigger(fcinfo: pg_sys::FunctionCallInfo, v: Version, decision: Decision) -> pg_sys::Datum {
    let f = trigger_name(v, decision);
    // SAFETY: called by the fmgr with a valid fcinfo (caller); `firing` checks it is a BEFORE
    // ROW INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call;
    // the config checked that the text column is a text or varchar of the relation.
    unsafe {
        // The definition is unused (nothing is fingerprinted).
        let Firing { td, is_update, desc, tuple, config, plans } = firing::<Similarity>(fcinfo, f, (v, decision));
        let s = &config.measure;
        let Some(datum) = value_of(tuple, desc, &config.checked) else {
            return unchecked(tuple, desc, &config, &[]);
        };
        let doc = text_datum_to_utf8(datum);
        // An UPDATE that keeps the text was checked when the row got it.
        if is_update
            && value_of((*td).tg_trigtuple, desc, &config.checked).is_some_and(|old| text_datum_to_utf8(old) == doc)
        {
            return pg_sys::Datum::from(tuple);
        }
        let (relid, attnum) = (config.relid.to_u32(), config.checked.attnum);
        let containment = s.min_containment.is_some();
        let locks = simhash_core::similarity::trigger::similarity_lock_keys(
            relid,
            attnum,
            &doc,
            v,
            s.locked,
            containment,
            &mut crate::error::tick,
        );
        if locks.keys.is_empty() {
            return unchecked(tuple, desc, &config, &[]);
        }
        let exclude = is_update.then(|| (*(*td).tg_trigtuple).t_self);
        // Measure 1's short text with containment is checked against every row.
        let by_keys = s.by_keys && !locks.short;
        lock(&config, by_keys, locks.keys);
        let float = |x: f64| x.into_datum().expect("a float8 datum");
        let mut params = vec![datum, float(s.min_similarity)];
        let mut types = vec![pg_sys::TEXTOID, pg_sys::FLOAT8OID];
        if let Some(g) = s.min_containment {
            params.push(float(g));
            types.push(pg_sys::FLOAT8OID);
        }
        let tgoid = (*(*td).tg_trigger).tgoid;
        if let (true, Decision::Passage(rule)) = (s.framed, config.decision) {
            if frame_keys::probes(tgoid) {
                // The check's parameters but the frame; run as the check is, locks taken.
                let texts = texts_as_owner(td, &config, &s.probe, &types, &params);
                frame_keys::learn_probed(tgoid, v, rule.version, &texts);
            }
        }
        let frames = s.framed.then(|| {
            // No frame learned: an empty one, which the lookups ignore.
            let keys = frame_keys::learned(tgoid).map(|l| l.keys.clone()).unwrap_or_default();
            params.push(keys.into_datum().expect("an int4[] datum"));
            types.push(pg_sys::INT4ARRAYOID);
            (tgoid, v)
        });
        let found = query_as_owner::<Vec<f64>>(td, &config, plans, &types, params, exclude, Some(&doc), frames);
        act(td, &config, f, found, tuple, &[], |m| what(m, s))
    }
}

/// `simhash_similarity_dedup_query` under version `v` and `decision` (below).
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
pub(crate) unsafe fn query(
    fcinfo: pg_sys::FunctionCallInfo,
    v: Version,
    decision: Decision,
    func: &str,
) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { dedup_query::<Similarity>(fcinfo, (v, decision), func) }
}

v1_function!(
    /// `simhash_similarity_dedup_trigger()` since 7.0.0, used as `BEFORE INSERT OR UPDATE OF body
    /// ... FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'reject'
    /// [, link_column] [, '{"min_containment": 0.8, "decision": "balanced"}'])`: the candidates,
    /// most similar first, and the first decision 3 calls the same passage as the new text
    /// (docs/decision.md).
    pg_finfo_simhash_similarity_dedup_trigger_d3, simhash_similarity_dedup_trigger_d3 => dedup_trigger, Version::M2, Decision::LATEST
);

v1_function!(
    /// `simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) → text` since
    /// 7.0.0: the check query of `simhash_similarity_dedup_trigger(trigger_args...)`, which
    /// returns every candidate and its text for the dedup decision.
    pg_finfo_simhash_similarity_dedup_query_d3, simhash_similarity_dedup_query_d3 => query, Version::M2, Decision::LATEST, "simhash_similarity_dedup_query"
);

pgrx::extension_sql_file!("../../sql/similarity/trigger.sql", name = "similarity_trigger", requires = ["trigger"]);
