//! The off-frame join of one template's rows (`templates.rs`): every pair of its members whose
//! shingles off the frame overlap by [`required`] or more, found by prefix filtering (Chaudhuri,
//! Ganti and Kaushik 2006; Bayardo, Ma and Srikant's All-Pairs 2007) in the template's own
//! order of rarity.
//!
//! A member is a row of the template with 1 to [`super::templates::CAP`] shingles off its
//! frame, as the low 32 bits of their hashes (a collision of two makes a candidate more, never
//! one less). Of a pair, the member with fewer such shingles (the lower index on a tie) finds the
//! other: if they share `t = required(s)` of the `s` it has, one of them is among its
//! `s − t + 1` rarest, so it looks up only those, in every member's lists, and each member it
//! meets there is counted exactly. The rarest of a member's shingles are its own content (a
//! function name's letters), held by a copy of it and by few other members; its commonest ones
//! (where the filler meets the frame: "value" and a name's first letters) are held by hundreds,
//! and are looked up only when the member has few shingles.

use super::radix::sort_high;

/// What two members must share, of the `s` off-frame shingles of the one that has fewer: a
/// quarter, and 2 to 8 of them (all of them if it has fewer than 2). A quarter: by brute force
/// over 1,600 rows of three templates and ten edits of 100 of them
/// (`examples/template_pairs`), every pair the decision keeps that is not two edits of one row
/// shares 0.5 of them or more, and two edits of a row (one with a sentence appended, the other
/// with a letter changed) down to 0.18; those are also found through their row (`templates.rs`).
/// Two ([`crate::similarity::frame_keys::FREE_KEYS`]): one is shared by chance by the rows whose
/// names begin with the same two letters. Eight: a member with a long text of its own (a
/// sentence appended to the template) shares its filler with a copy of it, not a quarter.
pub(super) fn required(s: usize) -> usize {
    s.min(s.div_ceil(4).clamp(2, 8))
}

/// The members' off-frame lists: member `i`'s are `free[ends[i−1]..ends[i]]`, ascending, distinct.
pub(super) struct Lists<'a> {
    pub free: &'a [u32],
    pub ends: &'a [u32],
}

impl Lists<'_> {
    pub(super) fn len(&self) -> usize {
        self.ends.len()
    }

    pub(super) fn of(&self, i: usize) -> &[u32] {
        let from = if i == 0 { 0 } else { self.ends[i - 1] as usize };
        &self.free[from..self.ends[i] as usize]
    }
}

/// How many values two ascending lists share.
pub(super) fn shared(a: &[u32], b: &[u32]) -> usize {
    crate::similarity::measure::common(a, b)
}

/// Every (shingle, member) of the members' lists, by shingle, members ascending within.
pub(super) struct Postings {
    /// `(shingle << 32) | entry`, `entry` a place in the lists' flat array.
    entries: Vec<u64>,
    /// Each distinct shingle, and where its entries start (one more at the end).
    keys: Vec<u32>,
    starts: Vec<u32>,
    /// For each place of the flat array: its member, and its shingle's index in `keys`.
    member: Vec<u32>,
    key: Vec<u32>,
}

impl Postings {
    pub(super) fn of(lists: &Lists<'_>, check: &mut dyn FnMut()) -> Postings {
        let mut member = Vec::with_capacity(lists.free.len());
        for i in 0..lists.len() {
            member.extend(std::iter::repeat_n(i as u32, lists.of(i).len()));
        }
        let mut entries: Vec<u64> =
            lists.free.iter().enumerate().map(|(at, &h)| (u64::from(h) << 32) | at as u64).collect();
        sort_high(&mut entries, &mut Vec::new(), check);
        let (mut keys, mut starts, mut key) = (Vec::new(), Vec::new(), vec![0; lists.free.len()]);
        for (at, &p) in entries.iter().enumerate() {
            if keys.last() != Some(&((p >> 32) as u32)) {
                keys.push((p >> 32) as u32);
                starts.push(at as u32);
            }
            key[p as u32 as usize] = keys.len() as u32 - 1;
        }
        starts.push(entries.len() as u32);
        Postings { entries, keys, starts, member, key }
    }

    /// The distinct shingles, ascending.
    pub(super) fn keys(&self) -> &[u32] {
        &self.keys
    }

    /// The `i`th member holding the `k`th distinct shingle ([`Postings::holders`]).
    pub(super) fn holder(&self, k: usize, i: usize) -> u32 {
        self.member[self.entries[self.starts[k] as usize + i] as u32 as usize]
    }

    /// The members holding the `k`th distinct shingle, ascending.
    pub(super) fn holders(&self, k: usize) -> impl ExactSizeIterator<Item = u32> + '_ {
        self.entries[self.starts[k] as usize..self.starts[k + 1] as usize]
            .iter()
            .map(|&e| self.member[e as u32 as usize])
    }
}

/// Every pair `(i, j)`, `i < j`, of members that share [`required`] of the fewer shingles
/// either has in `lists`, ascending, each once. `postings` are of `all`, lists of which each of
/// `lists` is a part (a member's shingles, some of which are frame too: `templates.rs`);
/// `check` now and then (a stop flag).
pub(super) fn pairs(
    lists: &Lists<'_>,
    all: &Lists<'_>,
    postings: &Postings,
    check: &mut dyn FnMut(),
) -> Vec<(u32, u32)> {
    let m = lists.len();
    let order = |i: usize| (lists.of(i).len(), i);
    let mut out = Vec::new();
    let (mut seen, mut met, mut prefix) = (vec![u32::MAX; m], Vec::new(), Vec::new());
    for i in 0..m {
        let own = lists.of(i);
        let t = required(own.len());
        // Each of its shingles' key, by a walk along its whole list, and how many hold it.
        prefix.clear();
        let from = if i == 0 { 0 } else { all.ends[i - 1] as usize };
        let mut at = from;
        for &h in own {
            while all.free[at] != h {
                at += 1;
            }
            let k = postings.key[at] as usize;
            prefix.push((postings.starts[k + 1] - postings.starts[k], k));
        }
        prefix.sort_unstable();
        prefix.truncate(own.len() + 1 - t);
        met.clear();
        for &(_, k) in &prefix {
            for j in postings.holders(k) {
                let j = j as usize;
                if order(j) > order(i) && seen[j] != i as u32 {
                    seen[j] = i as u32;
                    met.push(j);
                }
            }
        }
        for &j in &met {
            if shared(own, lists.of(j)) >= t {
                out.push((i.min(j) as u32, i.max(j) as u32));
            }
        }
        if i & 0xFF == 0 {
            check();
        }
    }
    out.sort_unstable();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn required_is_a_quarter_from_two_to_eight() {
        let want = [(1, 1), (2, 2), (3, 2), (8, 2), (9, 3), (12, 3), (13, 4), (32, 8), (33, 8), (256, 8)];
        for (s, t) in want {
            assert_eq!(required(s), t, "{s}");
        }
    }

    /// Against every pair, over members drawn from vocabularies of a few to many shingles (so
    /// that some are shared by most, as a template's frame-edge shingles are) and sizes 1 to 40.
    #[test]
    fn pairs_are_brute_forces() {
        let mut seed = 5u64;
        let mut found = 0;
        for case in 0..60 {
            let m = 1 + (rng(&mut seed) % 120) as usize;
            let vocabulary = 2 + (case * 7 % 300) as u64;
            let mut free = Vec::new();
            let mut ends = Vec::new();
            for _ in 0..m {
                let n = 1 + (rng(&mut seed) % 40) as usize;
                let mut l: Vec<u32> = (0..n).map(|_| (rng(&mut seed) % vocabulary) as u32 * 7919).collect();
                l.sort_unstable();
                l.dedup();
                free.extend(l);
                ends.push(free.len() as u32);
            }
            let lists = Lists { free: &free, ends: &ends };
            let mut want = Vec::new();
            for i in 0..m {
                for j in i + 1..m {
                    let (a, b) = (lists.of(i), lists.of(j));
                    if shared(a, b) >= required(a.len().min(b.len())) {
                        want.push((i as u32, j as u32));
                    }
                }
            }
            found += want.len();
            let postings = Postings::of(&lists, &mut || ());
            assert_eq!(
                pairs(&lists, &lists, &postings, &mut || ()),
                want,
                "case {case}: {m} members of {vocabulary} shingles"
            );
        }
        assert!(found > 1000, "{found} pairs");
    }
}
