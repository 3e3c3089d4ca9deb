//! Why two texts are similar: every distinct shingle and figure of either, and which text has
//! it (`simhash_explain(a, b)`). The shared shingles over all of them, times the figures'
//! agreement, is the similarity; over a's (or b's) shingles, times the agreement of a's (b's)
//! figures, the containment of a in b (of b in a): the same counts the measures make
//! (measure.rs). Under measure 1 there are no figures.

use std::collections::HashMap;

use super::measure::{agreement, jaccard, share};
use super::shingles::{scan, Figures, Item, Version, Window};

/// What an explained item is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Kind {
    Shingle,
    Figure,
}

impl Kind {
    /// Its name in `simhash_explain`'s rows.
    pub fn name(self) -> &'static str {
        match self {
            Kind::Shingle => "shingle",
            Kind::Figure => "figure",
        }
    }
}

/// A distinct shingle or figure of either text, as the measure reads it (its kept characters;
/// a figure as normalized, separators included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Shingle {
    pub kind: Kind,
    pub text: String,
    pub in_a: bool,
    pub in_b: bool,
}

/// The shingles and figures of `a` under version `v` in order of first occurrence, then
/// those of `b` that `a` has not, and the similarity, containment of a in b and of b in a
/// that they add up to.
pub fn explain(a: &str, b: &str, v: Version, tick: &mut dyn FnMut()) -> (Vec<Shingle>, f64, f64, f64) {
    let mut rows: Vec<Shingle> = Vec::new();
    let mut at: HashMap<(Kind, u64), usize> = HashMap::new();
    for (doc, in_a) in [(a, true), (b, false)] {
        let mut window = Window::default();
        let mut each = |kind: Kind, h: u64, text: &str| {
            let i = *at.entry((kind, h)).or_insert_with(|| {
                rows.push(Shingle { kind, text: text.to_owned(), in_a: false, in_b: false });
                rows.len() - 1
            });
            if in_a {
                rows[i].in_a = true;
            } else {
                rows[i].in_b = true;
            }
        };
        let mut whole = String::new();
        let mut figures = (v == Version::M2).then(Figures::with_text);
        scan(doc, v, tick, figures.as_mut(), |item, text| match item {
            Item::Char(c) => {
                whole.push(c);
                if let Some(h) = window.push(c) {
                    each(Kind::Shingle, h, &window.current());
                }
            }
            Item::Figure(h) => each(Kind::Figure, h, text),
        });
        if let Some(h) = window.finish() {
            each(Kind::Shingle, h, &whole);
        }
    }
    let count = |kind: Kind, f: fn(&Shingle) -> bool| rows.iter().filter(|r| r.kind == kind && f(r)).count();
    let (na, nb, both) = (
        count(Kind::Shingle, |r| r.in_a),
        count(Kind::Shingle, |r| r.in_b),
        count(Kind::Shingle, |r| r.in_a && r.in_b),
    );
    let (fa, fb, fboth) =
        (count(Kind::Figure, |r| r.in_a), count(Kind::Figure, |r| r.in_b), count(Kind::Figure, |r| r.in_a && r.in_b));
    let similarity = jaccard(both, na, nb) * agreement(fboth, fa.min(fb));
    (rows, similarity, share(both, na) * agreement(fboth, fa), share(both, nb) * agreement(fboth, fb))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::measure::{containment, similarity, Sets};

    #[test]
    fn the_rows_add_up_to_the_measures() {
        for (a, b) in [
            ("中共中央总书记、国家主席江泽民发表新年讲话", "中共中央总书记江泽民发表了新年讲话"),
            (
                "Changed in version 3.6: Accepts a path-like object.",
                "Changed in version 3.8: Accepts a path-like object.",
            ),
            ("本报北京１月５日讯　江泽民发表１９９８年新年讲话。", "江泽民发表１９９８年新年讲话"),
            ("ab", "ab"),
            ("", "abc"),
        ] {
            for v in [Version::M1, Version::M2] {
                let (rows, s, ab, ba) = explain(a, b, v, &mut || ());
                let (sa, sb) = (Sets::of(a, v, &mut || ()), Sets::of(b, v, &mut || ()));
                assert_eq!(s, similarity(&sa, &sb));
                assert_eq!(ab, containment(&sa, &sb));
                assert_eq!(ba, containment(&sb, &sa));
                let n = |k: Kind, f: fn(&Shingle) -> bool| rows.iter().filter(|r| r.kind == k && f(r)).count();
                assert_eq!(n(Kind::Shingle, |r| r.in_a), sa.shingles.len());
                assert_eq!(n(Kind::Shingle, |r| r.in_b), sb.shingles.len());
                assert_eq!(
                    (n(Kind::Figure, |r| r.in_a), n(Kind::Figure, |r| r.in_b)),
                    (sa.figures.len(), sb.figures.len())
                );
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
        // Measure 2 reads them as written, and each year as a figure: nothing is shared.
        let (rows, s, ..) = explain("新闻2024年", "新闻1998年", Version::M2, &mut || ());
        assert_eq!(rows.iter().filter(|r| r.in_a && r.in_b).count(), 0);
        assert_eq!(
            rows.iter().filter(|r| r.kind == Kind::Figure).map(|r| r.text.as_str()).collect::<Vec<_>>(),
            ["2024", "1998"]
        );
        assert_eq!(s, 0.0);
    }
}
