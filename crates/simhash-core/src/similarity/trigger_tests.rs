//! Tests of the similarity dedup trigger's core (`super`): its arguments, its lock keys, and
//! that two texts one of which a lookup could find share a lock key.

use super::*;
use crate::similarity::{lookup, Measure};
use crate::threshold::{Bound, ThresholdError};
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
            Err(DedupError::Threshold(ThresholdError {
                name: "min_similarity".into(),
                got: format!("\"{bad}\""),
                bound: Bound::Positive
            }))
        );
    }
    assert_eq!(
        DedupError::Threshold(ThresholdError {
            name: "min_similarity".into(),
            got: "\"2\"".into(),
            bound: Bound::Positive
        })
        .to_string(),
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
        assert_eq!(
            e,
            DedupError::Threshold(ThresholdError {
                name: r#"option "min_containment""#.into(),
                got: got.into(),
                bound: Bound::Positive
            }),
            "{bad}"
        );
        assert!(!e.is_protocol());
    }
    assert_eq!(
        DedupError::Threshold(ThresholdError {
            name: r#"option "min_containment""#.into(),
            got: r#""0.8""#.into(),
            bound: Bound::Positive
        })
        .to_string(),
        r#"option "min_containment" must be a number greater than 0 and at most 1, got "0.8""#
    );
    let e = parse(r#"{"min_containment": 0.8, "definition": "2"}"#).unwrap_err();
    assert_eq!(e, DedupError::UnknownOption { key: "definition".into(), expected: SIMILARITY_DEDUP_OPTIONS });
    assert_eq!(e.to_string(), r#"unknown option "definition": the options are "min_containment""#);
    assert!(matches!(parse("{"), Err(DedupError::BadOptions(_))));
    assert!(matches!(parse("{} x"), Err(DedupError::BadOptions(_))));
    // A JSON array or null is a mistaken options argument (is_options), not a link column
    // (5.2.0 said "misplaced link column": issue 49).
    for bad in ["[0.8]", "[]", "null"] {
        let e = parse(bad).unwrap_err();
        assert!(matches!(&e, DedupError::BadOptions(m) if m.starts_with("expected a JSON object")), "{bad}: {e:?}");
    }
    assert!(matches!(parse(" NULL "), Err(DedupError::BadOptions(_))));
}

#[test]
fn share_keys() {
    let ops = LockedKeys::Sample;
    assert!(lookups_share_keys(0.6, None, ops));
    assert!(lookups_share_keys(MIN_SIMILARITY, Some(MIN_CONTAINMENT), ops));
    assert!(!lookups_share_keys(0.2, None, ops));
    assert!(!lookups_share_keys(0.6, Some(0.4), ops));
    // A band index answers similarity from 0.5 on, and no containment.
    for bands in [LockedKeys::Bands, LockedKeys::Both] {
        assert!(lookups_share_keys(0.5, None, bands));
        assert!(!lookups_share_keys(0.4, None, bands));
        // Containment comes from a simhash_ops index only: beside the band index, from keys.
        assert_eq!(lookups_share_keys(0.6, Some(0.8), bands), bands == LockedKeys::Both);
    }
}

#[test]
fn band_lock_keys() {
    let doc = "The quick brown fox jumps over the lazy dog, and the dog sleeps on.";
    let keys = |which, d: &str| similarity_lock_keys(1, 2, d, Version::M2, which, false, &mut || ()).keys;
    let (ops, bands, both) = (keys(LockedKeys::Sample, doc), keys(LockedKeys::Bands, doc), keys(LockedKeys::Both, doc));
    // One key per band key, kept apart from the sample's; both are the union, ascending.
    assert_eq!(bands.len(), band_index_keys(doc, Version::M2, &mut || ()).len());
    assert!(bands.iter().all(|k| !ops.contains(k)));
    assert_eq!(both.len(), ops.len() + bands.len());
    assert!(both.windows(2).all(|w| w[0] < w[1]) && ops.iter().chain(&bands).all(|k| both.contains(k)));
    assert!(keys(LockedKeys::Bands, "，。").is_empty() && keys(LockedKeys::Both, "，。").is_empty());
    // Two texts that share a band key share a lock key.
    let edit = doc.replace("lazy", "sleepy");
    let (a, b) = (band_index_keys(doc, Version::M2, &mut || ()), band_index_keys(&edit, Version::M2, &mut || ()));
    let shared = a.iter().filter(|k| b.contains(k)).count();
    assert!(shared > 0);
    assert_eq!(bands.iter().filter(|k| keys(LockedKeys::Bands, &edit).contains(k)).count(), shared);
}

#[test]
fn keys_are_stable() {
    // As trigger::lock's golden keys: backends of two library builds must agree.
    let locks = similarity_lock_keys(
        16384,
        3,
        "中共中央总书记、国家主席江泽民发表新年讲话",
        Version::M2,
        LockedKeys::Sample,
        false,
        &mut || (),
    );
    assert!(!locks.short);
    let keys = locks.keys;
    // 18 index keys (simhash_keys of the same text in similarity.sql), so 18 lock keys.
    assert_eq!(keys.len(), 18, "{keys:?}");
    assert_eq!(&keys[..3], [893689730125815441, 2812792623808627846, 3729414155834981971]);
    assert_eq!(similarity_table_lock_key(16384, 3), 13702710346769726122);
}

#[test]
fn lock_keys() {
    let tick = &mut || ();
    assert!(similarity_lock_keys(1, 2, "", Version::M2, LockedKeys::Sample, false, tick).keys.is_empty());
    assert!(similarity_lock_keys(1, 2, "，。！ ?", Version::M2, LockedKeys::Sample, false, tick).keys.is_empty());
    let doc = "The quick brown fox jumps over the lazy dog, and the dog sleeps on.";
    let locks = similarity_lock_keys(1, 2, doc, Version::M2, LockedKeys::Sample, false, tick);
    // 49 shingles: long enough for a containment lookup from keys.
    assert!(!locks.short);
    let keys = locks.keys;
    let p = KeyParams::of(Version::M2);
    assert_eq!(keys.len(), index_keys(&sample(doc, &p, tick), &p).len());
    assert!(keys.windows(2).all(|w| w[0] < w[1]));
    // Another table or column shares none; the table keys of the three families differ.
    assert!(similarity_lock_keys(2, 2, doc, Version::M2, LockedKeys::Sample, false, tick)
        .keys
        .iter()
        .all(|k| !keys.contains(k)));
    assert!(similarity_lock_keys(1, 3, doc, Version::M2, LockedKeys::Sample, false, tick)
        .keys
        .iter()
        .all(|k| !keys.contains(k)));
    // With containment a short text also locks the key of every shingle (what its lookup
    // asks for), a long one only its index keys; under measure 1 a short one takes the
    // table's key instead (short).
    let short = "中共中央总书记、国家主席江泽民发表新年讲话";
    let (with, without) = (
        similarity_lock_keys(1, 2, short, Version::M2, LockedKeys::Sample, true, tick),
        similarity_lock_keys(1, 2, short, Version::M2, LockedKeys::Sample, false, tick),
    );
    for m in [Measure::QueryInRow, Measure::RowInQuery] {
        for g in [0.5, 0.8, 1.0] {
            let l = lookup(short, Version::M2, m, g, tick);
            let asked = crate::trigger::sorted_keys(1, 2, *b"SM", l.keys.iter().map(|k| k.to_le_bytes()));
            assert!(asked.iter().all(|k| with.keys.contains(k)), "{m:?} {g}");
        }
    }
    assert!(!with.short && without.keys.iter().all(|k| with.keys.contains(k)), "{with:?} {without:?}");
    assert_eq!(similarity_lock_keys(1, 2, doc, Version::M2, LockedKeys::Sample, true, tick).keys, keys);
    assert!(similarity_lock_keys(1, 2, short, Version::M1, LockedKeys::Sample, true, tick).short);
    let t = similarity_table_lock_key(1, 2);
    assert!(!keys.contains(&t));
    assert_ne!(t, crate::trigger::table_lock_key(1, 2, 0xfe)); // the segments trigger's
    assert_ne!(t, crate::trigger::table_lock_key(1, 2, 3));
    assert_ne!(t, similarity_table_lock_key(1, 3));
}

#[test]
fn query_text() {
    let keys = vec!["id".to_owned()];
    let target = QueryTarget { exclude_ctid: false, ..QueryTarget::docs(&keys) };
    let q = SimilarityCheckQuery { target, text: "body", with_containment: false, suffix: "", framed: false };
    assert_eq!(
        similarity_check_query(&q),
        "SELECT s.key, s.link, ARRAY[s.sim]::pg_catalog.float8[] FROM (SELECT t.id::pg_catalog.text AS key, \
         t.id AS link, public.simhash_similarity(t.body, $1)::pg_catalog.float8 AS sim, t.id AS o0 \
         FROM ONLY public.docs AS t WHERE (public.simhash_similarity_at_least(t.body, $1, $2)) \
         ORDER BY sim DESC, o0 LIMIT 1) AS s"
    );
    // The decision reads every candidate, best first, and its text.
    let text =
        similarity_check_query(&SimilarityCheckQuery { target: QueryTarget { decide: Some("body"), ..target }, ..q });
    assert!(text.starts_with("SELECT s.key, s.link, ARRAY[s.sim]::pg_catalog.float8[], s.doc FROM ("), "{text}");
    assert!(
        text.contains("AS sim, t.body AS doc, t.id AS o0 FROM") && text.ends_with("ORDER BY sim DESC, o0) AS s"),
        "{text}"
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
        "WHERE (public.simhash_similarity_at_least(t.body, $1, $2) \
         OR t.body OPERATOR(public.@%) public.simhash_query($1, 'either_way', $3)) AND t.ctid OPERATOR(pg_catalog.<>) $4 ORDER BY"
    ), "{text}");
    // Framed: both lookups take the frame ($4), the excluded row comes after it.
    let text = similarity_check_query(&SimilarityCheckQuery { framed: true, ..q.clone() });
    assert!(text.contains(
        "WHERE (t.body OPERATOR(public.@%) ROW($1, 'similarity', $2, $4)::public.simhash_query \
         OR t.body OPERATOR(public.@%) ROW($1, 'either_way', $3, $4)::public.simhash_query) AND t.ctid OPERATOR(pg_catalog.<>) $5 ORDER BY"
    ), "{text}");
    // The probe: the same conditions without a frame, texts only, in no order.
    assert_eq!(
        similarity_probe_query(&SimilarityCheckQuery { framed: true, ..q.clone() }, 1024),
        "SELECT t.body FROM ONLY public.docs AS t WHERE t.body OPERATOR(public.@%) ROW($1, 'similarity', $2, NULL)::public.simhash_query \
         OR t.body OPERATOR(public.@%) ROW($1, 'either_way', $3, NULL)::public.simhash_query LIMIT 1024"
    );
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
    // Measure 2 answers every threshold from the lowest on from keys, short queries too.
    assert!(!l.scan_all, "{query}");
    let row_keys = index_keys(&sample(row, &p, &mut || ()), &p);
    l.keys.iter().filter(|k| row_keys.binary_search(k).is_ok()).count() >= l.required
}

fn shares_lock_key(a: &str, b: &str) -> bool {
    let (ka, kb) = (
        similarity_lock_keys(7, 3, a, Version::M2, LockedKeys::Sample, true, &mut || ()).keys,
        similarity_lock_keys(7, 3, b, Version::M2, LockedKeys::Sample, true, &mut || ()).keys,
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
