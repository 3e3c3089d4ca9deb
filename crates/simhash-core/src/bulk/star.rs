//! Star clusters: clusters a DELETE can trust. Rows are taken in ascending id order; a row
//! with a pair to a kept row of smaller id is removed into the nearest such row's cluster
//! (the highest score, ties to the smaller id), any other row is kept. So every removed
//! row's `cluster_id` is a kept row it is paired with, itself a near-duplicate by whatever
//! decided the pairs: no chain A ~ B ~ C removes C for a kept A it is nothing like, as
//! connected components do ([`super::UnionFind`]). The kept rows are the lexicographically
//! first maximal independent set of the pairs' graph, by id.
//!
//! Memory: 16 bytes a pair and about 40 a row in a pair, until the clusters are out.

use std::collections::HashMap;

/// Pairs gathered for their star clusters.
#[derive(Default)]
pub struct Stars {
    index: HashMap<i64, u32>,
    ids: Vec<i64>,
    /// `(node, other node, score)`, each pair once.
    pairs: Vec<(u32, u32, f64)>,
}

impl Stars {
    pub fn new() -> Stars {
        Stars::default()
    }

    /// A pair and its score, the higher the nearer (a similarity; a negated distance). A pair
    /// of one id is no pair.
    pub fn add(&mut self, id1: i64, id2: i64, score: f64) {
        if id1 == id2 {
            return;
        }
        let mut node = |id: i64| {
            *self.index.entry(id).or_insert_with(|| {
                self.ids.push(id);
                (self.ids.len() - 1) as u32
            })
        };
        let (a, b) = (node(id1), node(id2));
        self.pairs.push((a, b, score));
    }

    /// `(id, cluster_id)` for every id in a pair, `cluster_id` the kept row its cluster is
    /// around (its own id for a kept row), sorted by `(cluster_id, id)`; `tick` every 2^16
    /// pairs.
    pub fn clusters(self, tick: &mut dyn FnMut()) -> Vec<(i64, i64)> {
        let Stars { ids, mut pairs, .. } = self;
        // Each pair under its row of larger id, best partner first.
        for p in pairs.iter_mut() {
            if ids[p.0 as usize] < ids[p.1 as usize] {
                (p.0, p.1) = (p.1, p.0);
            }
        }
        pairs.sort_unstable_by(|x, y| {
            (ids[x.0 as usize], ids[x.1 as usize])
                .cmp(&(ids[y.0 as usize], ids[y.1 as usize]))
                .then(y.2.total_cmp(&x.2))
        });
        // Rows by id: a row's partners of smaller id are decided before it.
        let mut center: Vec<Option<u32>> = vec![None; ids.len()];
        let mut at = 0;
        while at < pairs.len() {
            let row = pairs[at].0;
            let end = at + pairs[at..].iter().take_while(|p| p.0 == row).count();
            let mut best: Option<(f64, i64, u32)> = None;
            for &(_, other, score) in &pairs[at..end] {
                let kept = center[other as usize].is_none();
                let candidate = (score, ids[other as usize], other);
                if kept && best.is_none_or(|b| score > b.0 || (score == b.0 && candidate.1 < b.1)) {
                    best = Some(candidate);
                }
            }
            center[row as usize] = best.map(|b| b.2);
            if at >> 16 != end >> 16 {
                tick();
            }
            at = end;
        }
        let mut out: Vec<(i64, i64)> =
            (0..ids.len()).map(|n| (ids[center[n].unwrap_or(n as u32) as usize], ids[n])).collect();
        out.sort_unstable();
        out.into_iter().map(|(c, id)| (id, c)).collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn stars(pairs: &[(i64, i64, f64)]) -> Vec<(i64, i64)> {
        let mut s = Stars::new();
        for &(a, b, x) in pairs {
            s.add(a, b, x);
        }
        s.clusters(&mut || ())
    }

    #[test]
    fn a_chain_keeps_its_far_end() {
        // 1 ~ 2 ~ 3: 2 goes to 1; 3's only partner is removed, so 3 is kept.
        assert_eq!(stars(&[(1, 2, 0.9), (2, 3, 0.9)]), [(1, 1), (2, 1), (3, 3)]);
        // 3 also pairs with 1: it goes to 1.
        assert_eq!(stars(&[(2, 3, 0.9), (1, 2, 0.6), (3, 1, 0.7)]), [(1, 1), (2, 1), (3, 1)]);
        // The nearest kept partner, ties to the smaller id.
        assert_eq!(stars(&[(1, 5, 0.6), (2, 5, 0.8), (4, 5, 0.8)]), [(1, 1), (2, 2), (5, 2), (4, 4)]);
        assert!(stars(&[(7, 7, 1.0)]).is_empty());
    }

    proptest! {
        /// Against the definition, row by row in id order, on small random graphs: every
        /// removed row's cluster is a kept row it is paired with, and no two kept rows are.
        #[test]
        fn the_lexicographically_first_independent_set(edges in prop::collection::vec((0i64..12, 0i64..12, 0u8..4), 0..40)) {
            let pairs: Vec<(i64, i64, f64)> = edges.iter().map(|&(a, b, s)| (a, b, f64::from(s) / 4.0)).collect();
            let got: HashMap<i64, i64> = stars(&pairs).into_iter().collect();
            let mut kept = std::collections::BTreeSet::new();
            for id in 0..12 {
                let partners: Vec<(f64, i64)> = pairs.iter()
                    .filter_map(|&(a, b, s)| if a == id && b != id { Some((s, b)) } else if b == id && a != id { Some((s, a)) } else { None })
                    .collect();
                if partners.is_empty() {
                    prop_assert!(!got.contains_key(&id));
                    continue;
                }
                let best = partners.iter().filter(|p| p.1 < id && kept.contains(&p.1))
                    .max_by(|x, y| x.0.total_cmp(&y.0).then(y.1.cmp(&x.1)));
                match best {
                    Some(&(_, c)) => prop_assert_eq!(got[&id], c),
                    None => { kept.insert(id); prop_assert_eq!(got[&id], id); }
                }
            }
        }
    }
}
