//! The cost model of the dedup trigger's index pre-check: before its check query, the
//! trigger may walk the block indexes itself, one btree descent per probe key, and skip the
//! query when no index entry can be a match. Which block set to walk, and whether to walk
//! one at all, is chosen here.

use crate::fingerprints::search::{ball_size, block_width, cheapest, probe_radius, probes_fit, MAX_PROBES};

/// Expected cost, in btree descents, of the trigger's index pre-check on a set of
/// `nblocks` block indexes at bound `k` over `rows` rows, or None when the set's probe
/// lists are too long to walk one key at a time (more than [`MAX_PROBES`]).
///
/// The pre-check probes every key of every block's Hamming ball (one descent each) and
/// looks at the index entries found. With the fingerprint in the index (`covering`), an
/// entry is tested right there, for about [`ENTRY_COST`] of a descent; without it, any
/// entry sends the insert on to the full check query, about [`FALLBACK_COST`] descents.
pub fn precheck_cost(nblocks: u32, k: u32, rows: f64, covering: bool) -> Option<f64> {
    if !probes_fit(nblocks, k, MAX_PROBES) {
        return None;
    }
    let r = probe_radius(k, nblocks);
    let (mut descents, mut entries) = (0.0, 0.0);
    for b in 0..nblocks {
        let w = block_width(b, nblocks);
        let keys = ball_size(w, r) as f64;
        descents += keys;
        entries += keys * rows.max(0.0) / (w as f64).exp2();
    }
    Some(if covering { descents + entries * ENTRY_COST } else { descents + entries.min(1.0) * FALLBACK_COST })
}

/// A covering index entry costs this fraction of a descent to test (it sits on the leaf
/// page the descent already reached).
pub const ENTRY_COST: f64 = 0.05;

/// The full check query (SPI, bitmap scans of the block indexes, heap) in descents,
/// calibrated by profiling dedup inserts: the query's share of an insert over the share of
/// a pre-check's probes, times the number of those probes.
pub const FALLBACK_COST: f64 = 80.0;

/// Of the block sets `(nblocks, covering)`, the index of the one whose pre-check is
/// cheapest, if that beats going straight to the check query (FALLBACK_COST).
pub fn choose_precheck(sets: &[(u32, bool)], k: u32, rows: f64) -> Option<usize> {
    cheapest(sets.iter().map(|&(n, covering)| precheck_cost(n, k, rows, covering).filter(|&c| c < FALLBACK_COST)))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn precheck_prefers_covering_indexes_and_few_false_entries() {
        let m = 1e6;
        // 4 covering blocks at k = 3: 4 descents plus ~61 entries tested on the leaf.
        let c4 = precheck_cost(4, 3, m, true).unwrap();
        assert!((c4 - (4.0 + 4.0 * m / 65536.0 * ENTRY_COST)).abs() < 1e-9, "{c4}");
        // Without the fingerprint in the index, 4 blocks always find entries: no better than
        // the check query itself, so not chosen; 2 blocks (66 descents, ~0 entries) are.
        assert!(precheck_cost(4, 3, m, false).unwrap() > FALLBACK_COST);
        assert_eq!(choose_precheck(&[(4, false)], 3, m), None);
        assert_eq!(choose_precheck(&[(4, false), (2, false)], 3, m), Some(1));
        assert_eq!(choose_precheck(&[(2, false), (4, true)], 3, m), Some(1));
        // 2 blocks at k = 5: 2 x 529 descents, over the fallback; at k = 40 the ball does
        // not fit at all.
        assert_eq!(choose_precheck(&[(2, true)], 5, m), None);
        assert_eq!(precheck_cost(2, 40, m, true), None);
        // An empty table: every set is just its descents.
        assert_eq!(precheck_cost(4, 3, 0.0, false), Some(4.0));
    }
}
