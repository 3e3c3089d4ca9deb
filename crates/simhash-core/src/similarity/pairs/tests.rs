//! Bulk pairs against brute force and prefix filtering.

use super::*;
use crate::similarity::exact::exact_pairs;
use crate::similarity::keys::K;
use crate::similarity::measure::{similarity, Sets};
use crate::similarity::Version;
use proptest::prelude::*;

const V: Version = Version::M2;

fn run(texts: &[String], theta: f64) -> Vec<(i64, i64, f64)> {
    let mut rows = TextRows::new(theta, V);
    for (i, t) in texts.iter().enumerate() {
        rows.push(i as i64, t, &mut || ());
    }
    let mut p = SimilarityPairs::new(rows, theta, &mut |_| ());
    let mut out = Vec::new();
    while let Some(x) = p.next_pair(&mut |_| ()) {
        out.push((x.id1, x.id2, x.similarity));
    }
    out.sort_by_key(|a| (a.0, a.1));
    out
}

fn brute(texts: &[String], theta: f64) -> Vec<(i64, i64, f64)> {
    let sets: Vec<Sets> = texts.iter().map(|t| Sets::of(t, V, &mut || ())).collect();
    let mut out = Vec::new();
    for i in 0..sets.len() {
        for j in i + 1..sets.len() {
            let s = similarity(&sets[i], &sets[j]);
            if s >= theta {
                out.push((i as i64, j as i64, s));
            }
        }
    }
    out
}

/// Texts made of words from a small vocabulary: many overlaps, some near-duplicates, short
/// texts (whole-set sketches) and long ones.
fn texts() -> impl Strategy<Value = Vec<String>> {
    let words = prop::sample::select(vec![
        "中国", "经济", "发展", "alpha", "beta", "新闻", "gamma", "报道", "delta", "。", " 12", "3.5",
    ]);
    prop::collection::vec(prop::collection::vec(words, 0..60).prop_map(|w| w.concat()), 2..40)
}

/// Every shard's owned pairs over the copies routed to it (`shard::text_owners`), together.
fn run_sharded(texts: &[String], theta: f64, shards: u32) -> Vec<(i64, i64, f64)> {
    let owners: Vec<Vec<u32>> =
        texts.iter().map(|t| crate::similarity::shard::text_owners(t, V, shards, &mut || ())).collect();
    let mut out = Vec::new();
    for shard in 0..shards {
        let mut rows = TextRows::new(theta, V);
        for (i, t) in texts.iter().enumerate().filter(|(i, _)| owners[*i].contains(&shard)) {
            rows.push(i as i64, t, &mut || ());
        }
        let mut p = SimilarityPairs::owned(rows, theta, Owned { shard, shards }, &mut |_| ());
        while let Some(x) = p.next_pair(&mut |_| ()) {
            out.push((x.id1, x.id2, x.similarity));
        }
    }
    out.sort_by_key(|a| (a.0, a.1));
    out
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]
    /// Over shards, each pair comes from one shard, and together they are one node's pairs.
    #[test]
    fn sharded_pairs_are_one_nodes(t in texts(), theta in prop::sample::select(vec![0.5, 0.7, 0.9, 1.0]),
                                   shards in prop::sample::select(vec![1u32, 2, 3, 7])) {
        prop_assert_eq!(run_sharded(&t, theta, shards), brute(&t, theta));
    }

    /// The bulk pairs are the brute force's, with the same similarity, at any threshold
    /// (every pair compared below 0.078, sketches above).
    #[test]
    fn bulk_pairs_are_brute_force(t in texts(), theta in prop::sample::select(vec![0.0, 0.05, 0.3, 0.5, 0.7, 0.9, 1.0])) {
        prop_assert_eq!(run(&t, theta), brute(&t, theta));
    }
}

#[test]
fn corpus_like_texts_match_prefix_filtering() {
    // Variants of a few sentences, short and long: the pairs equal exact_pairs'.
    let base = [
        "新华社北京一月一日电，今天是新年第一天，首都各界群众举行了丰富多彩的庆祝活动。",
        "The quick brown fox jumps over the lazy dog near the river bank today.",
        "国家主席江泽民发表新年讲话，向全国各族人民致以新年的祝贺。",
    ];
    let mut texts = Vec::new();
    for b in base {
        for cut in 0..8 {
            let chars: Vec<char> = b.chars().collect();
            let t: String = chars[cut..chars.len() - cut].iter().collect();
            texts.push(t.clone());
            texts.push(t.repeat(3) + &cut.to_string());
        }
    }
    let sets: Vec<Sets> = texts.iter().map(|t| Sets::of(t, V, &mut || ())).collect();
    let want: Vec<(i64, i64, f64)> =
        exact_pairs(&sets, 0.5, 2.0).into_iter().map(|p| (p.i as i64, p.j as i64, p.similarity)).collect();
    assert!(want.len() > 20);
    assert_eq!(run(&texts, 0.5), want);
}

#[test]
fn plans() {
    let p = sketch_plan(0.5).expect("a plan at 0.5");
    assert_eq!((p.sketch, p.group), (64, 30));
    // P(Bin(64, 0.5) < 9) ≈ 7.6e-10, < 10: 7.4e-9.
    assert_eq!(p.shared, 9);
    assert_eq!(sketch_plan(0.9).expect("a plan").group, K);
    assert_eq!(sketch_plan(1.0).expect("a plan").group, K);
    assert!(sketch_plan(0.05).is_none());
    assert!(sketch_plan(0.08).is_some());
    assert_eq!(sketch_plan(0.2).expect("a plan").sketch, 93);
}
