//! Connected components of pairs over arbitrary ids: what `simhash_components` joins from
//! the pairs every shard reports (fingerprints' and similarity's alike).

use std::collections::HashMap;

use super::UnionFind;

/// Connected components of a graph given by its edges, over arbitrary `i64` ids
/// (the crate's one union-find). Memory, from the structures' sizes: the id → index map
/// about 29 B per id (16-byte buckets and a control byte, at most 7/8 full), ids and
/// parents 12 B (up to twice that while the vectors grow), the sorted result 16 B and the
/// per-root tables 12 B: about 60 B per distinct id.
#[derive(Default)]
pub struct Components {
    index: HashMap<i64, u32>,
    ids: Vec<i64>,
    sets: UnionFind,
}

impl Components {
    pub fn new() -> Components {
        Components::default()
    }

    fn node(&mut self, id: i64) -> u32 {
        let next = self.ids.len() as u32;
        let i = *self.index.entry(id).or_insert(next);
        if i == next {
            self.ids.push(id);
            self.sets.push();
        }
        i
    }

    /// Adds the edge `a`–`b` (a self-loop adds `a` alone, in a component of its own).
    pub fn add(&mut self, a: i64, b: i64) {
        let (i, j) = (self.node(a), self.node(b));
        self.sets.union(i, j);
    }

    /// `(component, id)` for every id in a component of two or more ids, `component` the
    /// component's smallest id, as `simhash_clusters` numbers them; sorted.
    pub fn into_sorted(mut self) -> Vec<(i64, i64)> {
        let ids = &self.ids;
        let mut out = self.sets.components(|i| std::iter::once(ids[i]), &mut || {});
        out.sort_unstable();
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::bulk::test_support::brute_components;
    use proptest::prelude::*;

    #[test]
    fn components_number_by_smallest_id() {
        let mut c = Components::new();
        for (a, b) in [(5, 9), (9, 2), (7, 8), (3, 3), (10, 11), (11, 10)] {
            c.add(a, b);
        }
        assert_eq!(c.into_sorted(), vec![(2, 2), (2, 5), (2, 9), (7, 7), (7, 8), (10, 10), (10, 11)]);
    }

    proptest! {
        /// Components equal a brute-force labelling ([`brute_components`]).
        #[test]
        fn components_equal_brute_force(edges in proptest::collection::vec((0i64..30, 0i64..30), 0..40)) {
            let mut c = Components::new();
            for &(a, b) in &edges {
                c.add(a, b);
            }
            prop_assert_eq!(c.into_sorted(), brute_components(&edges));
        }
    }
}
