//! Why two texts are similar: every distinct shingle of either, and which text has it
//! (`simhash_explain(a, b)`). The shared ones over all of them is the similarity; over a's
//! (or b's), the containment of a in b (of b in a): the same counts the measures make.

use std::collections::HashMap;

use super::measure::{jaccard, share};
use super::shingles::{for_each_char, Version, Window};

/// A distinct shingle of either text, as the measure reads it (its kept characters).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shingle {
    pub text: String,
    pub in_a: bool,
    pub in_b: bool,
}

/// The shingles of `a` under version `v` in order of first occurrence, then those of `b` that
/// `a` has not, and the similarity, containment of a in b and of b in a that they add up to.
pub fn explain(a: &str, b: &str, v: Version, tick: &mut dyn FnMut()) -> (Vec<Shingle>, f64, f64, f64) {
    let mut rows: Vec<Shingle> = Vec::new();
    let mut at: HashMap<u64, usize> = HashMap::new();
    for (doc, in_a) in [(a, true), (b, false)] {
        let mut window = Window::default();
        let mut each = |h: u64, text: String| {
            let i = *at.entry(h).or_insert_with(|| {
                rows.push(Shingle { text, in_a: false, in_b: false });
                rows.len() - 1
            });
            if in_a {
                rows[i].in_a = true;
            } else {
                rows[i].in_b = true;
            }
        };
        let mut whole = String::new();
        for_each_char(doc, v, tick, |c| {
            whole.push(c);
            if let Some(h) = window.push(c) {
                each(h, window.current());
            }
        });
        if let Some(h) = window.finish() {
            each(h, whole);
        }
    }
    let (na, nb) = (rows.iter().filter(|r| r.in_a).count(), rows.iter().filter(|r| r.in_b).count());
    let both = rows.iter().filter(|r| r.in_a && r.in_b).count();
    (rows, jaccard(both, na, nb), share(both, na), share(both, nb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::measure::{containment, shingle_set, similarity};

    #[test]
    fn the_rows_add_up_to_the_measures() {
        for (a, b) in [
            ("中共中央总书记、国家主席江泽民发表新年讲话", "中共中央总书记江泽民发表了新年讲话"),
            (
                "Changed in version 3.6: Accepts a path-like object.",
                "Changed in version 3.8: Accepts a path-like object.",
            ),
            ("ab", "ab"),
            ("", "abc"),
        ] {
            for v in [Version::M1, Version::M2] {
                let (rows, s, ab, ba) = explain(a, b, v, &mut || ());
                let (sa, sb) = (shingle_set(a, v, &mut || ()), shingle_set(b, v, &mut || ()));
                assert_eq!(s, similarity(&sa, &sb));
                assert_eq!(ab, containment(&sa, &sb));
                assert_eq!(ba, containment(&sb, &sa));
                assert_eq!(rows.iter().filter(|r| r.in_a).count(), sa.len());
                assert_eq!(rows.iter().filter(|r| r.in_b).count(), sb.len());
            }
        }
        // The shortest run of width 5 ending at each character (a Han character is 2 wide).
        // Measure 1 reads digits as 0: the two texts have the same shingles.
        let (rows, s, ..) = explain("新闻2024年", "新闻1998年", Version::M1, &mut || ());
        assert_eq!(
            rows.iter().map(|r| r.text.as_str()).collect::<Vec<_>>(),
            ["新闻0", "新闻00", "闻000", "闻0000", "000年"]
        );
        assert_eq!(s, 1.0);
        // Measure 2 reads them as written: only what the years do not change is shared.
        let (rows, s, ..) = explain("新闻2024年", "新闻1998年", Version::M2, &mut || ());
        assert_eq!(rows.iter().filter(|r| r.in_a && r.in_b).count(), 0);
        assert_eq!(rows.len(), 10);
        assert_eq!(s, 0.0);
    }
}
