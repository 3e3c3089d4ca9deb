//! Bulk segment pairs against brute force: every pair of rows compared, with the same
//! rule (share a segment at most `max_rows` rows have, resemblance ≥ θ, segments matched
//! within k bits).

use std::collections::HashMap;

use super::*;
use crate::bulk::test_support::{brute_components, nop, Rng};
use crate::bulk::Progress;

type Rows = Vec<(i64, Vec<u64>)>;

type Pairs = Vec<(i64, i64, Near)>;

/// `(id1, id2, match)` of every qualifying pair, by comparing every pair of rows.
fn brute_k(rows: &Rows, theta: f64, max_rows: usize, k: u32) -> Pairs {
    let mut df: HashMap<u64, usize> = HashMap::new();
    for (_, segs) in rows {
        let mut s = segs.clone();
        s.sort_unstable();
        s.dedup();
        s.into_iter().for_each(|v| *df.entry(v).or_default() += 1);
    }
    let mut out = Vec::new();
    for (i, (ia, a)) in rows.iter().enumerate() {
        for (ib, b) in &rows[i + 1..] {
            let rare = a.iter().any(|s| b.contains(s) && df[s] <= max_rows.max(1));
            let (a, b, ia, ib) = if ia < ib { (a, b, *ia, *ib) } else { (b, a, *ib, *ia) };
            let o = Near::of(a, b, k, &mut || {});
            if ia != ib && rare && o.resemblance() >= theta {
                out.push((ia, ib, o));
            }
        }
    }
    sorted(out)
}

/// Sorted by ids, then match: rows with equal ids may come in another order.
fn sorted(mut v: Pairs) -> Pairs {
    v.sort_by_key(|&(a, b, o)| (a, b, o.a, o.b, o.common, o.near_a, o.near_b));
    v
}

fn fast_k(rows: &Rows, theta: f64, max_rows: usize, k: u32) -> Pairs {
    let v = segment_pairs(rows.iter().cloned().collect(), theta, max_rows, k, &mut nop)
        .into_iter()
        .map(|p| (p.id1, p.id2, p.near));
    sorted(v.collect())
}

fn brute(rows: &Rows, theta: f64, max_rows: usize) -> Pairs {
    brute_k(rows, theta, max_rows, 0)
}

fn fast(rows: &Rows, theta: f64, max_rows: usize) -> Pairs {
    fast_k(rows, theta, max_rows, 0)
}

/// An exact match as the pairs give it.
fn exact(a: usize, b: usize, common: usize) -> Near {
    Overlap { a, b, common }.into()
}

/// Texts of a few segments each from `universe` values, with planted reposts (a segment
/// dropped, added or changed), excerpts, and a passage `0xD15C` in every third row.
fn planted(seed: u64, n: usize, universe: u64) -> Rows {
    let mut r = Rng(seed | 1);
    let mut rows: Rows = Vec::new();
    for i in 0..n {
        let mut segs: Vec<u64> = if i > 0 && r.next().is_multiple_of(3) {
            let mut s = rows[(r.next() % i as u64) as usize].1.clone();
            match r.next() % 4 {
                0 if !s.is_empty() => drop(s.remove((r.next() % s.len() as u64) as usize)),
                1 => s.push(r.next() % universe),
                2 if !s.is_empty() => s.truncate(s.len().div_ceil(2)),
                _ => {}
            }
            s
        } else {
            (0..r.next() % 8).map(|_| r.next() % universe).collect()
        };
        if r.next().is_multiple_of(3) {
            segs.push(0xD15C);
        }
        // Ids out of order, so the sort by id is exercised.
        rows.push(((i as i64 * 7919) % 100_003, segs));
    }
    rows
}

#[test]
fn small_cases() {
    let rows: Rows = vec![(3, vec![1, 2, 3, 4]), (1, vec![1, 2, 3]), (2, vec![9]), (4, vec![1, 1, 2, 3, 4])];
    let got = fast(&rows, 0.8, 10);
    assert_eq!(got, vec![(1, 3, exact(3, 4, 3)), (1, 4, exact(3, 4, 3)), (3, 4, exact(4, 4, 4))]);
    // Segment 1 to 3 in all three rows: at max_rows 2 only segment 4 is rare.
    assert_eq!(fast(&rows, 0.0, 2), vec![(3, 4, exact(4, 4, 4))]);
    // Rows with one id never pair; empty rows and no rows give nothing.
    assert_eq!(fast(&vec![(1, vec![5]), (1, vec![5])], 0.0, 10), vec![]);
    assert_eq!(fast(&vec![(1, vec![]), (2, vec![])], 0.0, 10), vec![]);
    assert_eq!(fast(&vec![], 0.5, 10), vec![]);
    assert_eq!(segment_clusters(rows.into_iter().collect(), 0.8, 10, 0, &mut nop), vec![(1, 1), (3, 1), (4, 1)]);
}

#[test]
fn planted_against_brute_force() {
    for (seed, n, universe, max_rows) in [(1, 300, 200, 1000), (2, 400, 60, 5), (3, 500, 1000, 3), (4, 200, 30, 1)] {
        let rows = planted(seed, n, universe);
        for theta in [0.0, 0.5, 0.8, 1.0] {
            let want = brute(&rows, theta, max_rows);
            assert_eq!(fast(&rows, theta, max_rows), want, "seed {seed} θ {theta} max_rows {max_rows}");
            if theta == 0.5 && max_rows >= 1000 {
                assert!(!want.is_empty(), "seed {seed}: the planted reposts pair");
            }
            let edges: Vec<(i64, i64)> = want.iter().map(|p| (p.0, p.1)).collect();
            let clusters: Vec<(i64, i64)> =
                segment_clusters(rows.iter().cloned().collect(), theta, max_rows, 0, &mut nop)
                    .into_iter()
                    .map(|(id, c)| (c, id))
                    .collect();
            assert_eq!(clusters, brute_components(&edges));
        }
    }
}

#[test]
fn frequent_passage_counts_but_finds_nothing() {
    // 50 rows share the disclaimer 7; rows 1 and 2 also share 8. At max_rows 10 the
    // disclaimer finds no pair, yet counts in 1-2's resemblance: 2·2 / (2 + 2) = 1.
    let mut rows: Rows = (10..60).map(|i| (i, vec![7, 1000 + i as u64])).collect();
    rows.push((1, vec![7, 8]));
    rows.push((2, vec![8, 7]));
    assert_eq!(fast(&rows, 0.9, 10), vec![(1, 2, exact(2, 2, 2))]);
    assert_eq!(fast(&rows, 0.9, 10), brute(&rows, 0.9, 10));
    assert_eq!(fast(&rows, 0.5, 100).len(), 52 * 51 / 2);
}

#[test]
fn ticks_and_phases() {
    // 3000 rows sharing one segment: 4.5M candidate pairs, and ticks all along.
    let rows: Rows = (0..3000).map(|i| (i, vec![1])).collect();
    let (mut ticks, mut phases) = (0, Vec::new());
    let mut cb = |p: Progress| match p {
        Progress::Tick => ticks += 1,
        Progress::Phase(m) => phases.push(m),
    };
    let n = segment_pairs(rows.into_iter().collect(), 1.0, 5000, 0, &mut cb).len();
    assert_eq!(n, 3000 * 2999 / 2);
    assert!(ticks >= n / (1 << 16), "{ticks} ticks");
    assert_eq!(phases.last().unwrap(), &format!("{n} pairs"));
}

/// Texts of random 64-bit segments, with planted reposts: one segment kept, the others
/// moved by 1 to 6 bits, one dropped or one added; and a passage in every fifth row.
fn planted_near(seed: u64, n: usize) -> Rows {
    let mut r = Rng(seed | 1);
    let mut rows: Rows = Vec::new();
    for i in 0..n {
        let mut segs: Vec<u64> = if i > 0 && r.next().is_multiple_of(2) {
            let base = &rows[(r.next() % i as u64) as usize].1;
            let mut s: Vec<u64> = base
                .iter()
                .enumerate()
                .map(
                    |(j, &v)| if j == 0 { v } else { (0..1 + r.next() % 6).fold(v, |v, _| v ^ (1 << (r.next() % 64))) },
                )
                .collect();
            match r.next() % 3 {
                0 if s.len() > 1 => drop(s.pop()),
                1 => s.push(r.next()),
                _ => {}
            }
            s
        } else {
            (0..1 + r.next() % 6).map(|_| r.next()).collect()
        };
        if r.next().is_multiple_of(5) {
            segs.push(0xD15C);
        }
        rows.push(((i as i64 * 7919) % 100_003, segs));
    }
    rows
}

#[test]
fn within_k_against_brute_force() {
    for (seed, max_rows) in [(5, 1000), (6, 10)] {
        let rows = planted_near(seed, 400);
        for k in [1, 3, 8, 64] {
            for theta in [0.0, 0.5, 0.8] {
                let want = brute_k(&rows, theta, max_rows, k);
                assert_eq!(fast_k(&rows, theta, max_rows, k), want, "seed {seed} k {k} θ {theta} max_rows {max_rows}");
                let edges: Vec<(i64, i64)> = want.iter().map(|p| (p.0, p.1)).collect();
                let clusters: Vec<(i64, i64)> =
                    segment_clusters(rows.iter().cloned().collect(), theta, max_rows, k, &mut nop)
                        .into_iter()
                        .map(|(id, c)| (c, id))
                        .collect();
                assert_eq!(clusters, brute_components(&edges));
            }
        }
        // The moved segments matter: within 8 bits more reposts reach 0.5 than exactly.
        let (exact, near) = (fast(&rows, 0.5, max_rows).len(), fast_k(&rows, 0.5, max_rows, 8).len());
        assert!(near > exact, "seed {seed}: {near} pairs within 8 bits, {exact} exactly");
    }
}

proptest::proptest! {
    #[test]
    fn against_brute_force(
        rows in proptest::collection::vec((0i64..40, proptest::collection::vec(0u64..25, 0..6)), 0..40),
        theta in 0.0f64..1.0,
        max_rows in 1usize..8,
    ) {
        proptest::prop_assert_eq!(fast(&rows, theta, max_rows), brute(&rows, theta, max_rows));
    }

    #[test]
    fn within_k_against_brute_force_small(
        rows in proptest::collection::vec((0i64..40, proptest::collection::vec(0u64..25, 0..6)), 0..40),
        theta in 0.0f64..1.0,
        max_rows in 1usize..8,
        k in 0u32..5,
    ) {
        proptest::prop_assert_eq!(fast_k(&rows, theta, max_rows, k), brute_k(&rows, theta, max_rows, k));
    }
}
