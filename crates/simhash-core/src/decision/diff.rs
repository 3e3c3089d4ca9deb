//! Step 3 of the decision: what each hunk holds and where it sits. A hunk's sides are summed
//! (tokens, weight, figures), placed (at an edge of both texts, between sentences, between
//! clauses: a repost adds and drops whole sentences, a source line, a footer) and compared
//! (the edit distance of two short sides: a typo; a word cut at the end: a truncated copy;
//! a side that is another hunk's other side: a passage moved; figures one side has and the
//! other has not).

use std::collections::HashMap;
use std::ops::Range;

use super::align::{self, Hunk};
use super::tokens::{Kind, Token, Tokens};

/// Characters on a side beyond which a hunk's edit distance is not computed: no typo is
/// that long.
pub const SHORT: usize = 64;

/// One side of a hunk.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Side {
    pub tokens: u32,
    pub weight: u32,
    /// Its characters (for the typo rule).
    pub chars: u32,
    /// Its tokens are whole sentences (a sentence end, or the text's start, before them, and
    /// one at their end), where they stand or slid over equal tokens.
    pub sentences: bool,
    /// The same for clauses (any punctuation).
    pub clauses: bool,
    /// Its tokens are another hunk's other side: a passage moved.
    pub moved: bool,
}

/// A hunk with what its sides hold and where it sits.
#[derive(Debug, Clone, Copy)]
pub struct Diff {
    pub hunk: Hunk,
    pub a: Side,
    pub b: Side,
    /// The edit distance of the two sides' characters, when both have at most [`SHORT`].
    pub distance: Option<u32>,
    /// It can sit at the start or the end of both texts.
    pub edge: bool,
    /// At the end of both texts, one side is a word or figure that begins the other side's
    /// first token and ends its text bare (a copy cut inside a word), or the text without it
    /// ends with an ellipsis (its writer cut it there).
    pub truncated: bool,
    /// Figures on one side that the other side does not have, both sides counted.
    pub figures_changed: u32,
}

/// Two texts' tokens and their hunks.
pub struct Comparison<'t> {
    pub a: &'t Tokens,
    pub b: &'t Tokens,
    pub diffs: Vec<Diff>,
    /// Side a is the second text given and b the first: the two are compared in one order
    /// whichever comes first, so that the decision on a pair does not depend on it.
    pub swapped: bool,
}

/// How many tokens in a row make a run that [`Comparison::shared`] finds in the other text's
/// hunks: 4 tokens, a phrase rather than a word or two that any texts share. With moved
/// passages alone the floor kept apart 19 of 300 English paragraphs with two sentences swapped
/// (their ends drawn into neighbouring hunks); with these runs, 1.
pub const SHARED_RUN: usize = 4;

impl<'t> Comparison<'t> {
    /// The hunks of two texts' tokens, in their canonical order ([`Comparison::swapped`]);
    /// `tick` now and then (a check for cancellation).
    pub fn of(ta: &'t Tokens, tb: &'t Tokens, tick: &mut dyn FnMut()) -> Comparison<'t> {
        let key = |t: &Tokens| (t.tokens.len(), t.run_hash(0..t.tokens.len()), t.cut);
        let swapped = key(tb) < key(ta);
        let (ta, tb) = if swapped { (tb, ta) } else { (ta, tb) };
        let hunks = align::merge_islands(&ta.tokens, &tb.tokens, align::by_sentences(ta, tb, tick));
        let diffs = hunks.iter().enumerate().map(|(k, &h)| describe(ta, tb, &hunks, k, h)).collect();
        let mut c = Comparison { a: ta, b: tb, diffs, swapped };
        c.find_moves();
        c
    }

    /// The weight of the tokens that are in no hunk (the same on both sides).
    pub fn matched(&self) -> u64 {
        self.a.weight() - self.diffs.iter().map(|d| u64::from(d.a.weight)).sum::<u64>()
    }

    /// The weight of side a's tokens that side b has too: [`Comparison::matched`], the
    /// passages that moved, and in the other hunks the tokens of every run of [`SHARED_RUN`]
    /// that b's hunks hold too (a moved passage whose ends the alignment drew elsewhere). Two
    /// sentences swapped share the whole text.
    pub fn shared(&self) -> u64 {
        fn runs(t: &Tokens, r: Range<usize>) -> impl Iterator<Item = (usize, u64)> + '_ {
            (r.start..r.end.saturating_sub(SHARED_RUN - 1)).map(move |i| (i, t.run_hash(i..i + SHARED_RUN)))
        }
        let in_b: std::collections::HashSet<u64> =
            self.diffs.iter().flat_map(|d| runs(self.b, d.hunk.b0..d.hunk.b1).map(|(_, h)| h)).collect();
        let mut shared = self.matched();
        for d in &self.diffs {
            if d.a.moved {
                shared += u64::from(d.a.weight);
                continue;
            }
            let mut covered = d.hunk.a0;
            for (i, h) in runs(self.a, d.hunk.a0..d.hunk.a1) {
                if in_b.contains(&h) {
                    let from = covered.max(i);
                    shared += self.a.tokens[from..i + SHARED_RUN].iter().map(|t| u64::from(t.weight)).sum::<u64>();
                    covered = i + SHARED_RUN;
                }
            }
        }
        shared
    }

    /// The characters of side a (`true`) or b of diff `d`, a space between tokens.
    pub fn side_text(&self, d: &Diff, a: bool) -> String {
        let (t, r) = if a { (self.a, d.hunk.a0..d.hunk.a1) } else { (self.b, d.hunk.b0..d.hunk.b1) };
        r.map(|i| t.str(i)).collect::<Vec<_>>().join(" ")
    }

    /// Marks the sides of hunks whose tokens are the other side of another hunk: a passage
    /// moved (sentences swapped, a paragraph put elsewhere).
    fn find_moves(&mut self) {
        let mut a_sides: HashMap<u64, Vec<usize>> = HashMap::new();
        for (i, d) in self.diffs.iter().enumerate() {
            if d.hunk.a1 > d.hunk.a0 {
                a_sides.entry(self.a.run_hash(d.hunk.a0..d.hunk.a1)).or_default().push(i);
            }
        }
        for i in 0..self.diffs.len() {
            let h = self.diffs[i].hunk;
            if h.b1 == h.b0 {
                continue;
            }
            let Some(candidates) = a_sides.get_mut(&self.b.run_hash(h.b0..h.b1)) else { continue };
            if let Some(k) = candidates.iter().position(|&j| j != i) {
                let j = candidates.swap_remove(k);
                self.diffs[i].b.moved = true;
                self.diffs[j].a.moved = true;
            }
        }
    }
}

/// Hunk `k` of `hunks`, `h`, described.
fn describe(ta: &Tokens, tb: &Tokens, hunks: &[Hunk], k: usize, h: Hunk) -> Diff {
    let (n, m) = (ta.tokens.len(), tb.tokens.len());
    // The matched runs around the hunk bound how far it slides.
    let before = h.a0 - hunks.get(k.wrapping_sub(1)).map_or(0, |p| p.a1);
    let after = hunks.get(k + 1).map_or(n, |x| x.a0) - h.a1;
    let (mut a, mut b) = (side(ta, h.a0..h.a1), side(tb, h.b0..h.b1));
    let edge;
    if h.is_substitution() {
        edge = (h.a0 == 0 && h.b0 == 0) || (h.a1 == n && h.b1 == m);
        for (s, t, x0, x1) in [(&mut a, ta, h.a0, h.a1), (&mut b, tb, h.b0, h.b1)] {
            s.sentences = aligned(&t.tokens, x0, x1, |t| t.sentence_end);
            s.clauses = aligned(&t.tokens, x0, x1, |t| t.clause_end);
        }
    } else {
        let (s, t, x0, x1, y, len) =
            if h.a1 > h.a0 { (&mut a, ta, h.a0, h.a1, h.b0, m) } else { (&mut b, tb, h.b0, h.b1, h.a0, n) };
        let p = slide(&t.tokens, x0..x1, y, len, before, after);
        (edge, s.sentences, s.clauses) = (p.edge, p.sentences, p.clauses);
    }
    let (ca, cb) = (chars(ta, h.a0..h.a1), chars(tb, h.b0..h.b1));
    let distance = (ca.len() <= SHORT && cb.len() <= SHORT).then(|| edit_distance(&ca, &cb));
    let ellipsis = h.a1 == n && h.b1 == m && ((h.a1 > h.a0 && tb.cut) || (h.b1 > h.b0 && ta.cut));
    let truncated = ellipsis
        || h.is_substitution() && h.a1 == n && h.b1 == m && {
            let ((t, x0, x1), (long, y0)) =
                if ca.len() < cb.len() { ((ta, h.a0, h.a1), (tb, h.b0)) } else { ((tb, h.b0, h.b1), (ta, h.a0)) };
            let (cut, word) = (t.str(x0), long.str(y0));
            // A word or figure cut where the text ends, bare: "…iPhone 13, bl", "１９９７年１至１".
            x1 - x0 == 1 && t.bare_end && word.len() > cut.len() && word.starts_with(cut)
        };
    Diff { hunk: h, a, b, distance, edge, truncated, figures_changed: figures_changed(ta, h.a0..h.a1, tb, h.b0..h.b1) }
}

/// The sums of the tokens `r` of `t`.
fn side(t: &Tokens, r: Range<usize>) -> Side {
    let mut s = Side::default();
    for i in r {
        s.tokens += 1;
        s.weight += t.tokens[i].weight;
        s.chars += t.str(i).chars().count() as u32;
    }
    s
}

/// The characters of the tokens `r` of `t`, one after the other.
fn chars(t: &Tokens, r: Range<usize>) -> Vec<char> {
    r.flat_map(|i| t.str(i).chars()).collect()
}

/// Figures of `a[ra]` not in `b[rb]` and of `b[rb]` not in `a[ra]`, as multisets.
fn figures_changed(a: &Tokens, ra: Range<usize>, b: &Tokens, rb: Range<usize>) -> u32 {
    let figures = |t: &Tokens, r: Range<usize>| -> Vec<u64> {
        let mut v: Vec<u64> = t.tokens[r].iter().filter(|x| x.kind == Kind::Figure).map(|x| x.hash).collect();
        v.sort_unstable();
        v
    };
    let (fa, fb) = (figures(a, ra), figures(b, rb));
    let (mut i, mut j, mut common) = (0, 0, 0);
    while i < fa.len() && j < fb.len() {
        match fa[i].cmp(&fb[j]) {
            std::cmp::Ordering::Less => i += 1,
            std::cmp::Ordering::Greater => j += 1,
            std::cmp::Ordering::Equal => (common, i, j) = (common + 1, i + 1, j + 1),
        }
    }
    (fa.len() + fb.len() - 2 * common) as u32
}

/// Where a run of tokens can sit.
#[derive(Default)]
struct Place {
    edge: bool,
    sentences: bool,
    clauses: bool,
}

/// Whether `t[x0..x1]` starts after an end (or at the start) and ends at one, by `end`.
fn aligned(t: &[Token], x0: usize, x1: usize, end: impl Fn(&Token) -> bool) -> bool {
    (x0 == 0 || end(&t[x0 - 1])) && end(&t[x1 - 1])
}

/// Where the tokens `t[r]`, inserted at `y` of a text of `len` tokens, can sit when slid over
/// equal tokens, at most `before` to the left and `after` to the right.
fn slide(t: &[Token], r: Range<usize>, y: usize, len: usize, before: usize, after: usize) -> Place {
    let mut p = Place::default();
    let mut check = |x0: usize, x1: usize, y: usize| {
        p.edge |= (x0 == 0 && y == 0) || (x1 == t.len() && y == len);
        p.sentences |= aligned(t, x0, x1, |t| t.sentence_end);
        p.clauses |= aligned(t, x0, x1, |t| t.clause_end);
    };
    let (x0, x1) = (r.start, r.end);
    check(x0, x1, y);
    let mut s = 0;
    while s < before && x0 > s && t[x0 - s - 1].hash == t[x1 - s - 1].hash {
        s += 1;
        check(x0 - s, x1 - s, y - s);
    }
    let mut s = 0;
    while s < after && x1 + s < t.len() && t[x0 + s].hash == t[x1 + s].hash {
        s += 1;
        check(x0 + s, x1 + s, y + s);
    }
    p
}

/// The Levenshtein distance of two character sequences (short: O(|a|·|b|)).
pub fn edit_distance(a: &[char], b: &[char]) -> u32 {
    let mut row: Vec<u32> = (0..=b.len() as u32).collect();
    for (i, ca) in a.iter().enumerate() {
        let mut diag = row[0];
        row[0] = i as u32 + 1;
        for (j, cb) in b.iter().enumerate() {
            let next = (diag + u32::from(ca != cb)).min(row[j] + 1).min(row[j + 1] + 1);
            diag = row[j + 1];
            row[j + 1] = next;
        }
    }
    row[b.len()]
}
