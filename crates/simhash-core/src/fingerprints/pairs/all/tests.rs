use super::search::{distinct_pairs, Search};
use super::*;
use crate::bulk::test_support::{brute_components, nop};
use crate::fingerprints::pairs::test_support::{brute_all, planted_all};
use crate::fingerprints::pairs::Plan;
use proptest::prelude::*;

/// Components from the brute-force pairs, by repeated relaxation.
fn brute_clusters(rows: &[(i64, u64)], k: u32) -> Vec<(i64, i64)> {
    let edges: Vec<(i64, i64)> = brute_all(rows, k).iter().map(|&(a, b, _)| (a, b)).collect();
    brute_components(&edges).into_iter().map(|(c, id)| (id, c)).collect()
}

#[test]
fn exact_vs_brute_force_for_every_k() {
    let rows = planted_all(42, 300, 8);
    for k in 0..=64 {
        assert_eq!(duplicates(rows.clone(), k, &mut nop), brute_all(&rows, k), "k={k}");
    }
}

#[test]
fn every_block_plan_is_exact() {
    // Force each Manku plan on a small input (the cost model would pick brute force).
    let rows = planted_all(7, 400, 10);
    let mut d: Vec<u64> = rows.iter().map(|r| r.1).collect();
    d.sort_unstable();
    d.dedup();
    for k in 1..=10u32 {
        let want: Vec<_> = {
            let mut v = Vec::new();
            distinct_pairs(&d, k, Plan::BruteForce, &mut nop, &mut |i, j, x| v.push((i, j, x)));
            v.sort_unstable();
            v
        };
        for m in k + 1..=(k + 3).min(64) {
            let mut got = Vec::new();
            distinct_pairs(&d, k, Plan::Blocks { m, a: m - k }, &mut nop, &mut |i, j, x| got.push((i, j, x)));
            got.sort_unstable();
            assert_eq!(got, want, "k={k} m={m}");
        }
    }
}

#[test]
fn large_input_uses_blocks_and_radix_sort() {
    // Above 4096 distinct fingerprints tables are radix-sorted.
    let rows = planted_all(3, 6_000, 4);
    assert!(matches!(plan(6_000, 3), Plan::Blocks { .. }));
    let got = duplicates(rows.clone(), 3, &mut nop);
    assert_eq!(got, brute_all(&rows, 3));
    assert!(got.len() > 1000);
}

#[test]
fn identical_groups_and_clusters() {
    // 2000 copies of one fingerprint, a chain 0 - 1 bit - 2 bits, and singletons.
    let mut rows: Vec<(i64, u64)> = (100..2100).map(|id| (id, 0xABCD)).collect();
    rows.extend([(5, 0xF000), (6, 0xF001), (7, 0xF003), (8, 0xFFFF_FFFF_0000_0000)]);
    let pairs = duplicates(rows.clone(), 1, &mut nop);
    assert_eq!(pairs.len(), 2000 * 1999 / 2 + 2);
    assert!(pairs.contains(&(5, 6, 1)) && pairs.contains(&(6, 7, 1)) && !pairs.iter().any(|p| p.0 == 5 && p.1 == 7));
    let cl = clusters(rows.clone(), 1, &mut nop);
    assert_eq!(cl.len(), 2003);
    assert_eq!(&cl[..3], &[(5, 5), (6, 5), (7, 5)]);
    assert!(cl[3..].iter().all(|&(id, c)| c == 100 && (100..2100).contains(&id)));
    assert_eq!(cl, brute_clusters(&rows, 1));
}

/// The documented stream order: distance-0 pairs first, group by group in increasing
/// unsigned fingerprint order, each group sorted; then the others, each pair once.
#[test]
fn stream_order_identical_groups_first() {
    let mut rows: Vec<(i64, u64)> = vec![(9, u64::MAX), (3, u64::MAX), (4, 7), (1, 7), (2, 7), (5, 6), (8, 1 << 40)];
    rows.extend((100..110).map(|id| (id, id as u64 * 0x1000_0001)));
    let mut d = Duplicates::new(rows.clone(), 1, &mut nop);
    let mut got = Vec::new();
    while let Some(p) = d.next_pair(&mut nop) {
        got.push(p);
    }
    assert_eq!(&got[..4], &[(1, 2, 0), (1, 4, 0), (2, 4, 0), (3, 9, 0)]);
    assert!(got[4..].iter().all(|p| p.2 > 0));
    let mut sorted = got.clone();
    sorted.sort_unstable();
    assert_eq!(sorted, brute_all(&rows, 1));
}

/// 100,000 copies of one fingerprint are 5·10⁹ pairs: the first ten come at once,
/// and emitting them ticks (the SQL layer checks for cancellation there).
#[test]
fn huge_identical_group_streams_and_ticks() {
    let rows: Vec<(i64, u64)> = (1..=100_000).map(|id| (id, 0)).collect();
    let mut d = Duplicates::new(rows, 3, &mut nop);
    let first: Vec<_> = (0..10).map_while(|_| d.next_pair(&mut nop)).collect();
    assert_eq!(first, (2..=11).map(|b| (1, b, 0)).collect::<Vec<_>>());
    let mut ticks = 0;
    for _ in 0..3_000_000 {
        d.next_pair(&mut |p| ticks += u32::from(p == Progress::Tick)).expect("more pairs");
    }
    assert!(ticks >= 2, "{ticks} ticks");
}

/// A search that finds nothing for a long time still ticks inside one call.
#[test]
fn long_search_without_pairs_ticks() {
    let mut distinct: Vec<u64> = (0..3000u64).map(|i| i.wrapping_mul(0x9E37_79B9_7F4A_7C15)).collect();
    distinct.sort_unstable();
    let mut ticks = 0;
    let mut s = Search::new(1, Plan::BruteForce);
    assert_eq!(s.next(&distinct, &mut |p| ticks += u32::from(p == Progress::Tick)), None);
    assert!(ticks >= 4, "{ticks} ticks over 4.5M comparisons");
}

trait TapSort {
    fn tap_sort(self) -> Self;
}
impl TapSort for Vec<(i64, i64)> {
    fn tap_sort(mut self) -> Self {
        self.sort_unstable_by_key(|&(id, c)| (c, id));
        self
    }
}

#[test]
fn progress_reports_phases_and_ticks() {
    let mut phases = Vec::new();
    let mut ticks = 0;
    duplicates(planted_all(1, 10_000, 3), 3, &mut |p| match p {
        Progress::Phase(s) => phases.push(s),
        Progress::Tick => ticks += 1,
    });
    assert_eq!(phases.len(), 2);
    assert!(phases[0].contains("tables keyed on"), "{phases:?}");
    assert!(ticks > 10);
}

#[test]
fn same_id_never_pairs() {
    assert_eq!(duplicates(vec![(1, 5), (1, 5), (2, 5)], 0, &mut nop), vec![(1, 2, 0), (1, 2, 0)]);
    assert!(duplicates(Vec::new(), 3, &mut nop).is_empty());
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(64))]
    #[test]
    fn matches_brute_force(seed: u64, n in 0usize..200, flips in 0u32..12, k in 0u32..=64) {
        let rows = planted_all(seed, n, flips);
        prop_assert_eq!(duplicates(rows.clone(), k, &mut nop), brute_all(&rows, k));
        prop_assert_eq!(clusters(rows.clone(), k, &mut nop), brute_clusters(&rows, k).tap_sort());
    }

    #[test]
    fn forced_block_plans_match(seed: u64, k in 1u32..20, extra in 1u32..5) {
        let rows = planted_all(seed, 150, k + 2);
        let mut d: Vec<u64> = rows.iter().map(|r| r.1).collect();
        d.sort_unstable();
        d.dedup();
        let m = (k + extra).min(64);
        let mut want = Vec::new();
        distinct_pairs(&d, k, Plan::BruteForce, &mut nop, &mut |i, j, x| want.push((i, j, x)));
        let mut got = Vec::new();
        distinct_pairs(&d, k, Plan::Blocks { m, a: m - k }, &mut nop, &mut |i, j, x| got.push((i, j, x)));
        want.sort_unstable();
        got.sort_unstable();
        prop_assert_eq!(got, want);
    }
}
