//! Step 2 of the decision: where two token sequences differ. The result is the list of
//! *hunks*, the maximal stretches between matched tokens, in order: a hunk with tokens on
//! one side only is an insertion or a deletion (a repost's dropped sentence, added source
//! line, cut end), one with tokens on both sides a substitution (a slot filled otherwise:
//! "black" → "brown", 乔石 → 李岚清).
//!
//! The matched tokens are a common subsequence found as patience diff finds one (Bram Cohen;
//! git's `--patience`): strip the common prefix and suffix; match the tokens that occur once
//! on each side, in the longest chain that keeps both orders; recurse into the gaps between
//! them. A gap small enough ([`DP_CELLS`]) is aligned exactly by the longest common
//! subsequence (dynamic programming, as Myers' diff would find it); a gap with no token unique
//! to both sides, and too large for that, is one hunk. Time is about linear in the tokens for
//! texts that are near-duplicates, and memory is linear in them, whatever the gaps.

use std::collections::HashMap;

use super::tokens::{Kind, Token, Tokens};

/// The heaviest matched run that can be an island (two CJK characters, a short word).
pub const ISLAND: u32 = 4;

/// A gap of at most this many cells (tokens of one side times the other's) is aligned by
/// dynamic programming: 64 KiB of `u16`, 256 × 256 tokens.
pub const DP_CELLS: usize = 1 << 16;

/// A stretch between matched tokens: `a[a0..a1]` against `b[b0..b1]`, one side possibly empty.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Hunk {
    pub a0: usize,
    pub a1: usize,
    pub b0: usize,
    pub b1: usize,
}

impl Hunk {
    /// Tokens on both sides: a substitution.
    pub fn is_substitution(&self) -> bool {
        self.a1 > self.a0 && self.b1 > self.b0
    }
}

/// The hunks of `a` against `b`, in order; `tick` now and then (a check for cancellation).
pub fn hunks(a: &[u64], b: &[u64], tick: &mut dyn FnMut()) -> Vec<Hunk> {
    hunks_from(a, b, true, tick)
}

/// [`hunks`]; `at_start`: `a` and `b` begin their texts, so that of the longest common
/// subsequences of a gap at their start the one matching as late as it can is taken: what
/// one text has before it is then an edge insertion (a source line, a sentence added before),
/// not an island of a word it happens to share ("《澳门日报》元旦献辞说…" before "献辞总结了…").
fn hunks_from(a: &[u64], b: &[u64], at_start: bool, tick: &mut dyn FnMut()) -> Vec<Hunk> {
    let mut out = Vec::new();
    // Ranges still to align, the next one last (so the hunks come out in order).
    let mut todo = vec![(0, a.len(), 0, b.len())];
    while let Some((mut a0, mut a1, mut b0, mut b1)) = todo.pop() {
        tick();
        while a0 < a1 && b0 < b1 && a[a0] == b[b0] {
            a0 += 1;
            b0 += 1;
        }
        while a0 < a1 && b0 < b1 && a[a1 - 1] == b[b1 - 1] {
            a1 -= 1;
            b1 -= 1;
        }
        if a0 == a1 || b0 == b1 {
            if a0 < a1 || b0 < b1 {
                out.push(Hunk { a0, a1, b0, b1 });
            }
            continue;
        }
        if (a1 - a0) * (b1 - b0) <= DP_CELLS {
            let late = at_start && (a0 == 0 || b0 == 0);
            lcs(a, b, (a0, a1, b0, b1), late, &mut out);
            continue;
        }
        let chain = unique_chain(&a[a0..a1], &b[b0..b1]);
        if chain.is_empty() {
            out.push(Hunk { a0, a1, b0, b1 });
            continue;
        }
        // The gaps between the anchors, pushed last first.
        let mut ends = (a1, b1);
        for &(i, j) in chain.iter().rev() {
            let (i, j) = (a0 + i, b0 + j);
            todo.push((i + 1, ends.0, j + 1, ends.1));
            ends = (i, j);
        }
        todo.push((a0, ends.0, b0, ends.1));
    }
    out
}

/// The hunks of `a` against `b`: first of their sentences, each a unit (a sentence moved,
/// dropped or added whole is matched or left whole, whatever the characters it shares with
/// others), then of the tokens of each run of sentences left unmatched.
pub fn by_sentences(a: &Tokens, b: &Tokens, tick: &mut dyn FnMut()) -> Vec<Hunk> {
    let (sa, sb) = (a.sentences(), b.sentences());
    let hash =
        |t: &Tokens, s: &[(usize, usize)]| -> Vec<u64> { s.iter().map(|&(x0, x1)| t.run_hash(x0..x1)).collect() };
    let (ha, hb) = (a.hashes(), b.hashes());
    let mut out = Vec::new();
    for s in hunks(&hash(a, &sa), &hash(b, &sb), tick) {
        // The tokens of sentences s.a0..s.a1 and s.b0..s.b1.
        let span = |x: &[(usize, usize)], i0: usize, i1: usize, len: usize| {
            if i0 < i1 {
                (x[i0].0, x[i1 - 1].1)
            } else {
                let at = x.get(i0).map_or(len, |p| p.0);
                (at, at)
            }
        };
        let (a0, a1) = span(&sa, s.a0, s.a1, ha.len());
        let (b0, b1) = span(&sb, s.b0, s.b1, hb.len());
        for h in hunks_from(&ha[a0..a1], &hb[b0..b1], a0 == 0 && b0 == 0, tick) {
            out.push(Hunk { a0: a0 + h.a0, a1: a0 + h.a1, b0: b0 + h.b0, b1: b0 + h.b1 });
        }
    }
    out
}

/// The hunks with every matched run between two of them that is lighter than the heavier
/// side of each neighbour merged into them: one token that two unrelated phrases happen to
/// share ("的", "the") is no anchor (diff-match-patch's semantic cleanup, Fraser 2006).
pub fn merge_islands(a: &[Token], b: &[Token], hunks: Vec<Hunk>) -> Vec<Hunk> {
    // A matched figure is an anchor, never an island.
    let w = |t: &[Token]| -> u32 {
        t.iter().map(|x| if x.kind == Kind::Figure { u32::MAX / 4 } else { x.weight }).fold(0, u32::saturating_add)
    };
    let heavier = |h: &Hunk| w(&a[h.a0..h.a1]).max(w(&b[h.b0..h.b1]));
    let mut out: Vec<Hunk> = Vec::with_capacity(hunks.len());
    for h in hunks {
        if let Some(last) = out.last_mut() {
            let island = w(&a[last.a1..h.a0]);
            if island <= ISLAND && island <= heavier(last).min(heavier(&h)) {
                *last = Hunk { a0: last.a0, a1: h.a1, b0: last.b0, b1: h.b1 };
                // The merged hunk may now swallow the island before it.
                while out.len() >= 2 {
                    let (p, q) = (out[out.len() - 2], out[out.len() - 1]);
                    let island = w(&a[p.a1..q.a0]);
                    if island <= ISLAND && island <= heavier(&p).min(heavier(&q)) {
                        out.pop();
                        *out.last_mut().expect("two hunks") = Hunk { a0: p.a0, a1: q.a1, b0: p.b0, b1: q.b1 };
                    } else {
                        break;
                    }
                }
                continue;
            }
        }
        out.push(h);
    }
    out
}

/// The tokens that occur exactly once in `a` and once in `b`, as (position in a, position in
/// b), in the longest chain increasing on both sides (patience sorting).
fn unique_chain(a: &[u64], b: &[u64]) -> Vec<(usize, usize)> {
    // hash -> (count in a, position in a, count in b, position in b)
    let mut seen: HashMap<u64, (u32, usize, u32, usize)> = HashMap::with_capacity(a.len());
    for (i, &h) in a.iter().enumerate() {
        let e = seen.entry(h).or_insert((0, i, 0, 0));
        e.0 += 1;
    }
    for (j, &h) in b.iter().enumerate() {
        if let Some(e) = seen.get_mut(&h) {
            e.2 += 1;
            e.3 = j;
        }
    }
    let mut anchors: Vec<(usize, usize)> = seen.values().filter(|e| e.0 == 1 && e.2 == 1).map(|e| (e.1, e.3)).collect();
    anchors.sort_unstable();
    longest_increasing(&anchors)
}

/// The longest subsequence of `pairs` (sorted by their first) increasing in their second.
fn longest_increasing(pairs: &[(usize, usize)]) -> Vec<(usize, usize)> {
    // tails[k]: the index of the smallest last second of a chain of length k + 1.
    let mut tails: Vec<usize> = Vec::new();
    let mut prev = vec![usize::MAX; pairs.len()];
    for (i, &(_, y)) in pairs.iter().enumerate() {
        let k = tails.partition_point(|&t| pairs[t].1 < y);
        if k > 0 {
            prev[i] = tails[k - 1];
        }
        if k == tails.len() {
            tails.push(i);
        } else {
            tails[k] = i;
        }
    }
    let mut chain = Vec::with_capacity(tails.len());
    let mut at = tails.last().copied().unwrap_or(usize::MAX);
    while at != usize::MAX {
        chain.push(pairs[at]);
        at = prev[at];
    }
    chain.reverse();
    chain
}

/// The hunks of `a[a0..a1]` against `b[b0..b1]` by their longest common subsequence, the one
/// matching as early as it can, or with `late` as late as it can (the same walk over the two
/// gaps reversed).
fn lcs(a: &[u64], b: &[u64], (a0, a1, b0, b1): (usize, usize, usize, usize), late: bool, out: &mut Vec<Hunk>) {
    if !late {
        return lcs_early(a, b, (a0, a1, b0, b1), out);
    }
    let (ra, rb): (Vec<u64>, Vec<u64>) =
        (a[a0..a1].iter().rev().copied().collect(), b[b0..b1].iter().rev().copied().collect());
    let mut reversed = Vec::new();
    lcs_early(&ra, &rb, (0, ra.len(), 0, rb.len()), &mut reversed);
    let (n, m) = (ra.len(), rb.len());
    out.extend(reversed.iter().rev().map(|h| Hunk {
        a0: a0 + n - h.a1,
        a1: a0 + n - h.a0,
        b0: b0 + m - h.b1,
        b1: b0 + m - h.b0,
    }));
}

/// [`lcs`], matching as early as it can.
fn lcs_early(a: &[u64], b: &[u64], (a0, a1, b0, b1): (usize, usize, usize, usize), out: &mut Vec<Hunk>) {
    let (n, m) = (a1 - a0, b1 - b0);
    // l[i][j]: the LCS of a[a0 + i..a1] and b[b0 + j..b1] (suffixes, so the walk goes forward).
    let w = m + 1;
    let mut l = vec![0u16; (n + 1) * w];
    for i in (0..n).rev() {
        for j in (0..m).rev() {
            l[i * w + j] = if a[a0 + i] == b[b0 + j] {
                l[(i + 1) * w + j + 1] + 1
            } else {
                l[(i + 1) * w + j].max(l[i * w + j + 1])
            };
        }
    }
    let (mut i, mut j) = (0, 0);
    let mut open: Option<(usize, usize)> = None;
    let mut close = |open: &mut Option<(usize, usize)>, i: usize, j: usize| {
        if let Some((si, sj)) = open.take() {
            out.push(Hunk { a0: a0 + si, a1: a0 + i, b0: b0 + sj, b1: b0 + j });
        }
    };
    while i < n || j < m {
        if i < n && j < m && a[a0 + i] == b[b0 + j] {
            close(&mut open, i, j);
            i += 1;
            j += 1;
            continue;
        }
        open.get_or_insert((i, j));
        if j == m || (i < n && l[(i + 1) * w + j] >= l[i * w + j + 1]) {
            i += 1;
        } else {
            j += 1;
        }
    }
    close(&mut open, i, j);
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn h(s: &str) -> Vec<u64> {
        s.chars().map(|c| c as u64).collect()
    }

    /// The tokens matched by a list of hunks: everything outside them, in order, the same on
    /// both sides.
    fn matched(a: &[u64], b: &[u64], hs: &[Hunk]) -> usize {
        let (mut i, mut j, mut n) = (0, 0, 0);
        for x in hs.iter().chain([&Hunk { a0: a.len(), a1: a.len(), b0: b.len(), b1: b.len() }]) {
            assert!(x.a0 >= i && x.b0 >= j && x.a0 - i == x.b0 - j, "{hs:?}");
            assert_eq!(a[i..x.a0], b[j..x.b0]);
            n += x.a0 - i;
            (i, j) = (x.a1, x.b1);
        }
        n
    }

    #[test]
    fn substitutions_and_indels() {
        let (a, b) = (h("xxabcdyy"), h("xxabXdyy"));
        assert_eq!(hunks(&a, &b, &mut || ()), [Hunk { a0: 4, a1: 5, b0: 4, b1: 5 }]);
        let (a, b) = (h("hello world"), h("hello big world"));
        assert_eq!(hunks(&a, &b, &mut || ()), [Hunk { a0: 6, a1: 6, b0: 6, b1: 10 }]);
        assert!(hunks(&a, &a, &mut || ()).is_empty());
        let e: Vec<u64> = vec![];
        assert_eq!(hunks(&e, &a, &mut || ()), [Hunk { a0: 0, a1: 0, b0: 0, b1: 11 }]);
    }

    #[test]
    fn long_texts_use_anchors() {
        // 3,000 distinct tokens, one substituted and a run inserted: past DP_CELLS.
        let a: Vec<u64> = (0..3000).collect();
        let mut b = a.clone();
        b[1000] = 99_999;
        b.splice(2000..2000, 100_000..100_050);
        let hs = hunks(&a, &b, &mut || ());
        assert_eq!(
            hs,
            [Hunk { a0: 1000, a1: 1001, b0: 1000, b1: 1001 }, Hunk { a0: 2000, a1: 2000, b0: 2000, b1: 2050 }]
        );
    }

    proptest! {
        /// Whatever the texts, the hunks leave a common subsequence outside them, and for
        /// gaps within DP_CELLS it is a longest one.
        #[test]
        fn a_common_subsequence(a in "[abcde]{0,120}", b in "[abcde]{0,120}") {
            let (a, b) = (h(&a), h(&b));
            let hs = hunks(&a, &b, &mut || ());
            let n = matched(&a, &b, &hs);
            // The longest, by a plain table.
            let mut l = vec![vec![0usize; b.len() + 1]; a.len() + 1];
            for i in 0..a.len() {
                for j in 0..b.len() {
                    l[i + 1][j + 1] = if a[i] == b[j] { l[i][j] + 1 } else { l[i][j + 1].max(l[i + 1][j]) };
                }
            }
            prop_assert_eq!(n, l[a.len()][b.len()]);
        }

        #[test]
        fn long_common_subsequence(seed in 0u64..1000, n in 300usize..1500) {
            // Distinct tokens with scattered edits: the anchors' path, still a common subsequence.
            let a: Vec<u64> = (0..n as u64).map(|i| i * 7919 % 100_003).collect();
            let mut b = a.clone();
            let mut s = seed;
            for _ in 0..20 {
                s = s.wrapping_mul(6364136223846793005).wrapping_add(1442695040888963407);
                let at = (s >> 33) as usize % b.len();
                match s % 3 { 0 => { b.remove(at); } 1 => b.insert(at, 200_000 + s % 1000), _ => b[at] = 300_000 + s % 1000 }
            }
            let hs = hunks(&a, &b, &mut || ());
            let m = matched(&a, &b, &hs);
            prop_assert!(m + 40 >= n, "{} of {}", m, n);
        }
    }
}
