//! The test oracles every bulk search shares: a progress callback that ignores everything,
//! a seeded random generator, and connected components by brute force.

use std::collections::{BTreeMap, HashMap};

use super::Progress;

/// A progress callback that ignores everything.
pub(crate) fn nop(_: Progress) {}

/// A xorshift64 generator: the tests' random fingerprints, the same on every run.
pub(crate) struct Rng(pub(crate) u64);
impl Rng {
    pub(crate) fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
}

/// Components by brute force: every id of an edge labelled with the smallest id it is
/// connected to, by relaxing the edges until nothing changes; `(component, id)` for the
/// components of two or more ids, sorted, as [`super::Components::into_sorted`].
pub(crate) fn brute_components(edges: &[(i64, i64)]) -> Vec<(i64, i64)> {
    let mut label: BTreeMap<i64, i64> = edges.iter().flat_map(|&(a, b)| [(a, a), (b, b)]).collect();
    loop {
        let mut changed = false;
        for &(a, b) in edges {
            let m = label[&a].min(label[&b]);
            for x in [a, b] {
                if label[&x] != m {
                    label.insert(x, m);
                    changed = true;
                }
            }
        }
        if !changed {
            break;
        }
    }
    let mut size: HashMap<i64, usize> = HashMap::new();
    for &l in label.values() {
        *size.entry(l).or_default() += 1;
    }
    let mut v: Vec<(i64, i64)> = label.into_iter().filter(|(_, l)| size[l] >= 2).map(|(id, l)| (l, id)).collect();
    v.sort_unstable();
    v
}
