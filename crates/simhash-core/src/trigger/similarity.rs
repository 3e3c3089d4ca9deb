//! The PostgreSQL-free half of `simhash_similarity_dedup_trigger(text_column, min_similarity,
//! action [, link_column] [, options])`, dedup on insert by exact text similarity or
//! containment (the SQL layer's `src/trigger/similarity_dedup.rs`): its arguments, its
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
//! new text. [`lookups_share_keys`] says which case a trigger is in; so does, with
//! `min_containment`, a new text too short for a containment lookup from keys
//! ([`SimilarityLocks::short`]). Then the SQL layer takes the table's key exclusively
//! instead, so such inserts run one at a time.

use super::args::{parse_action_and_link, parse_threshold, split_options, Action, DedupError};
use super::check::{KeyExprs, QueryTarget};
use crate::similarity::lookup::{MIN_CONTAINMENT, MIN_SIMILARITY, SHORT_QUERY};
use crate::similarity::{index_keys, sample, KeyParams, Version};

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
        match v.as_f64() {
            Some(g) if g > 0.0 && g <= 1.0 => min_containment = Some(g),
            _ => return Err(DedupError::OptionThreshold { key: "min_containment", got: v.to_string() }),
        }
    }
    Ok(min_containment)
}

/// Whether every candidate of the check query's index lookups shares an index key with the
/// new text (module docs): both thresholds at or above the lowest that lookups answer from
/// keys. When not, and when the column has no `simhash_ops` index, the index keys are no
/// locks that suffice.
pub fn lookups_share_keys(min_similarity: f64, min_containment: Option<f64>) -> bool {
    min_similarity >= MIN_SIMILARITY && min_containment.is_none_or(|g| g >= MIN_CONTAINMENT)
}

/// The advisory-lock keys of a text on column `attnum` of table `relid`: one per key a
/// `simhash_ops` index holds for it, ascending and without repeats (the order to lock them
/// in). Empty for a text without a letter or digit, which has no index key and is nobody's
/// duplicate. `tick` as `sample` calls it.
pub fn similarity_lock_keys(relid: u32, attnum: i16, doc: &str, v: Version, tick: &mut dyn FnMut()) -> SimilarityLocks {
    let p = KeyParams::of(v);
    let s = sample(doc, &p, tick);
    let keys = index_keys(&s, &p);
    SimilarityLocks {
        // "SM": not a block key's (k, block count) bytes, nor the segment keys' "SG".
        keys: super::lock::sorted_keys(relid, attnum, *b"SM", keys.iter().map(|k| k.to_le_bytes())),
        short: s.distinct < SHORT_QUERY,
    }
}

/// A text's lock keys, and whether a containment lookup for it reads every row.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SimilarityLocks {
    pub keys: Vec<u64>,
    /// Fewer shingles than a containment lookup answers from keys
    /// ([`SHORT_QUERY`](crate::similarity::lookup::SHORT_QUERY)): with `min_containment`,
    /// its check finds rows that share no key with it, so its insert must run alone.
    pub short: bool,
}

/// The table-wide key of similarity dedup on (table, column): held in Share mode by every
/// inserter that locks index keys, exclusively by a transaction with many keys and by every
/// inserter whose keys do not suffice ([`lookups_share_keys`]; src/trigger/lock.rs).
pub fn similarity_table_lock_key(relid: u32, attnum: i16) -> u64 {
    // k = 0xfd is no Hamming bound (0..=64), nor the segment trigger's 0xfe.
    super::lock::table_lock_key(relid, attnum, 0xfd)
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
}

/// The check query: the existing row with the highest similarity to `$1` (the new text) among
/// those with similarity ≥ `$2` (float8) or, `with_containment`, containment ≥ `$3` either
/// way, ties broken by key, as `(key text, link value or NULL, float8[])`: the array holds
/// the similarity, and with containment the share of `$1` in the row and of the row in `$1`.
/// A row that matches by containment alone has a similarity below `$2`, so it comes after
/// every row that matches by similarity.
///
/// The predicates are the ones the planner support function turns into `simhash_ops` index
/// conditions (src/similarity/support.rs), one bitmap index scan each, OR-ed; the index's
/// recheck is the exact measure. The similarity is computed for every match, the containments
/// for the chosen row only (the outer query). As `check_query`, nothing resolves through the
/// inserter's `search_path`.
pub fn similarity_check_query(q: &SimilarityCheckQuery<'_>) -> String {
    let t = &q.target;
    let keys = KeyExprs::of(t);
    let (key_text, link_value, order_cols, order) = (&keys.text, &keys.link, keys.named(), keys.names(""));
    let (s, text, v) = (t.ext_schema, q.text, q.suffix);
    let (doc, containments, containment_match) = if q.with_containment {
        (
            format!(", t.{text} AS doc"),
            format!(", {s}.simhash_containment{v}($1, s.doc), {s}.simhash_containment{v}(s.doc, $1)"),
            format!(
                " OR {s}.simhash_containment_at_least{v}($1, t.{text}, $3) OR {s}.simhash_containment_at_least{v}(t.{text}, $1, $3)"
            ),
        )
    } else {
        (String::new(), String::new(), String::new())
    };
    let exclude = if t.exclude_ctid {
        format!(" AND t.ctid OPERATOR(pg_catalog.<>) ${}", if q.with_containment { 4 } else { 3 })
    } else {
        String::new()
    };
    format!(
        "SELECT s.key, s.link, ARRAY[s.sim{containments}]::pg_catalog.float8[] FROM (\
         SELECT {key_text} AS key, {link_value} AS link, \
         {s}.simhash_similarity{v}(t.{text}, $1)::pg_catalog.float8 AS sim{doc}, {order_cols} \
         FROM ONLY {table} AS t \
         WHERE ({s}.simhash_similarity_at_least{v}(t.{text}, $1, $2){containment_match}){exclude} \
         ORDER BY sim DESC, {order} LIMIT 1) AS s",
        table = t.table,
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::{lookup, Measure};
    use proptest::prelude::*;

    #[test]
    fn args() {
        let a = parse_similarity_dedup_args(&["body", "0.6", "reject"]).unwrap();
        assert_eq!(a.text_column, "body");
        assert_eq!((a.min_similarity, a.min_containment, a.action, a.link_column), (0.6, None, Action::Reject, None));
        let a = parse_similarity_dedup_args(&["body", " 1 ", "LINK", "dup_of", r#"{"min_containment": 0.8}"#]).unwrap();
        assert_eq!((a.min_similarity, a.min_containment), (1.0, Some(0.8)));
        assert_eq!((a.action, a.link_column.as_deref()), (Action::Link, Some("dup_of")));
        let a = parse_similarity_dedup_args(&["body", "0.5", "skip", "{}"]).unwrap();
        assert_eq!((a.action, a.min_containment), (Action::Skip, None));
        let a = parse_similarity_dedup_args(&["body", "0.5", "skip", r#" {"min_containment": 1}"#]).unwrap();
        assert_eq!(a.min_containment, Some(1.0));
        for bad in ["0", "-0.5", "1.01", "x", "NaN", "inf", ""] {
            assert_eq!(
                parse_similarity_dedup_args(&["body", bad, "skip"]),
                Err(DedupError::Threshold { name: "min_similarity", got: bad.into() })
            );
        }
        assert_eq!(
            DedupError::Threshold { name: "min_similarity", got: "2".into() }.to_string(),
            "min_similarity must be a number greater than 0 and at most 1, got \"2\""
        );
        assert_eq!(
            parse_similarity_dedup_args(&["body", "0.5", "link"]),
            Err(DedupError::LinkColumnMissing { position: 4 })
        );
        assert_eq!(
            parse_similarity_dedup_args(&["body", "0.5", "reject", "d"]),
            Err(DedupError::LinkColumnUnexpected { action: Action::Reject, position: 4 })
        );
        assert_eq!(parse_similarity_dedup_args(&["body", "0.5", "drop"]), Err(DedupError::Action("drop".into())));
        for n in [0, 1, 2, 6] {
            let args: Vec<&str> = ["body", "0.5", "link", "d", "{}", "{}"][..n].to_vec();
            let e = parse_similarity_dedup_args(&args).unwrap_err();
            assert_eq!(e, DedupError::ArgCount { got: n, options: false, expected: SIMILARITY_DEDUP_SIGNATURE });
            assert!(e.is_protocol());
        }
        let e = parse_similarity_dedup_args(&["body", "0.5", "{}"]).unwrap_err();
        assert_eq!(e, DedupError::ArgCount { got: 2, options: true, expected: SIMILARITY_DEDUP_SIGNATURE });
        assert_eq!(
            parse_similarity_dedup_args(&["body", "0.5", "link", "d", "x"]),
            Err(DedupError::NotOptions { position: 5, got: "x".into() })
        );
    }

    #[test]
    fn options() {
        let parse = |o: &str| parse_similarity_dedup_args(&["body", "0.6", "reject", o]).map(|a| a.min_containment);
        assert_eq!(parse(r#"{"min_containment": 0.5}"#), Ok(Some(0.5)));
        for (bad, got) in [("0", "0"), ("1.5", "1.5"), ("-1", "-1"), (r#""0.8""#, r#""0.8""#), ("null", "null")] {
            let e = parse(&format!(r#"{{"min_containment": {bad}}}"#)).unwrap_err();
            assert_eq!(e, DedupError::OptionThreshold { key: "min_containment", got: got.into() }, "{bad}");
            assert!(!e.is_protocol());
        }
        assert_eq!(
            DedupError::OptionThreshold { key: "min_containment", got: r#""0.8""#.into() }.to_string(),
            r#"option "min_containment" must be a number greater than 0 and at most 1, got "0.8""#
        );
        let e = parse(r#"{"min_containment": 0.8, "definition": "2"}"#).unwrap_err();
        assert_eq!(e, DedupError::UnknownOption { key: "definition".into(), expected: SIMILARITY_DEDUP_OPTIONS });
        assert_eq!(e.to_string(), r#"unknown option "definition": the options are "min_containment""#);
        assert!(matches!(parse("{"), Err(DedupError::BadOptions(_))));
        assert!(matches!(parse("{} x"), Err(DedupError::BadOptions(_))));
        // Options begin with "{" (is_options): a JSON array is a link column here.
        assert_eq!(
            parse("[0.8]").unwrap_err(),
            DedupError::LinkColumnUnexpected { action: Action::Reject, position: 4 }
        );
    }

    #[test]
    fn share_keys() {
        assert!(lookups_share_keys(0.6, None));
        assert!(lookups_share_keys(MIN_SIMILARITY, Some(MIN_CONTAINMENT)));
        assert!(!lookups_share_keys(0.2, None));
        assert!(!lookups_share_keys(0.6, Some(0.4)));
    }

    #[test]
    fn keys_are_stable() {
        // As trigger::lock's golden keys: backends of two library builds must agree.
        let locks =
            similarity_lock_keys(16384, 3, "中共中央总书记、国家主席江泽民发表新年讲话", Version::M2, &mut || ());
        // 17 shingles: shorter than a containment lookup answers from keys.
        assert!(locks.short);
        let keys = locks.keys;
        // 18 index keys (simhash_keys of the same text in similarity.sql), so 18 lock keys.
        assert_eq!(keys.len(), 18, "{keys:?}");
        assert_eq!(&keys[..3], [893689730125815441, 2812792623808627846, 3729414155834981971]);
        assert_eq!(similarity_table_lock_key(16384, 3), 13702710346769726122);
    }

    #[test]
    fn lock_keys() {
        let tick = &mut || ();
        assert!(similarity_lock_keys(1, 2, "", Version::M2, tick).keys.is_empty());
        assert!(similarity_lock_keys(1, 2, "，。！ ?", Version::M2, tick).keys.is_empty());
        let doc = "The quick brown fox jumps over the lazy dog, and the dog sleeps on.";
        let locks = similarity_lock_keys(1, 2, doc, Version::M2, tick);
        // 49 shingles: long enough for a containment lookup from keys.
        assert!(!locks.short);
        let keys = locks.keys;
        let p = KeyParams::of(Version::M2);
        assert_eq!(keys.len(), index_keys(&sample(doc, &p, tick), &p).len());
        assert!(keys.windows(2).all(|w| w[0] < w[1]));
        // Another table or column shares none; the table keys of the three families differ.
        assert!(similarity_lock_keys(2, 2, doc, Version::M2, tick).keys.iter().all(|k| !keys.contains(k)));
        assert!(similarity_lock_keys(1, 3, doc, Version::M2, tick).keys.iter().all(|k| !keys.contains(k)));
        let t = similarity_table_lock_key(1, 2);
        assert!(!keys.contains(&t));
        assert_ne!(t, super::super::segments_table_lock_key(1, 2));
        assert_ne!(t, super::super::lock::table_lock_key(1, 2, 3));
        assert_ne!(t, similarity_table_lock_key(1, 3));
    }

    #[test]
    fn query_text() {
        let keys = vec!["id".to_owned()];
        let target = QueryTarget {
            table: "public.docs",
            ext_schema: "public",
            key_columns: &keys,
            with_link_value: true,
            exclude_ctid: false,
        };
        let q = SimilarityCheckQuery { target, text: "body", with_containment: false, suffix: "" };
        assert_eq!(
            similarity_check_query(&q),
            "SELECT s.key, s.link, ARRAY[s.sim]::pg_catalog.float8[] FROM (SELECT t.id::pg_catalog.text AS key, \
             t.id AS link, public.simhash_similarity(t.body, $1)::pg_catalog.float8 AS sim, t.id AS o0 \
             FROM ONLY public.docs AS t WHERE (public.simhash_similarity_at_least(t.body, $1, $2)) \
             ORDER BY sim DESC, o0 LIMIT 1) AS s"
        );
        let text =
            similarity_check_query(&SimilarityCheckQuery { target: QueryTarget { exclude_ctid: true, ..target }, ..q });
        assert!(text.contains("$2)) AND t.ctid OPERATOR(pg_catalog.<>) $3 ORDER BY"), "{text}");
        let none: Vec<String> = vec![];
        let target = QueryTarget { key_columns: &none, with_link_value: false, exclude_ctid: true, ..target };
        let q = SimilarityCheckQuery { target, with_containment: true, ..q };
        let text = similarity_check_query(&q);
        assert!(text.starts_with(
            "SELECT s.key, s.link, ARRAY[s.sim, public.simhash_containment($1, s.doc), \
             public.simhash_containment(s.doc, $1)]::pg_catalog.float8[] FROM (SELECT t.ctid::pg_catalog.text AS key, NULL AS link"
        ), "{text}");
        assert!(text.contains("AS sim, t.body AS doc, t.ctid AS o0 FROM"), "{text}");
        assert!(text.contains(
            "WHERE (public.simhash_similarity_at_least(t.body, $1, $2) OR public.simhash_containment_at_least($1, t.body, $3) \
             OR public.simhash_containment_at_least(t.body, $1, $3)) AND t.ctid OPERATOR(pg_catalog.<>) $4 ORDER BY"
        ), "{text}");
        // Measure 1's trigger names measure 1's functions.
        let text = similarity_check_query(&SimilarityCheckQuery { suffix: "_m1", ..q });
        assert!(text.contains("public.simhash_containment_m1(s.doc, $1)]"), "{text}");
        assert!(text.contains("public.simhash_similarity_m1(t.body, $1)::pg_catalog.float8 AS sim"), "{text}");
        assert!(text.contains(
            "WHERE (public.simhash_similarity_at_least_m1(t.body, $1, $2) OR public.simhash_containment_at_least_m1($1, t.body, $3) \
             OR public.simhash_containment_at_least_m1(t.body, $1, $3))"
        ), "{text}");
    }

    /// Whether a `simhash_ops` lookup for `query` could keep `row` as a candidate: the lookup
    /// answers from keys, and the row's index keys hold the lookup's required number of them.
    fn lookup_keeps(query: &str, row: &str, measure: Measure, threshold: f64) -> bool {
        let p = KeyParams::of(Version::M2);
        let l = lookup(query, Version::M2, measure, threshold, &mut || ());
        if l.scan_all {
            // Every row is a candidate; the trigger then locks the table (SimilarityLocks::short).
            assert!(similarity_lock_keys(7, 3, query, Version::M2, &mut || ()).short, "{query}");
            return false;
        }
        let row_keys = index_keys(&sample(row, &p, &mut || ()), &p);
        l.keys.iter().filter(|k| row_keys.binary_search(k).is_ok()).count() >= l.required
    }

    fn shares_lock_key(a: &str, b: &str) -> bool {
        let (ka, kb) = (
            similarity_lock_keys(7, 3, a, Version::M2, &mut || ()).keys,
            similarity_lock_keys(7, 3, b, Version::M2, &mut || ()).keys,
        );
        ka.iter().any(|k| kb.binary_search(k).is_ok())
    }

    /// A text of `n` words drawn from `seed` (a splitmix64 stream), each 3 to 8 letters.
    fn words(seed: u64, n: usize) -> Vec<String> {
        let mut s = seed;
        let mut next = || {
            s = s.wrapping_add(0x9e37_79b9_7f4a_7c15);
            let mut z = s;
            z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
            z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
            z ^ (z >> 31)
        };
        (0..n)
            .map(|_| {
                let len = 3 + (next() % 6) as usize;
                (0..len).map(|_| (b'a' + (next() % 26) as u8) as char).collect()
            })
            .collect()
    }

    proptest! {
        #![proptest_config(ProptestConfig { cases: 64, ..ProptestConfig::default() })]
        /// Two texts one of which a lookup could find from the other, by any measure at any
        /// threshold the keys answer, share a lock key: a changed copy, an excerpt (found by
        /// winnowed keys only, past the long text's bottom-k), and the long text itself.
        #[test]
        fn candidates_share_a_lock_key(
            seed: u64,
            n in 20usize..400,
            changes in proptest::collection::vec((0usize..400, any::<u64>()), 0..12),
            excerpt_at in 0usize..400,
            excerpt_len in 5usize..60,
            theta in 0.25f64..=1.0,
            gamma in 0.5f64..=1.0,
        ) {
            let base = words(seed, n);
            let mut changed = base.clone();
            for (i, w) in &changes {
                let at = i % n;
                changed[at] = words(*w, 1).remove(0);
            }
            let start = excerpt_at % n;
            let excerpt = base[start..(start + excerpt_len).min(n)].join(" ");
            let (base, changed) = (base.join(" "), changed.join(" "));
            let texts = [&base, &changed, &excerpt];
            for a in texts {
                for b in texts {
                    for (measure, t) in [(Measure::Similarity, theta), (Measure::QueryInRow, gamma), (Measure::RowInQuery, gamma)] {
                        if lookup_keeps(a, b, measure, t) {
                            prop_assert!(shares_lock_key(a, b), "{measure:?} {t}: {a:?} / {b:?}");
                        }
                    }
                }
            }
            // An excerpt of 2W shingles or more (W + 4 letters make W shingles) is always found
            // in the long text by containment: the case exercises the winnowed keys.
            if excerpt.chars().filter(|c| c.is_alphanumeric()).count() >= 2 * crate::similarity::keys::W + 8 {
                prop_assert!(lookup_keeps(&excerpt, &base, Measure::QueryInRow, gamma));
            }
        }
    }
}
