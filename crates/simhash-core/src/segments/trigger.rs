//! The PostgreSQL-free half of `simhash_segments_dedup_trigger(segments_column, text_column,
//! min_resemblance, action [, link_column] [, options])`, dedup on insert by resemblance of
//! segment fingerprints (the SQL layer's `src/segments/trigger.rs`): its arguments,
//! its advisory-lock keys and its check query.
//!
//! Lock keys: two rows whose segments have resemblance `2|A∩B| / (|A|+|B|) ≥ θ` share at
//! least `t(|A|) = ⌈θ|A| / (2 − θ)⌉` segments (as `|A∩B| ≤ |B|`), and likewise `t(|B|)`.
//! By the prefix-filtering principle, the first `|A| − t(|A|) + 1` segments of A in
//! ascending order and the first `|B| − t(|B|) + 1` of B both hold the smallest common
//! segment: a text holds at most `|A| − |A∩B|` segments below it. So an inserter locks one
//! key per segment of that prefix (hashed with the table and column), and two inserters of
//! texts that resemble each other always contend, with a third fewer locks at θ = 0.5.
//! With segments matched within k bits (the option `"max_distance"`, 2.1.0) no such bound
//! holds: the candidates share one segment exactly, so every segment is locked.

use crate::trigger::{
    parse_action_and_link, parse_threshold, split_options, Action, DedupError, KeyExprs, QueryTarget,
};

/// The arguments of `simhash_segments_dedup_trigger`, checked (the options only split off:
/// the SQL layer parses them).
#[derive(Debug, Clone, PartialEq)]
pub struct SegmentsDedupArgs {
    pub segments_column: String,
    pub text_column: String,
    /// In `(0, 1]`.
    pub min_resemblance: f64,
    pub action: Action,
    /// Only (and always) with [`Action::Link`].
    pub link_column: Option<String>,
    /// The trailing options argument, JSON text as written.
    pub options: Option<String>,
}

pub const SEGMENTS_DEDUP_SIGNATURE: &str =
    "4 to 6 arguments (segments_column, text_column, min_resemblance, action [, link_column] [, options])";

/// Parses a resemblance bound given as a trigger argument: a number in `(0, 1]`
/// ([`parse_threshold`]); a row without a shared segment is never a candidate anyway.
pub fn parse_min_resemblance(s: &str) -> Result<f64, DedupError> {
    parse_threshold("min_resemblance", s)
}

/// Checks the arguments of `simhash_segments_dedup_trigger`.
pub fn parse_segments_dedup_args<S: AsRef<str>>(args: &[S]) -> Result<SegmentsDedupArgs, DedupError> {
    let (args, options) = split_options(args, 4, 5, SEGMENTS_DEDUP_SIGNATURE)?;
    let min_resemblance = parse_min_resemblance(args[2].as_ref())?;
    let (action, link_column) = parse_action_and_link(args, 3)?;
    Ok(SegmentsDedupArgs {
        segments_column: args[0].as_ref().to_owned(),
        text_column: args[1].as_ref().to_owned(),
        min_resemblance,
        action,
        link_column,
        options,
    })
}

/// How many segments a text of `n` distinct segments shares at least with any text it
/// resembles at `min_resemblance` or more: `⌈θn / (2 − θ)⌉`, at least 1 (rounded down a
/// hair, so that floating-point error can only lengthen the locked prefix).
pub fn min_common(n: usize, min_resemblance: f64) -> usize {
    let t = min_resemblance * n as f64 / (2.0 - min_resemblance);
    ((t - 1e-9).ceil().max(1.0) as usize).min(n.max(1))
}

/// The advisory-lock keys of a row's segments for a check at `min_resemblance` on column
/// `attnum` of table `relid`: one per segment of the prefix the module docs describe,
/// ascending and without repeats (the order to lock them in). Empty for no segments.
/// With segments matched within `max_distance > 0` bits, a resembling row need share only
/// one segment exactly (the one the index finds it by), so every segment is locked.
pub fn segment_lock_keys(
    relid: u32,
    attnum: i16,
    segments: &[u64],
    min_resemblance: f64,
    max_distance: u32,
) -> Vec<u64> {
    let mut sorted = segments.to_vec();
    sorted.sort_unstable();
    sorted.dedup();
    if sorted.is_empty() {
        return Vec::new();
    }
    let prefix =
        if max_distance > 0 { sorted.len() } else { sorted.len() + 1 - min_common(sorted.len(), min_resemblance) };
    // "SG": not a block key's (k, block count) bytes.
    crate::trigger::sorted_keys(relid, attnum, *b"SG", sorted[..prefix].iter().map(|s| s.to_le_bytes()))
}

/// The table-wide key of segment dedup on (table, column), held in Share mode by every
/// inserter and exclusively by a transaction with many keys (src/trigger/lock.rs).
pub fn segments_table_lock_key(relid: u32, attnum: i16) -> u64 {
    // k = 0xfe is no Hamming bound (0..=64): never the key of a Hamming dedup trigger.
    crate::trigger::table_lock_key(relid, attnum, 0xfe)
}

/// The pieces of the segments check query, already quoted for SQL by the caller; the
/// update's excluded row is `$4`.
#[derive(Debug, Clone)]
pub struct SegmentsCheckQuery<'a> {
    pub target: QueryTarget<'a>,
    /// The segments column.
    pub segments: &'a str,
    /// Segments matched within this many bits (`simhash_resemblance(a, b, k)`); 0: exactly.
    pub max_distance: u32,
}

/// The check query: the existing row that most resembles `$1` (the new row's segments,
/// bigint[]) with resemblance ≥ `$3` (float8), as `(key text, link value or NULL,
/// resemblance float8)`, ties broken by key. Candidates are the rows sharing one of `$1`'s
/// rare segments, those that at most `$2` (int4, `simhash.segment_max_rows`) rows have.
/// Resemblance is measured over all segments, frequent ones included.
///
/// Two paths, one of them cut off by a one-time filter:
/// - fast: the rows sharing *any* segment (`&&` through the GIN index), at most `$2 + 1`
///   of them, read once into a CTE. When there are at most `$2`, no segment can be in more
///   than `$2` rows, so all are rare and these rows are exactly the candidates. The excluded
///   row (`$4`) is counted too, as the slow path's counts count it.
/// - slow, only past `$2` such rows: one count per segment (`@>`, stopping at `$2 + 1`
///   rows), then `&&` with the rare ones, an uncorrelated subquery whose value the index
///   condition gets at run time.
///
/// The counts alone took 29% of the CPU samples of 8 writers of reposts (perf on
/// tests/bench/segments_dedup.sh); with the fast path the dedup trigger went from 0.60 to
/// 0.69 of the rate of keeping the segments alone.
/// As `check_query`, nothing resolves through the inserter's `search_path`.
pub fn segments_check_query(q: &SegmentsCheckQuery<'_>) -> String {
    let t = &q.target;
    let keys = KeyExprs::of(t);
    let (key_text, link_value, order_cols) = (&keys.text, &keys.link, keys.named());
    let exclude =
        |tid: &str| if t.exclude_ctid { format!(" AND {tid} OPERATOR(pg_catalog.<>) $4") } else { String::new() };
    let c_cols = keys.names("c.");
    let count = "(SELECT pg_catalog.count(*) FROM c)";
    // At 0 the two-argument form, so that the query of a trigger without the option is 2.0's.
    let k = if q.max_distance > 0 { format!(", {}", q.max_distance) } else { String::new() };
    format!(
        "WITH c AS MATERIALIZED (SELECT t.ctid AS tid, {key_text} AS key, {link_value} AS link, t.{seg} AS seg, \
         {order_cols}{t_doc} FROM ONLY {table} AS t WHERE t.{seg} OPERATOR(pg_catalog.&&) $1 \
         LIMIT $2 OPERATOR(pg_catalog.+) 1) \
         SELECT s.key, s.link, s.r{s_doc} FROM (\
         SELECT c.key, c.link, {s}.simhash_resemblance($1, c.seg{k}) AS r, {c_cols}{c_doc} FROM c \
         WHERE {count} OPERATOR(pg_catalog.<=) $2{exclude_c} \
         UNION ALL \
         SELECT {key_text}, {link_value}, {s}.simhash_resemblance($1, t.{seg}{k}), {order_cols}{t_doc} FROM ONLY {table} AS t \
         WHERE {count} OPERATOR(pg_catalog.>) $2 AND t.{seg} OPERATOR(pg_catalog.&&) \
         (SELECT pg_catalog.array_agg(u.k) FROM pg_catalog.unnest($1) AS u(k) \
         WHERE (SELECT pg_catalog.count(*) FROM (SELECT FROM ONLY {table} AS x \
         WHERE x.{seg} OPERATOR(pg_catalog.@>) ARRAY[u.k] LIMIT $2 OPERATOR(pg_catalog.+) 1) AS y) \
         OPERATOR(pg_catalog.<=) $2){exclude_t}) AS s \
         WHERE s.r OPERATOR(pg_catalog.>=) $3 ORDER BY s.r DESC, {order}{limit}",
        t_doc = t.decide.map(|c| format!(", t.{c} AS doc")).unwrap_or_default(),
        c_doc = if t.decide.is_some() { ", c.doc" } else { "" },
        s_doc = if t.decide.is_some() { ", s.doc" } else { "" },
        limit = t.limit(),
        s = t.ext_schema,
        seg = q.segments,
        table = t.table,
        exclude_c = exclude("c.tid"),
        exclude_t = exclude("t.ctid"),
        order = keys.names("s."),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::segments::resemblance;
    use crate::threshold::{Bound, ThresholdError};
    use proptest::prelude::*;

    #[test]
    fn args() {
        let a = parse_segments_dedup_args(&["segs", "body", "0.5", "reject"]).unwrap();
        assert_eq!((a.segments_column.as_str(), a.text_column.as_str()), ("segs", "body"));
        assert_eq!((a.min_resemblance, a.action, a.link_column, a.options), (0.5, Action::Reject, None, None));
        let a =
            parse_segments_dedup_args(&["segs", "body", " 1 ", "link", "dup_of", r#"{"definition": "1"}"#]).unwrap();
        assert_eq!((a.min_resemblance, a.link_column.as_deref()), (1.0, Some("dup_of")));
        assert_eq!(a.options.as_deref(), Some(r#"{"definition": "1"}"#));
        for bad in ["0", "-0.5", "1.01", "x", "NaN", ""] {
            assert_eq!(
                parse_segments_dedup_args(&["segs", "body", bad, "skip"]),
                Err(DedupError::Threshold(ThresholdError {
                    name: "min_resemblance".into(),
                    got: format!("\"{bad}\""),
                    bound: Bound::Positive
                }))
            );
        }
        assert_eq!(
            parse_segments_dedup_args(&["segs", "body", "0.5", "link"]),
            Err(DedupError::LinkColumnMissing { position: 5 })
        );
        assert_eq!(
            parse_segments_dedup_args(&["segs", "body", "0.5", "skip", "d"]),
            Err(DedupError::LinkColumnUnexpected { action: Action::Skip, position: 5 })
        );
        let e = parse_segments_dedup_args(&["segs", "body", "0.5"]).unwrap_err();
        assert_eq!(e, DedupError::ArgCount { got: 3, options: false, expected: SEGMENTS_DEDUP_SIGNATURE });
        assert!(e.is_protocol());
        assert_eq!(
            DedupError::Threshold(ThresholdError {
                name: "min_resemblance".into(),
                got: "\"2\"".into(),
                bound: Bound::Positive
            })
            .to_string(),
            "min_resemblance must be a number greater than 0 and at most 1, got \"2\""
        );
    }

    #[test]
    fn keys_are_stable() {
        // As trigger::lock's golden keys: backends of two library builds must agree.
        assert_eq!(
            segment_lock_keys(16384, 3, &[5, 9, 1, 77], 0.5, 0),
            [4813864129585961847, 5834676849088955536, 10520518644808060337]
        );
        assert_eq!(segments_table_lock_key(16384, 3), 12727824887986790498);
    }

    #[test]
    fn lock_prefixes() {
        assert!(segment_lock_keys(1, 2, &[], 0.5, 0).is_empty());
        assert_eq!(segment_lock_keys(1, 2, &[9], 0.5, 0).len(), 1);
        // θ = 0.5, 9 segments: a resembling text shares ≥ 3, so 7 are locked.
        assert_eq!(min_common(9, 0.5), 3);
        assert_eq!(segment_lock_keys(1, 2, &(0..9).collect::<Vec<_>>(), 0.5, 0).len(), 7);
        // θ = 1: only identical sets match; one key suffices.
        assert_eq!(segment_lock_keys(1, 2, &(0..9).collect::<Vec<_>>(), 1.0, 0).len(), 1);
        let keys = segment_lock_keys(1, 2, &[5, 3, 3, 8], 0.01, 0);
        assert!(keys.windows(2).all(|w| w[0] < w[1]) && keys.len() == 3);
        assert!(segment_lock_keys(2, 2, &[5], 0.5, 0)
            .iter()
            .all(|k| !segment_lock_keys(1, 2, &[5], 0.5, 0).contains(k)));
        assert_ne!(segments_table_lock_key(1, 2), crate::trigger::table_lock_key(1, 2, 3));
        // Within k bits a resembling row may share one segment only: all are locked.
        assert_eq!(segment_lock_keys(1, 2, &(0..9).collect::<Vec<_>>(), 1.0, 8).len(), 9);
        assert_eq!(segment_lock_keys(1, 2, &[4, 4], 0.5, 1), segment_lock_keys(1, 2, &[4], 0.5, 0));
    }

    #[test]
    fn query_text() {
        let keys = vec!["id".to_owned()];
        let target = QueryTarget::docs(&keys);
        let q = SegmentsCheckQuery { target, segments: "segs", max_distance: 0 };
        let text = segments_check_query(&q);
        assert!(text.contains("public.simhash_resemblance($1, c.seg) AS r, c.o0 FROM c"), "{text}");
        assert!(text.contains("public.simhash_resemblance($1, t.segs), t.id AS o0"), "{text}");
        assert!(text.contains("<=) $2 AND c.tid OPERATOR(pg_catalog.<>) $4 UNION ALL"), "{text}");
        assert!(text.contains("<=) $2) AND t.ctid OPERATOR(pg_catalog.<>) $4) AS s"), "{text}");
        assert!(text.ends_with("ORDER BY s.r DESC, s.o0 LIMIT 1"));
        let none: Vec<String> = vec![];
        let target = QueryTarget { key_columns: &none, with_link_value: false, ..target };
        let text = segments_check_query(&SegmentsCheckQuery { target, ..q.clone() });
        assert!(text.contains("t.ctid::pg_catalog.text AS key, NULL AS link"), "{text}");
        // The decision reads every candidate, best first, and its text.
        let decide = QueryTarget { decide: Some("body"), ..target };
        let text = segments_check_query(&SegmentsCheckQuery { target: decide, ..q.clone() });
        assert!(text.contains("t.segs AS seg, t.ctid AS o0, t.body AS doc FROM ONLY"), "{text}");
        assert!(
            text.contains("SELECT s.key, s.link, s.r, s.doc FROM (") && text.contains("AS r, c.o0, c.doc FROM c"),
            "{text}"
        );
        assert!(text.contains("t.ctid AS o0, t.body AS doc FROM ONLY public.docs AS t WHERE (SELECT"), "{text}");
        assert!(text.ends_with("ORDER BY s.r DESC, s.o0"), "{text}");
        let text = segments_check_query(&SegmentsCheckQuery { max_distance: 8, ..q });
        assert!(text.contains("public.simhash_resemblance($1, c.seg, 8) AS r"), "{text}");
        assert!(text.contains("public.simhash_resemblance($1, t.segs, 8), t.id AS o0"), "{text}");
    }

    proptest! {
        /// Any two sets that resemble each other at θ or more share a lock key.
        #[test]
        fn resembling_sets_share_a_key(
            common in proptest::collection::btree_set(0u64..1000, 1..20),
            only_a in proptest::collection::btree_set(1000u64..2000, 0..20),
            only_b in proptest::collection::btree_set(2000u64..3000, 0..20),
            theta in 0.01f64..=1.0,
        ) {
            // Scrambled, so that shared and own segments interleave in ascending order.
            let mix = |x: &u64| x.wrapping_mul(0x9e37_79b9_7f4a_7c15).rotate_left(17);
            let a: Vec<u64> = common.iter().chain(&only_a).map(mix).collect();
            let b: Vec<u64> = common.iter().chain(&only_b).map(mix).collect();
            if resemblance(&a, &b) >= theta {
                let (ka, kb) = (segment_lock_keys(7, 3, &a, theta, 0), segment_lock_keys(7, 3, &b, theta, 0));
                prop_assert!(ka.iter().any(|k| kb.binary_search(k).is_ok()));
            }
            // Within k bits: any two sets sharing a segment (candidates) share a key.
            let (ka, kb) = (segment_lock_keys(7, 3, &a, theta, 5), segment_lock_keys(7, 3, &b, theta, 5));
            prop_assert!(ka.iter().any(|k| kb.binary_search(k).is_ok()));
        }
    }
}
