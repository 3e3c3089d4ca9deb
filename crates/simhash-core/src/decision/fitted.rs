//! Decision 3 (7.0.0): the verdict of a model fitted on labelled pairs, over what the
//! alignment found. Decision 2 priced each hunk by hand-set rules against 5% of the shorter
//! text; here each hunk has a few features (what kind it is, where it sits, which tokens it
//! changes), each with a weight fitted on 3,249 pairs of 19 sources read by people
//! (tests/quality/fit_decision.py, docs/decision.md), and a pair is the same passage when
//!
//! ```text
//! C = Σ hunks Σ k  w[k]·φk(hunk)    ≤    A = exp(bias + slope·ln(1 + W) − Σ j v[j]·ψj(pair) − offset) − 1
//! ```
//!
//! with W the shorter text's weight: C is what the differences cost (each hunk's own part shown
//! by `simhash_explain`), A what is allowed. The model is logistic in the log of the cost:
//! `P(same) = σ(bias + slope·ln(1 + W) − ln(1 + C) − Σ v·ψ)`, so that the allowance grows as a
//! power of the length (decision 2's was proportional to it); a strictness is a threshold on
//! it (`offset`, its log-odds).
//!
//! The weights are constants: part of the contract, as a fingerprint definition is. A new fit
//! is a new decision version.

use std::collections::HashMap;

use super::diff::{Comparison, Diff};
use super::frame::Frame;
use super::tokens::Kind;
use super::verdict::{live, Params, Reason, Verdict};

/// The features of a hunk, in weight units (a CJK character 2, a Latin letter or digit 1)
/// unless said otherwise.
pub const HUNK_FEATURES: [&str; 15] = [
    // A substitution (both sides have tokens), neither a typo nor whole sentences nor a
    // lead-in at an edge:
    "substituted", // its heavier side, up to 16 units (a slot: "black" → "brown", 男 → 女)
    "reworded",    // its heavier side beyond 16 units (a phrase put otherwise)
    "latin share", // the part of `substituted` that is Latin letters (a word, not CJK)
    "name",        // 1: one word of 3+ letters for another, not a typo (an identifier, a name)
    "repeated",    // 1: the same substitution stands in another hunk too (a slot filled twice)
    "typo",        // the edit distance of a substitution whose characters are few edits apart
    "figures",     // figures on one side and not the other (any hunk), a count
    "sentences",   // a substitution of whole sentences: its heavier side
    "lead-in",     // a substitution at the start or end of both texts, between clauses
    "inserted",    // words added or dropped inside a sentence
    "clause",      // a clause added or dropped inside
    "edge",        // a few words added or dropped at an edge, not a clause
    "edge clause", // a clause or 20 units or more added or dropped at an edge (a source line)
    "priced",      // what decision 2's rules price the hunk at (verdict.rs), in units
    "slot",        // a substitution's tokens at slots of the text's frame (frame.rs), in units
];

/// The features of a pair as a whole (besides its hunks).
pub const PAIR_FEATURES: [&str; 4] = [
    "only a phrase",    // 1: the shorter text is a phrase of a mostly other text (decision 2's rule)
    "figures disagree", // 1: too few of the figures are in both (decision 2's rule)
    "other share",      // the share of the longer text that is not matched, 0 to 1
    "hunks",            // how many hunks differ (moves and cuts aside)
];

/// The features of hunk `d` of comparison `c`; `repeated`: its substitution stands in another
/// hunk too.
pub fn hunk_features(c: &Comparison<'_>, d: &Diff, repeated: bool) -> [f64; 15] {
    let mut f = [0.0; 15];
    f[13] = Params::default().cost(d) as f64 / 4.0;
    f[6] = f64::from(d.figures_changed);
    let (a, b) = (live(&d.a), live(&d.b));
    if d.truncated {
        return f;
    }
    match (a, b) {
        (None, None) => {}
        (Some(s), None) | (None, Some(s)) => {
            let w = f64::from(s.weight);
            if s.sentences {
            } else if d.edge && (s.clauses || s.weight >= 20) {
                f[12] = w;
            } else if d.edge {
                f[11] = w;
            } else if s.clauses {
                f[10] = w;
            } else {
                f[9] = w;
            }
        }
        (Some(a), Some(b)) => {
            let heavier = f64::from(a.weight.max(b.weight));
            if d.figures_changed == 0 {
                if let Some(t) = d.distance {
                    let l = a.chars.min(b.chars);
                    if l >= 3 && 4 * t <= l + 1 {
                        f[5] = f64::from(t);
                        return f;
                    }
                }
            }
            if a.sentences && b.sentences {
                f[7] = heavier;
                return f;
            }
            if d.edge && a.clauses && b.clauses {
                f[8] = heavier;
                return f;
            }
            f[0] = heavier.min(16.0);
            f[1] = (heavier - 16.0).max(0.0);
            let latin = |t: &super::tokens::Tokens, r: std::ops::Range<usize>| -> f64 {
                t.tokens[r].iter().filter(|x| x.kind == Kind::Word).map(|x| f64::from(x.weight)).sum()
            };
            let (la, lb) = (latin(c.a, d.hunk.a0..d.hunk.a1), latin(c.b, d.hunk.b0..d.hunk.b1));
            f[2] = la.max(lb).min(16.0);
            let one_word = |t: &super::tokens::Tokens, x0: usize, x1: usize| {
                x1 == x0 + 1 && t.tokens[x0].kind == Kind::Word && t.tokens[x0].weight >= 3
            };
            if one_word(c.a, d.hunk.a0, d.hunk.a1) && one_word(c.b, d.hunk.b0, d.hunk.b1) {
                f[3] = 1.0;
            }
            f[4] = f64::from(u8::from(repeated));
        }
    }
    f
}

/// The weight of hunk `d`'s tokens that are slots of `frame`, the frame of the text that is
/// side a of `c` (`a_side`) or side b; 0 unless `d` is a substitution.
fn slot_weight(c: &Comparison<'_>, d: &Diff, frame: &Frame, a_side: bool) -> f64 {
    if live(&d.a).is_none() || live(&d.b).is_none() {
        return 0.0;
    }
    let (t, r) = if a_side { (c.a, d.hunk.a0..d.hunk.a1) } else { (c.b, d.hunk.b0..d.hunk.b1) };
    r.filter(|&i| frame.is_slot(i)).map(|i| f64::from(t.tokens[i].weight)).sum()
}

/// For each hunk of `c`: whether its substitution (both sides' tokens) stands in another hunk.
pub fn repeated(c: &Comparison<'_>) -> Vec<bool> {
    let key = |d: &Diff| {
        (live(&d.a).is_some() && live(&d.b).is_some())
            .then(|| (c.a.run_hash(d.hunk.a0..d.hunk.a1), c.b.run_hash(d.hunk.b0..d.hunk.b1)))
    };
    let mut n: HashMap<(u64, u64), u32> = HashMap::new();
    for d in &c.diffs {
        if let Some(k) = key(d) {
            *n.entry(k).or_default() += 1;
        }
    }
    c.diffs.iter().map(|d| key(d).is_some_and(|k| n[&k] > 1)).collect()
}

/// The pair's own features ([`PAIR_FEATURES`]); `only_phrase` and `figures_disagree` are
/// decision 2's rules on the same comparison.
pub fn pair_features(c: &Comparison<'_>, only_phrase: bool, figures_disagree: bool) -> [f64; 4] {
    let (wa, wb) = (c.a.weight(), c.b.weight());
    let matched = c.matched() as f64;
    let long = wa.max(wb).max(1) as f64;
    let hunks = c.diffs.iter().filter(|d| !d.truncated && (live(&d.a).is_some() || live(&d.b).is_some())).count();
    [
        f64::from(u8::from(only_phrase)),
        f64::from(u8::from(figures_disagree)),
        ((long - matched) / long).clamp(0.0, 1.0),
        hunks as f64,
    ]
}

/// The fitted model: a weight per feature, and what is allowed.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Model {
    pub hunk: [f64; 15],
    pub pair: [f64; 4],
    pub bias: f64,
    pub slope: f64,
}

/// How strict a decision is: a threshold on the model's probability of "same passage", as
/// its log-odds. Deduplicating training data wants recall, a catalogue precision
/// (docs/decision.md, "Operating points").
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Strictness {
    Loose,
    Balanced,
    Strict,
}

impl Strictness {
    /// The threshold on the model's log-odds of "same passage" (docs/decision.md gives each
    /// setting's precision and recall, leave-one-source-out): loose at P ≥ 0.27, balanced at
    /// 0.5, strict at 0.73.
    pub fn offset(self) -> f64 {
        match self {
            Strictness::Loose => -1.0,
            Strictness::Balanced => 0.0,
            Strictness::Strict => 1.0,
        }
    }

    /// The setting named `s` (`loose`, `balanced`, `strict`).
    pub fn parse(s: &str) -> Option<Strictness> {
        Some(match s {
            "loose" => Strictness::Loose,
            "balanced" => Strictness::Balanced,
            "strict" => Strictness::Strict,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            Strictness::Loose => "loose",
            Strictness::Balanced => "balanced",
            Strictness::Strict => "strict",
        }
    }
}

/// Decision 3's model, fitted on the labels of every source (tests/quality/fit_decision.py,
/// `make fit-decision`): the contract of decision 3.
pub const MODEL: Model = Model {
    hunk: [
        17.62, 0.001072, 0.04619, 174.7, 0.04157, 8.594, 0.8574, 0.3612, 0.008655, 0.3868, 0.7745, 0.001284, 0.3734,
        10.24, 208.8,
    ],
    pair: [0.1685, 0.9062, 0.0004946, 0.0005401],
    bias: -1.4521,
    slope: 1.3482,
};

/// Decision 3's verdict on a comparison: `frame` is the frame of the text given first (side a
/// unless the comparison swapped them), if its table told one.
pub fn verdict(c: &Comparison<'_>, frame: Option<&Frame>, strictness: Strictness) -> Verdict {
    let m = &MODEL;
    let (wa, wb) = (c.a.weight(), c.b.weight());
    let (only_phrase, figures) = Params::default().rules(c);
    let s = Scored::of(c, only_phrase, figures, frame);
    let costs: Vec<f64> = s.per_hunk.iter().map(|f| m.hunk_cost(f)).collect();
    let cost: f64 = costs.iter().sum();
    let allowed = (m.allowed(s.weight, strictness.offset() + m.pair_cost(&s.pair)).exp() - 1.0).max(0.0);
    // A same passage is most of the shorter text: on the labels' candidates this floor keeps
    // apart 6 of 1,177 pairs read as one passage and 12 of 970 read as two, and it keeps texts
    // that share nothing apart whatever their length (the model saw only candidates). A moved
    // passage is shared ([`Comparison::shared`]): counted as unmatched, the floor kept apart
    // 164 of 400 short English texts with two sentences swapped (make quality's repost edits),
    // 2 now; the labels' figures moved by at most 0.04 of a source's recall, up.
    // shared() >= matched(): the runs' table is built only when matched tokens fall short.
    let shares = 2 * c.matched() >= s.weight || 2 * c.shared() >= s.weight;
    // Decision 2's rule for a text inside a mostly other one stays a rule: of the labels'
    // candidates it holds, readers called 114 of 142 apart (a title, a byline, one message of
    // a longer one), and through containment a short phrase would otherwise link to every
    // long text that quotes it.
    let same = wa > 0 && wb > 0 && shares && !only_phrase && cost <= allowed;
    let reason = if wa == 0 || wb == 0 {
        Reason::Empty
    } else if !shares {
        Reason::LittleShared
    } else if only_phrase {
        Reason::OnlyAPhrase
    } else if same {
        Reason::Same
    } else if figures {
        Reason::Figures
    } else {
        Reason::Differs
    };
    Verdict { duplicate: same, reason, cost, allowed, costs }
}

/// The features of a comparison, summed over its hunks, and each hunk's own.
pub struct Scored {
    pub per_hunk: Vec<[f64; 15]>,
    pub pair: [f64; 4],
    pub weight: u64,
}

impl Scored {
    /// The features of comparison `c`; `frame`: the frame of the text given first (side a of
    /// `c` unless it swapped them), if its table told one.
    pub fn of(c: &Comparison<'_>, only_phrase: bool, figures_disagree: bool, frame: Option<&Frame>) -> Scored {
        let rep = repeated(c);
        let per_hunk = c
            .diffs
            .iter()
            .zip(rep)
            .map(|(d, r)| {
                let mut f = hunk_features(c, d, r);
                if let Some(frame) = frame {
                    f[14] = slot_weight(c, d, frame, !c.swapped);
                }
                f
            })
            .collect();
        Scored {
            per_hunk,
            pair: pair_features(c, only_phrase, figures_disagree),
            weight: c.a.weight().min(c.b.weight()),
        }
    }

    /// The hunk features summed (what the fit reads).
    pub fn sums(&self) -> [f64; 15] {
        let mut s = [0.0; 15];
        for h in &self.per_hunk {
            for (x, y) in s.iter_mut().zip(h) {
                *x += y;
            }
        }
        s
    }
}

impl Model {
    /// What hunk features `f` cost.
    pub fn hunk_cost(&self, f: &[f64; 15]) -> f64 {
        self.hunk.iter().zip(f).map(|(w, x)| w * x).sum()
    }

    /// What the pair's own features cost.
    pub fn pair_cost(&self, f: &[f64; 4]) -> f64 {
        self.pair.iter().zip(f).map(|(w, x)| w * x).sum()
    }

    /// The log of 1 + what is allowed a pair whose shorter text weighs `w`, at the threshold
    /// `offset` (with the pair's own costs added to it).
    pub fn allowed(&self, w: u64, offset: f64) -> f64 {
        self.bias + self.slope * (1.0 + w as f64).ln() - offset
    }
}

/// For the fit (examples/decision_features.rs): the features of two texts, read as decision 3
/// reads them, `a`'s frame told by `mates`, as a JSON object: "hunk" (summed), "pair", "w"
/// (the shorter text's weight).
pub fn features_json(a: &str, b: &str, mates: &[&str]) -> String {
    let read = |t: &str| super::tokens::Tokens::of_read(t, &mut || ());
    let (ta, tb) = (read(a), read(b));
    let mates: Vec<_> = mates.iter().map(|m| read(m)).collect();
    let frame = Frame::of(&ta, &mates.iter().collect::<Vec<_>>(), &mut || ());
    let c = Comparison::of(&ta, &tb, &mut || ());
    let (only_phrase, figures) = Params::default().rules(&c);
    let s = Scored::of(&c, only_phrase, figures, Some(&frame));
    // The floor's share ([`verdict`]): the matched tokens and the passages that moved.
    let matched = c.shared() as f64 / s.weight.max(1) as f64;
    serde_json::json!({ "hunk": s.sums(), "pair": s.pair, "w": s.weight, "empty": s.weight == 0, "matched": matched })
        .to_string()
}
