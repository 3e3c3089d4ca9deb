//! The PostgreSQL-free half of `simhash_similarity_dedup_trigger(text_column, min_similarity,
//! action [, link_column] [, options])`, dedup on insert by exact text similarity or
//! containment (the SQL layer's `src/similarity/trigger.rs`): its arguments, its
//! advisory-lock keys and its check query.
//!
//! Lock keys: the check query finds candidates through a `simhash_ops` GIN index
//! (`crate::similarity::lookup`), and a lookup for text A keeps a row B only when B's index
//! keys hold at least one of A's lookup keys, which are some of A's index keys (the bottom-k
//! keys for similarity, all of them for containment). So two texts one of which could find
//! the other share an index key, whichever inserts first. An inserter locks one key per index
//! key of its text (`index_keys(&sample(text))`, hashed with the table and column), and two
//! such inserters contend: the second waits for the first to commit and its check sees the
//! first row, as if they had run one after the other.
//!
//! That holds only when the candidates come from keys: with thresholds below the lowest a
//! lookup answers from keys ([`MIN_SIMILARITY`], [`MIN_CONTAINMENT`]) a lookup reads every
//! row, and without an index the query scans; either finds rows that share no key with the
//! new text. [`lookups_share_keys`] says which case a trigger is in (under measure 1, so
//! does a short text with `min_containment`: [`SimilarityLocks::short`]). Then the SQL
//! layer takes the table's key exclusively instead, so such inserts run one at a time.
//!
//! A short text's containment lookup (fewer than [`SHORT_QUERY`] shingles) asks for the key
//! of every shingle it has, not only its index keys; with `min_containment` its inserter
//! locks those keys too, so the lookups of short texts come from keys and run side by side
//! as every other insert does (issue 47; 5.x locked the table for them).

use crate::similarity::band_lookup::{band_index_keys, BAND_THETA};
use crate::similarity::lookup::{MIN_CONTAINMENT, MIN_SIMILARITY, SHORT_QUERY};
use crate::similarity::{index_keys, sample, shingle_set, KeyParams, Version};
use crate::trigger::{
    option_threshold, parse_action_and_link, parse_threshold, split_options, Action, DedupError, KeyExprs, QueryTarget,
};

/// The arguments of `simhash_similarity_dedup_trigger`, checked.
#[derive(Debug, Clone, PartialEq)]
pub struct SimilarityDedupArgs {
    pub text_column: String,
    /// In `(0, 1]`.
    pub min_similarity: f64,
    /// The option `"min_containment"`, in `(0, 1]`: also a duplicate is a row whose text
    /// holds this share of the new text's shingles, or the other way round.
    pub min_containment: Option<f64>,
    pub action: Action,
    /// Only (and always) with [`Action::Link`].
    pub link_column: Option<String>,
}

pub const SIMILARITY_DEDUP_SIGNATURE: &str =
    "3 to 5 arguments (text_column, min_similarity, action [, link_column] [, options])";

/// The option keys `simhash_similarity_dedup_trigger` takes, for messages.
pub const SIMILARITY_DEDUP_OPTIONS: &str = "\"min_containment\"";

/// Checks the arguments of `simhash_similarity_dedup_trigger`, its options included.
pub fn parse_similarity_dedup_args<S: AsRef<str>>(args: &[S]) -> Result<SimilarityDedupArgs, DedupError> {
    let (args, options) = split_options(args, 3, 4, SIMILARITY_DEDUP_SIGNATURE)?;
    let min_similarity = parse_threshold("min_similarity", args[1].as_ref())?;
    let (action, link_column) = parse_action_and_link(args, 2)?;
    let min_containment = match options {
        Some(json) => parse_similarity_options(&json)?,
        None => None,
    };
    Ok(SimilarityDedupArgs {
        text_column: args[0].as_ref().to_owned(),
        min_similarity,
        min_containment,
        action,
        link_column,
    })
}

/// The options argument: a JSON object whose only key may be `"min_containment"`, a JSON
/// number in `(0, 1]`.
fn parse_similarity_options(json: &str) -> Result<Option<f64>, DedupError> {
    let value: serde_json::Value = serde_json::from_str(json).map_err(|e| DedupError::BadOptions(e.to_string()))?;
    let Some(object) = value.as_object() else {
        return Err(DedupError::BadOptions(format!("expected a JSON object, got {value}")));
    };
    let mut min_containment = None;
    for (key, v) in object {
        if key != "min_containment" {
            return Err(DedupError::UnknownOption { key: key.clone(), expected: SIMILARITY_DEDUP_OPTIONS });
        }
        min_containment = Some(option_threshold("min_containment", v)?);
    }
    Ok(min_containment)
}

/// Whether every candidate of the check query's index lookups shares an index key with the
/// new text (module docs): both thresholds at or above the lowest that lookups answer from
/// keys. When not, and when the column has no `simhash_ops` index, the index keys are no
/// locks that suffice.
/// `which` says the column's indexes ([`LockedKeys`]): a `simhash_band_ops` index answers
/// only similarity from [`BAND_THETA`] on from keys (`crate::similarity::band_lookup`), and
/// is never asked for containment (the planner support function makes no such condition for
/// it): containment needs a `simhash_ops` index beside it. The check query may use any of
/// them for similarity, so all must answer it from keys.
pub fn lookups_share_keys(min_similarity: f64, min_containment: Option<f64>, which: LockedKeys) -> bool {
    let ops = min_similarity >= MIN_SIMILARITY && min_containment.is_none_or(|g| g >= MIN_CONTAINMENT);
    let bands = min_similarity >= BAND_THETA && (min_containment.is_none() || which == LockedKeys::Both);
    ops && (!which.bands() || bands)
}

/// Which of a text's keys an inserter locks: those of the indexes on the column.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LockedKeys {
    /// The keys a `simhash_ops` index holds (also what a column without an index computes:
    /// its inserts lock the table, and the keys only tell a text without shingles).
    Sample,
    /// The band keys a `simhash_band_ops` index holds (the column has no other).
    Bands,
    /// Both (the column has both indexes: the check may use either).
    Both,
}

impl LockedKeys {
    /// Whether the column has a `simhash_band_ops` index.
    pub fn bands(self) -> bool {
        self != LockedKeys::Sample
    }
}

/// The advisory-lock keys of a text on column `attnum` of table `relid`: one per key the
/// column's indexes hold for it (`which`), and, for a trigger that checks `containment`, one
/// per key a short text's containment lookup asks for (every shingle's:
/// `crate::similarity::lookup`), ascending and without repeats (the order to lock them in);
/// any two texts one of which could find the other through such an index share one: the
/// finder's lookup keys are among its locks, and the found row's index keys among its own.
/// Empty for a text without a letter or digit, which has no index key and is nobody's
/// duplicate. `tick` as `sample` calls it.
pub fn similarity_lock_keys(
    relid: u32,
    attnum: i16,
    doc: &str,
    v: Version,
    which: LockedKeys,
    containment: bool,
    tick: &mut dyn FnMut(),
) -> SimilarityLocks {
    // "SM": not a block key's (k, block count) bytes, nor the segment keys' "SG"; "SB" for bands.
    let (mut locks, mut short) = (Vec::new(), false);
    if which != LockedKeys::Bands {
        let p = KeyParams::of(v);
        let s = sample(doc, &p, tick);
        let mut keys = index_keys(&s, &p);
        if s.distinct < SHORT_QUERY && containment {
            // Measure 1's short containment lookup reads every row (the table's key instead).
            short = v == Version::M1;
            keys.extend(shingle_set(doc, v, tick).iter().map(|&h| p.key(h)));
        }
        locks = crate::trigger::sorted_keys(relid, attnum, *b"SM", keys.iter().map(|k| k.to_le_bytes()));
    }
    if which != LockedKeys::Sample {
        let bands = band_index_keys(doc, v, tick);
        locks.extend(crate::trigger::sorted_keys(relid, attnum, *b"SB", bands.iter().map(|k| k.to_le_bytes())));
        locks.sort_unstable();
        locks.dedup();
    }
    SimilarityLocks { keys: locks, short }
}

/// A text's lock keys, and whether a containment lookup for it reads every row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimilarityLocks {
    pub keys: Vec<u64>,
    /// Under measure 1 (compatibility), fewer shingles than its containment lookup answers
    /// from keys ([`SHORT_QUERY`](crate::similarity::lookup::SHORT_QUERY)), with
    /// `min_containment`: its check finds rows that share no key with it, so its insert must
    /// run alone. Measure 2's short lookups ask for keys (and lock them).
    pub short: bool,
}

/// The table-wide key of similarity dedup on (table, column): held in Share mode by every
/// inserter that locks index keys, exclusively by a transaction with many keys and by every
/// inserter whose keys do not suffice ([`lookups_share_keys`]; src/trigger/lock.rs).
pub fn similarity_table_lock_key(relid: u32, attnum: i16) -> u64 {
    // k = 0xfd is no Hamming bound (0..=64), nor the segment trigger's 0xfe.
    crate::trigger::table_lock_key(relid, attnum, 0xfd)
}

/// The pieces of the similarity check query, already quoted for SQL by the caller; the
/// update's excluded row is `$3` (`$4` with containment).
#[derive(Debug, Clone)]
pub struct SimilarityCheckQuery<'a> {
    pub target: QueryTarget<'a>,
    /// The text column.
    pub text: &'a str,
    /// Whether containment either way at `$3` (float8) also makes a duplicate.
    pub with_containment: bool,
    /// What the measure's SQL names end with: `""` for measure 2's `simhash_similarity`,
    /// `"_m1"` for measure 1's `simhash_similarity_m1` (src/similarity/names.rs).
    pub suffix: &'a str,
    /// Whether the lookups take the trigger's frame keys (`int4[]`, after the thresholds:
    /// `super::frame_keys`), measure 2's `simhash_query` built in the query.
    pub framed: bool,
}

/// The check query: the existing row with the highest similarity to `$1` (the new text) among
/// those with similarity ≥ `$2` (float8) or, `with_containment`, containment ≥ `$3` either
/// way, ties broken by key, as `(key text, link value or NULL, float8[])`: the array holds
/// the similarity, and with containment the share of `$1` in the row and of the row in `$1`
/// (with the decision: every such row in that order, and its text).
/// A row that matches by containment alone has a similarity below `$2`, so it comes after
/// every row that matches by similarity.
///
/// The predicates are the ones the planner support function turns into `simhash_ops` index
/// conditions (src/similarity/support.rs), and for measure 2's containment either way the
/// condition itself (`@%` with `either_way`), one bitmap index scan each, OR-ed; the index's
/// recheck is the exact measure. `framed`, both conditions are `@%` with the frame keys as a
/// parameter after the thresholds (`super::frame_keys`). The similarity is computed for every match, the containments
/// for the chosen row only (the outer query). As `check_query`, nothing resolves through the
/// inserter's `search_path`.
pub fn similarity_check_query(q: &SimilarityCheckQuery<'_>) -> String {
    let t = &q.target;
    let keys = KeyExprs::of(t);
    let (key_text, link_value, order_cols, order) = (&keys.text, &keys.link, keys.named(), keys.names(""));
    let (s, text, v) = (t.ext_schema, q.text, q.suffix);
    let (doc, containments, containment_match) = if q.with_containment || t.decide.is_some() {
        (
            format!(", t.{text} AS doc"),
            format!(", {s}.simhash_containment{v}($1, s.doc), {s}.simhash_containment{v}(s.doc, $1)"),
            // Measure 2: one index condition for both containments (`either_way`), where two
            // predicates made two scans of the same keys: a check over 100k short texts 0.42-0.48 ms
            // against 0.49-0.56 (similarity alone 0.13), the same rows for 2,000 texts.
            if v.is_empty() {
                format!(" OR t.{text} OPERATOR({s}.@%) {s}.simhash_query($1, 'either_way', $3)")
            } else {
                format!(
                    " OR {s}.simhash_containment_at_least{v}($1, t.{text}, $3) OR {s}.simhash_containment_at_least{v}(t.{text}, $1, $3)"
                )
            },
        )
    } else {
        (String::new(), String::new(), String::new())
    };
    let (containments, containment_match) =
        if q.with_containment { (containments, containment_match) } else { (String::new(), String::new()) };
    let s_doc = if t.decide.is_some() { ", s.doc" } else { "" };
    // Parameters after the thresholds: the frame, then the excluded row.
    let frame = 3 + usize::from(q.with_containment);
    let exclude = if t.exclude_ctid {
        format!(" AND t.ctid OPERATOR(pg_catalog.<>) ${}", frame + usize::from(q.framed))
    } else {
        String::new()
    };
    let condition = if q.framed {
        framed_condition(q, &format!("${frame}"))
    } else {
        format!("{s}.simhash_similarity_at_least{v}(t.{text}, $1, $2){containment_match}")
    };
    format!(
        "SELECT s.key, s.link, ARRAY[s.sim{containments}]::pg_catalog.float8[]{s_doc} FROM (\
         SELECT {key_text} AS key, {link_value} AS link, \
         {s}.simhash_similarity{v}(t.{text}, $1)::pg_catalog.float8 AS sim{doc}, {order_cols} \
         FROM ONLY {table} AS t \
         WHERE ({condition}){exclude} \
         ORDER BY sim DESC, {order}{limit}) AS s",
        table = t.table,
        limit = t.limit(),
    )
}

/// A framed check's condition: similarity at `$2` or, with containment, containment either way
/// at `$3`, each an `@%` of a `simhash_query` whose frame is `frame` (a parameter, or NULL).
fn framed_condition(q: &SimilarityCheckQuery<'_>, frame: &str) -> String {
    let (s, text) = (q.target.ext_schema, q.text);
    let at = |measure: &str, threshold: u8| {
        format!("t.{text} OPERATOR({s}.@%) ROW($1, '{measure}', ${threshold}, {frame})::{s}.simhash_query")
    };
    match q.with_containment {
        true => format!("{} OR {}", at("similarity", 2), at("either_way", 3)),
        false => at("similarity", 2),
    }
}

/// The probe a framed check runs once per backend before its first check (`super::frame_keys`):
/// the texts of up to `limit` rows the check would read without a frame, in no order, with the
/// check's parameters but the frame, so that a table of one template is learned from a prefix of
/// its candidates instead of from a check that measures them all.
pub fn similarity_probe_query(q: &SimilarityCheckQuery<'_>, limit: usize) -> String {
    let (text, table) = (q.text, q.target.table);
    format!("SELECT t.{text} FROM ONLY {table} AS t WHERE {} LIMIT {limit}", framed_condition(q, "NULL"))
}

#[cfg(test)]
#[path = "trigger_tests.rs"]
mod tests;
