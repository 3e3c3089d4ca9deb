//! Every pair of a set of texts at a similarity or containment threshold, exactly: the
//! brute force the index and the bulk pairs are checked against (tests, `make quality`),
//! by prefix filtering (Chaudhuri, Ganti and Kaushik 2006; Bayardo, Ma and Srikant 2007,
//! "AllPairs"), which finds the same pairs as comparing every two texts in far less time.
//!
//! With the shingles of every text ordered rarest first (ties by hash), two sets with
//! `|A∩B| ≥ t` share one of the first `|A| − t + 1` of A and of B: the shared shingles
//! cannot all sit past both prefixes. For a similarity `J ≥ θ`, `|A∩B| ≥ ⌈θ|A|⌉` (as
//! `|A∪B| ≥ |A|`); for a containment of A in B of at least γ, `|A∩B| ≥ ⌈γ|A|⌉` and every
//! shingle of B may be the shared one, so A's prefix is looked up among all of B's.

use std::collections::HashMap;

use super::measure::{containment, similarity, Sets};

/// A pair of texts `(i, j)`, `i < j`, with its similarity and both containments.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ExactPair {
    pub i: u32,
    pub j: u32,
    pub similarity: f64,
    /// The share of `i`'s shingles found in `j`.
    pub i_in_j: f64,
    /// The share of `j`'s shingles found in `i`.
    pub j_in_i: f64,
}

/// The least `|A∩B|` that a measure at least `t` over a set of `n` asks for (rounded down a
/// hair, so that floating-point error can only lengthen a prefix), at least 1.
fn least_common(n: usize, t: f64) -> usize {
    ((t * n as f64 - 1e-9).ceil() as usize).max(1)
}

/// Every pair of texts (their sets) with similarity ≥ `theta` or either containment ≥ `gamma`
/// (a threshold above 1 asks for none of its kind), ascending by `(i, j)`. Both thresholds
/// must be above 0. The prefixes are the shingles': the figures' agreement is at most 1, so a
/// pair at θ has shingles at θ.
pub fn exact_pairs(texts: &[Sets], theta: f64, gamma: f64) -> Vec<ExactPair> {
    let sets: Vec<&Vec<u64>> = texts.iter().map(|t| &t.shingles).collect();
    assert!(theta > 0.0 && gamma > 0.0, "thresholds above 0");
    let mut df: HashMap<u64, u32> = HashMap::new();
    for s in &sets {
        for &h in s.iter() {
            *df.entry(h).or_default() += 1;
        }
    }
    // Each set rarest first.
    let ordered: Vec<Vec<u64>> = sets
        .iter()
        .map(|s| {
            let mut o = (*s).clone();
            o.sort_unstable_by_key(|h| (df[h], *h));
            o
        })
        .collect();
    // Candidates: pairs sharing a prefix shingle (similarity: both prefixes; containment of
    // A in B: A's prefix and all of B).
    let mut candidates: Vec<(u32, u32)> = Vec::new();
    let mut prefix_index: HashMap<u64, Vec<u32>> = HashMap::new();
    let mut full_index: HashMap<u64, Vec<u32>> = HashMap::new();
    if gamma <= 1.0 {
        for (j, s) in sets.iter().enumerate() {
            for &h in s.iter() {
                full_index.entry(h).or_default().push(j as u32);
            }
        }
    }
    for (i, o) in ordered.iter().enumerate() {
        if o.is_empty() {
            continue;
        }
        if theta <= 1.0 {
            let p = o.len() + 1 - least_common(o.len(), theta).min(o.len());
            for h in &o[..p] {
                let list = prefix_index.entry(*h).or_default();
                candidates.extend(list.iter().map(|&j| (j, i as u32)));
                list.push(i as u32);
            }
        }
        if gamma <= 1.0 {
            let p = o.len() + 1 - least_common(o.len(), gamma).min(o.len());
            for h in &o[..p] {
                for &j in &full_index[h] {
                    if j as usize != i {
                        candidates.push((j.min(i as u32), j.max(i as u32)));
                    }
                }
            }
        }
    }
    candidates.sort_unstable();
    candidates.dedup();
    candidates
        .into_iter()
        .filter_map(|(i, j)| {
            let p = pair(texts, i, j);
            (p.similarity >= theta || p.i_in_j >= gamma || p.j_in_i >= gamma).then_some(p)
        })
        .collect()
}

/// The pair of texts `i` and `j`, its measures.
fn pair(texts: &[Sets], i: u32, j: u32) -> ExactPair {
    let (a, b) = (&texts[i as usize], &texts[j as usize]);
    ExactPair { i, j, similarity: similarity(a, b), i_in_j: containment(a, b), j_in_i: containment(b, a) }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;

    fn brute(sets: &[Sets], theta: f64, gamma: f64) -> Vec<ExactPair> {
        let mut out = Vec::new();
        for i in 0..sets.len() {
            for j in i + 1..sets.len() {
                let p = pair(sets, i as u32, j as u32);
                if p.similarity >= theta || p.i_in_j >= gamma || p.j_in_i >= gamma {
                    out.push(p);
                }
            }
        }
        out
    }

    proptest! {
        #![proptest_config(ProptestConfig::with_cases(300))]
        /// Prefix filtering finds exactly the pairs brute force finds, at any thresholds.
        #[test]
        fn exact_pairs_are_brute_force(
            raw in prop::collection::vec(
                (prop::collection::btree_set(0u64..40, 0..25), prop::collection::btree_set(0u64..6, 0..4)), 2..30),
            theta in 0.05f64..1.0, gamma in 0.05f64..1.6,
        ) {
            let sets: Vec<Sets> = raw
                .into_iter()
                .map(|(s, f)| Sets { shingles: s.into_iter().collect(), figures: f.into_iter().collect() })
                .collect();
            prop_assert_eq!(exact_pairs(&sets, theta, gamma), brute(&sets, theta, gamma));
        }
    }
}
