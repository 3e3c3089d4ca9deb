//! Property tests on arbitrary input (issue 11, part 5): what the SQL functions pass to the
//! core, a text from any plane, options from any JSON, weights that are NaN or infinite,
//! rows with repeated ids, must give a result or an `Err`, never a panic, and the result
//! must be the documented one.
//!
//! Cases per property: `SIMHASH_FUZZ_CASES`, 512 by default (`cargo test -p simhash-core`,
//! so `make test`), a quarter of that for the text pipeline's; `make fuzz` runs 1,000,000
//! (docs/development.md, "Robustness testing"). A failure is
//! shrunk and saved in `tests/fuzz.proptest-regressions`, replayed first on later runs.
//!
//! The unit tests next to the code already cover: normalize against whole-string NFKC and
//! lowercase on a chosen alphabet, and its idempotence on `\PC` text; the sign-table fold
//! against the definition for finite weights; `pairs::duplicates` and `clusters` against
//! brute force on planted fingerprints with unique ids. These extend them to arbitrary
//! input rather than repeat them.

use std::collections::BTreeMap;

use proptest::prelude::*;
use proptest::test_runner::{Config, FileFailurePersistence};
use serde_json::Value;
use simhash_core::fingerprints::pairs;
use simhash_core::fingerprints::{normalize_for, Fold, MAX_MIN_FEATURES};
use simhash_core::text::{normalize, normalize_folded, simplified};
use simhash_core::Progress;
use simhash_core::RawOptions;
use simhash_core::{
    extract, fingerprint, hamming, hash_feature, resemblance, segments, simhash_text, Definition, Lexicon, Options,
    Rules,
};
use unicode_normalization::UnicodeNormalization;

fn cases() -> u32 {
    std::env::var("SIMHASH_FUZZ_CASES").ok().and_then(|s| s.replace(['_', ','], "").parse().ok()).unwrap_or(512)
}

/// The text-pipeline properties cost up to 20 times more per case than the others: a
/// fraction of the cases, at least 64.
fn config(divisor: u32) -> Config {
    Config {
        cases: (cases() / divisor).max(64),
        failure_persistence: Some(Box::new(FileFailurePersistence::WithSource("proptest-regressions"))),
        ..Config::default()
    }
}

/// Pieces where normalization, segmentation and case mapping have special cases.
const PIECES: &[&str] = &[
    "中共中央",
    "总书记",
    "国家主席",
    "江泽民",
    "发表",
    "1998年",
    "新年讲话",
    "的",
    "了",
    "，",
    "。",
    "、",
    "《",
    "》",
    "ＡＢＣ",
    "１９９８",
    "ｶﾞ",
    "\u{301}",
    "\u{308}",
    "\u{327}",
    "\u{3099}",
    "\u{345}",
    "e\u{301}",
    "Σ",
    "ΟΔΟΣ",
    "ς",
    "\u{130}",
    "ß",
    "ẞ",
    "ﬁ",
    "…",
    "㈱",
    "ﷺ",
    "Ⅻ",
    "\u{212B}",
    "\u{1D6BA}",
    "\u{1100}\u{1161}\u{11A8}",
    "가\u{11A8}",
    "\0",
    "\u{7}",
    "\u{FEFF}",
    "\u{200D}",
    "\u{200B}",
    "\u{202E}",
    "\u{FFFE}",
    "\u{FFFF}",
    "\u{10FFFF}",
    "\u{E000}",
    "\u{F0000}",
    "\u{E0001}",
    "\u{FFFD}",
    "👨\u{200D}👩\u{200D}👧",
    "🇨🇳",
    "\u{20000}",
    "\u{2A6DF}",
    "٣.١٤",
    "4.3",
    "1.",
    ".",
    "..",
    "3.14.15",
    "a.b",
    "U.S.A.",
    " ",
    "\t",
    "\n",
    "\r\n",
    "\u{3000}",
    "\u{2028}",
    "the",
    "and",
    "Hello",
    "WORLD",
    "computer",
    "naïve",
    "Ǆ",
    "ǅ",
    "İstanbul",
    "ΣΑΣ",
    "مرحبا",
    "שלום",
    "привет",
    "ภาษาไทย",
    // Traditional characters (definition 2 folds them), a compatibility ideograph and one
    // outside the BMP.
    "國家主席發表新年講話",
    "\u{F902}",
    "\u{2005E}",
];

fn piece() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(PIECES).prop_map(str::to_owned),
        2 => any::<char>().prop_map(String::from),
        1 => "[\u{300}-\u{36F}]{1,12}",
        1 => "[\u{4E00}-\u{9FFF}]{1,6}",
        1 => "[a-zA-Z0-9.]{1,8}",
    ]
}

/// Any text: proptest's arbitrary strings (all planes), mixes of the pieces above, and
/// now and then a long repetition.
fn text() -> impl Strategy<Value = String> {
    prop_oneof![
        3 => any::<String>(),
        5 => proptest::collection::vec(piece(), 0..60).prop_map(|v| v.concat()),
        1 => (proptest::collection::vec(piece(), 1..4), 1usize..3000).prop_map(|(v, n)| v.concat().repeat(n)),
        1 => Just(String::new()),
    ]
}

/// Any JSON value; objects mostly with the option names, typos and arbitrary keys.
fn json() -> impl Strategy<Value = Value> {
    let key = prop_oneof![
        4 => proptest::sample::select(&["definition", "tokenizer", "n", "weighting", "min_features"][..]).prop_map(str::to_owned),
        1 => proptest::sample::select(&["", "N", "tokeniser", "min_feature", "tokenizer ", "Definition"][..]).prop_map(str::to_owned),
        1 => any::<String>(),
    ];
    let leaf = prop_oneof![
        Just(Value::Null),
        any::<bool>().prop_map(Value::from),
        any::<i64>().prop_map(Value::from),
        any::<u64>().prop_map(Value::from),
        (-40i64..1100).prop_map(Value::from),
        any::<f64>().prop_map(Value::from), // NaN and infinities become null
        proptest::sample::select(
            &[
                "jieba", "ngram", "tf", "tfidf", "binary", "0", "1", "1.0", "0.3.0", "2", "", " 1 ", ".1", "1.",
                "NGRAM", "１"
            ][..]
        )
        .prop_map(Value::from),
        any::<String>().prop_map(Value::from),
    ];
    leaf.prop_recursive(4, 32, 6, move |inner| {
        prop_oneof![
            proptest::collection::vec(inner.clone(), 0..6).prop_map(Value::Array),
            proptest::collection::vec((key.clone(), inner), 0..6)
                .prop_map(|kv| Value::Object(kv.into_iter().collect())),
        ]
    })
}

/// Options as the SQL layer makes them: deserialized from the JSON value, then validated
/// with either default definition. `None` when either step refuses them.
fn options_from(v: &Value, default: Definition) -> Option<Options> {
    let raw: RawOptions = serde_json::from_value(v.clone()).ok()?;
    raw.validate(default).ok()
}

/// Every valid option set: the three definitions, both tokenizers (n from 1 to 32), the
/// three weightings, min_features from 0 to 1000.
fn valid_options() -> impl Strategy<Value = Options> {
    (
        0usize..3,
        prop_oneof![Just(None), (1u32..=32).prop_map(Some)],
        0usize..3,
        prop_oneof![Just(None), (0u32..=1000).prop_map(Some)],
    )
        .prop_map(|(d, n, w, min)| {
            let (v0, weighting) = (d == 0, ["tfidf", "tf", "binary"][w]);
            let mut json = serde_json::json!({ "definition": d.to_string(), "weighting": weighting });
            if let Some(n) = n {
                json["tokenizer"] = "ngram".into();
                json["n"] = n.into();
            }
            if let (Some(m), false) = (min, v0) {
                json["min_features"] = m.into();
            }
            options_from(&json, Definition::V1).expect("valid options")
        })
}

fn any_options() -> impl Strategy<Value = Options> {
    prop_oneof![
        3 => valid_options(),
        // Most arbitrary JSON is refused: those cases take definition 0's defaults.
        1 => (json(), 0usize..3).prop_map(|(v, d)| {
            options_from(&v, [Definition::V0, Definition::V1, Definition::V2][d]).unwrap_or_else(Options::v0)
        }),
    ]
}

/// What `simhash_text` must return: the fold of `extract`'s features in order, or `None`
/// with fewer than `min_features` of them (docs/fingerprint.md).
fn by_definition(doc: &str, options: &Options) -> Option<u64> {
    let rules = Rules::from(options);
    let normalized = normalize_for(doc, &rules, usize::MAX, &mut || ());
    let feats = extract(Lexicon::global(), &normalized, &rules);
    (feats.len() as u32 >= options.min_features).then(|| fingerprint(feats.iter().map(|f| (f.hash, f.weight))))
}

proptest! {
    #![proptest_config(config(1))]

    /// Options from arbitrary JSON text or values: a result or an error, never a panic;
    /// accepted options are within their documented bounds.
    #[test]
    fn options_from_any_json(v in json(), junk in any::<String>()) {
        let _ = serde_json::from_str::<RawOptions>(&junk);
        let text = v.to_string();
        let half = text.char_indices().nth(text.chars().count() / 2).map_or(text.len(), |(i, _)| i);
        let _ = serde_json::from_str::<RawOptions>(&text[..half]);
        let from_value = serde_json::from_value::<RawOptions>(v.clone());
        let from_str = serde_json::from_str::<RawOptions>(&text);
        prop_assert_eq!(from_value.is_ok(), from_str.is_ok());
        if let (Ok(a), Ok(b)) = (from_value, from_str) {
            prop_assert_eq!(&a, &b);
            for default in [Definition::V0, Definition::V1, Definition::V2] {
                if let Ok(o) = a.clone().validate(default) {
                    prop_assert!(o.min_features <= MAX_MIN_FEATURES);
                    if o.definition == Definition::V0 {
                        prop_assert_eq!(o.min_features, 0);
                    }
                    if let simhash_core::Tokenizer::Ngram(n) = o.tokenizer {
                        prop_assert!((1..=32).contains(&n));
                    }
                }
            }
        }
    }

    /// Segments of any text under any options: no panic, distinct, and only for a text
    /// that has a fingerprint itself (a run's features are the text's); without sentences
    /// (ngram) the one segment is the text's fingerprint.
    #[test]
    fn segments_of_any_text(doc in text(), options in any_options()) {
        let lex = Lexicon::global();
        let segs = segments(lex, &doc, &options);
        let mut sorted = segs.clone();
        sorted.sort_unstable();
        sorted.dedup();
        prop_assert_eq!(sorted.len(), segs.len());
        let whole = simhash_text(lex, &doc, &Options { min_features: options.min_features.max(1), ..options });
        if !segs.is_empty() {
            prop_assert!(whole.is_some());
        }
        if let simhash_core::Tokenizer::Ngram(_) = options.tokenizer {
            prop_assert_eq!(segs.clone(), whole.into_iter().collect::<Vec<_>>());
        }
        prop_assert_eq!(resemblance(&segs, &segs), if segs.is_empty() { 0.0 } else { 1.0 });
    }

    /// The fold never panics and its table and vector paths agree, for any weights:
    /// NaN, infinities, subnormals, -0 (SQL refuses non-finite weights; the core must not care).
    #[test]
    fn fold_of_any_weights(feats in proptest::collection::vec((any::<u64>(), any::<f64>()), 0..40)) {
        let mut one_by_one = Fold::default();
        for &(h, w) in &feats {
            one_by_one.add(h, w);
        }
        let mut all = Fold::default();
        all.add_all(feats.iter().copied());
        prop_assert_eq!(one_by_one.finish(), all.finish());
        prop_assert_eq!(fingerprint(feats.iter().copied()), all.finish());
    }

    /// `pairs::duplicates` and `clusters` against brute force with repeated ids (which
    /// never pair), extreme ids and fingerprints, and many identical fingerprints.
    #[test]
    fn all_pairs_with_repeated_ids(
        rows in proptest::collection::vec(
            (prop_oneof![-3i64..4, Just(i64::MIN), Just(i64::MAX)],
             prop_oneof![Just(0u64), Just(u64::MAX), Just(1u64 << 63), (0u64..6).prop_map(|x| x * 0x0101_0101_0101_0101), any::<u64>()],
             proptest::collection::vec(0u32..64, 0..4)),
            0..40),
        k in prop_oneof![0u32..8, 0u32..=64],
    ) {
        let rows: Vec<(i64, u64)> = rows.into_iter().map(|(id, fp, flips)| (id, flips.iter().fold(fp, |f, b| f ^ (1 << b)))).collect();
        let mut want = Vec::new();
        for (x, &(a, fa)) in rows.iter().enumerate() {
            for &(b, fb) in &rows[x + 1..] {
                if a != b && hamming(fa, fb) <= k {
                    want.push((a.min(b), a.max(b), hamming(fa, fb)));
                }
            }
        }
        want.sort_unstable();
        prop_assert_eq!(pairs::duplicates(rows.clone(), k, &mut |_: Progress| {}), want);

        // Clusters need unique ids: number the rows.
        let rows: Vec<(i64, u64)> = rows.iter().enumerate().map(|(i, &(_, fp))| (i as i64 * 7 - 50, fp)).collect();
        let mut parent: BTreeMap<i64, i64> = BTreeMap::new();
        fn root(p: &BTreeMap<i64, i64>, mut x: i64) -> i64 {
            while p[&x] != x { x = p[&x]; }
            x
        }
        for (x, &(a, fa)) in rows.iter().enumerate() {
            for &(b, fb) in &rows[x + 1..] {
                if hamming(fa, fb) <= k {
                    parent.entry(a).or_insert(a);
                    parent.entry(b).or_insert(b);
                    let (ra, rb) = (root(&parent, a), root(&parent, b));
                    parent.insert(ra.max(rb), ra.min(rb));
                }
            }
        }
        let mut want: Vec<(i64, i64)> = parent.keys().map(|&id| (id, root(&parent, id))).collect();
        want.sort_unstable_by_key(|&(id, c)| (c, id));
        prop_assert_eq!(pairs::clusters(rows, k, &mut |_: Progress| {}), want);
    }
}

proptest! {
    #![proptest_config(config(4))]

    /// `normalize` is NFKC then lowercase (its documented definition) on text from any
    /// plane, not only the alphabet of its unit test.
    #[test]
    fn normalize_is_nfkc_lowercase(doc in text()) {
        let lower = doc.nfkc().collect::<String>().to_lowercase();
        prop_assert_eq!(normalize(&doc).into_owned(), lower.clone());
        // Definition 2's: the same, then the fold of traditional characters one by one.
        prop_assert_eq!(normalize_folded(&doc).into_owned(), lower.chars().map(simplified).collect::<String>());
    }

    /// ... and idempotent up to canonical equivalence. Not exactly: lowercasing can make
    /// a letter and a following mark composable (`T` + U+0308 has no precomposed form,
    /// `t` + U+0308 is `ẗ`), or put the U+0307 of `İ` (lowercase `i` + U+0307) before a
    /// mark of lower class (`"İ\u{316}"`), which a second NFKC composes or reorders (all
    /// found by this test; normalize.rs). A second pass is only that NFKC, and changes
    /// nothing when the first gave no combining mark.
    #[test]
    fn normalize_is_idempotent(doc in text()) {
        let once = normalize(&doc).into_owned();
        let twice = normalize(&once).into_owned();
        prop_assert_eq!(&twice, &once.nfkc().collect::<String>());
        prop_assert_eq!(twice.nfd().collect::<String>(), once.nfd().collect::<String>());
        if once.chars().all(|c| unicode_normalization::char::canonical_combining_class(c) == 0) {
            prop_assert_eq!(&twice, &once);
        }
    }

    /// `simhash_text` never panics, under any option set, and returns the fold of the
    /// features `extract` reports (every definition alike), which are distinct, hashed
    /// from their text, with finite, non-negative weights.
    #[test]
    fn simhash_text_is_the_fold_of_extract(doc in text(), options in any_options()) {
        let got = simhash_text(Lexicon::global(), &doc, &options);
        prop_assert_eq!(got, by_definition(&doc, &options));
        let normalized = normalize_for(&doc, &Rules::from(&options), usize::MAX, &mut || ());
        let feats = extract(Lexicon::global(), &normalized, &Rules::from(&options));
        let mut hashes: Vec<u64> = feats.iter().map(|f| f.hash).collect();
        hashes.sort_unstable();
        hashes.dedup();
        prop_assert_eq!(hashes.len(), feats.len());
        for f in &feats {
            prop_assert_eq!(f.hash, hash_feature(f.text.as_bytes()), "{:?}", f.text);
            prop_assert!(f.weight.is_finite() && f.weight >= 0.0 && f.count >= 1, "{:?}", f);
        }
    }

    /// Fingerprints are deterministic: the same in any order of documents (the per-thread
    /// buffers are reused from one text to the next, and dropped after a huge one) and on
    /// a fresh thread.
    #[test]
    fn fingerprints_are_deterministic(docs in proptest::collection::vec(text(), 1..5), options in any_options(), huge in 0..8) {
        let mut docs = docs;
        if huge == 0 {
            // 40,000 tokens: more than Counts keeps for the next text (release_if_huge).
            docs.insert(docs.len() / 2, "a ".repeat(20_000));
        }
        let lex = Lexicon::global();
        let forward: Vec<Option<u64>> = docs.iter().map(|d| simhash_text(lex, d, &options)).collect();
        let mut backward: Vec<Option<u64>> = docs.iter().rev().map(|d| simhash_text(lex, d, &options)).collect();
        backward.reverse();
        prop_assert_eq!(&forward, &backward);
        let fresh = std::thread::scope(|s| s.spawn(|| docs.iter().map(|d| simhash_text(lex, d, &options)).collect::<Vec<_>>()).join().unwrap());
        prop_assert_eq!(&forward, &fresh);
    }
}
