//! Step 4 of the decision: the verdict. Each hunk costs what a reader would count as other
//! content, in weight units (a CJK character 2, a Latin letter or digit 1), and two texts are
//! the same passage when the cost is at most a share of the shorter text ([`Params::budget`]).
//!
//! - **Free**: what reposts do. Whole sentences added or dropped, a clause added or dropped at
//!   the start or the end (a source line, a footer, an attribution, a marketing prefix), a
//!   passage moved, a copy cut inside its last word.
//! - **Cheap**: a typo (a short substitution whose characters are few edits apart), a
//!   clause dropped or added inside, a word added inside ([`Params::insertion`]), a
//!   substitution longer than a slot (a reworded phrase: [`Params::reworded`]).
//! - **Full**: a substitution of a slot, its heavier side: "black" → "brown", 乔石 → 李岚清,
//!   "Men's" → "Women's"; a changed figure costs at least [`Params::figure`].
//!
//! And one more rule, for a text inside another ([`Params::passage`]): when the longer text
//! is mostly other content, the shorter one is the same passage only if it is whole sentences
//! of the longer, or at least a passage long. A shared title, byline or dateline is not.
//!
//! The parameters were chosen against the labelled pairs and `make quality`'s repost edits
//! (docs/decision.md has the frontier): they are part of the decision's contract.

use super::diff::{Comparison, Diff, Side};

/// The decision's parameters. Costs are in quarter weight units, so that every rule is
/// integer arithmetic and a verdict never depends on rounding.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Params {
    /// The budget: cost × `budget` ≤ the shorter text's weight × 4 (one twentieth of it, 5%:
    /// 0.05 beside 0.03 and 0.08, the labels' best balance with the repost edits).
    pub budget: u64,
    /// A typo costs its edit distance × this / 4 (half a character).
    pub typo: u64,
    /// An insertion or deletion inside a sentence costs its weight × this / 4 (a quarter).
    pub insertion: u64,
    /// A substitution of more than `slot` units on its heavier side costs × this / 4.
    pub reworded: u64,
    /// The heaviest side a slot has: 16 units (8 CJK characters, two or three words).
    pub slot: u32,
    /// The least a slot's substitution costs, in units: "男" → "女" or "L" → "S" is a slot
    /// however few its characters.
    pub slot_floor: u32,
    /// A substitution of whole sentences costs × this / 4 (half).
    pub sentences: u64,
    /// An insertion or deletion at an edge of this weight or more is free even without
    /// punctuation around it (a source line run into the text).
    pub edge_free: u32,
    /// A hunk that changes a figure costs at least this many units.
    pub figure: u32,
    /// Below this matched weight, a text inside a mostly other one must be whole sentences.
    pub passage: u64,
    /// The least agreement of the two texts' figures, in percent: `(shared + 1) / (figures of
    /// the text with fewer + 1)`, measure 2's factor (similarity/measure.rs), so that a path
    /// without the measure (fingerprints, segments) reads figures as the measure does: 60,
    /// so that a text's one figure changed ("Changed in version 3.5" → "3.6": 0.5) keeps two
    /// rows apart and one of two (0.67) does not; 70 lost 0.03 of Chinese short labels' recall.
    pub agreement: u32,
}

impl Default for Params {
    fn default() -> Params {
        Params {
            budget: 20,
            typo: 2,
            insertion: 1,
            reworded: 1,
            slot: 16,
            slot_floor: 4,
            sentences: 2,
            edge_free: 20,
            figure: 4,
            passage: 40,
            agreement: 60,
        }
    }
}

/// Why two texts are or are not the same passage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Reason {
    /// Nothing differs but what a repost changes, within the budget.
    Same,
    /// The differences cost more than the budget: other content in a slot or a figure.
    Differs,
    /// The shorter text is a phrase of a text that is mostly other content.
    OnlyAPhrase,
    /// One text has no letter or digit.
    Empty,
    /// Their figures disagree: too few of them are in both texts.
    Figures,
    /// They share less than half of the shorter text (decision 3).
    LittleShared,
}

/// The verdict on two texts.
#[derive(Debug, Clone, PartialEq)]
pub struct Verdict {
    pub duplicate: bool,
    pub reason: Reason,
    /// What the differences cost (decision 2: in weight units; decision 3: its model's).
    pub cost: f64,
    /// The most they may cost.
    pub allowed: f64,
    /// Each diff's cost, in order.
    pub costs: Vec<f64>,
}

impl Params {
    /// What diff `d` costs, in quarter units.
    pub fn cost(&self, d: &Diff) -> u64 {
        // A moved side is no difference: what remains of the hunk is the other side.
        let (a, b) = (live(&d.a), live(&d.b));
        if d.truncated || (a.is_none() && b.is_none()) {
            return 0;
        }
        let figure = if d.figures_changed > 0 { 4 * u64::from(self.figure) } else { 0 };
        let (Some(a), Some(b)) = (a, b) else {
            let s = a.or(b).expect("one side");
            let w = 4 * u64::from(s.weight);
            if s.sentences || (d.edge && (s.clauses || s.weight >= self.edge_free)) {
                return 0;
            }
            let cost = if s.clauses { 0 } else { w * self.insertion / 4 };
            return if d.edge { cost } else { cost.max(figure) };
        };
        if d.figures_changed == 0 {
            if let Some(t) = d.distance {
                let l = a.chars.min(b.chars);
                if l >= 3 && 4 * t <= l + 1 {
                    return u64::from(t) * self.typo;
                }
            }
        }
        let heavier = a.weight.max(b.weight);
        let mut x = 4 * u64::from(heavier.max(self.slot_floor));
        if heavier > self.slot {
            x = x * self.reworded / 4;
        }
        if a.sentences && b.sentences {
            x = x * self.sentences / 4;
        }
        x.max(figure)
    }

    /// The verdict on a comparison.
    pub fn verdict(&self, c: &Comparison<'_>) -> Verdict {
        let (wa, wb) = (c.a.weight(), c.b.weight());
        let costs: Vec<u64> = c.diffs.iter().map(|d| self.cost(d)).collect();
        let cost: u64 = costs.iter().sum();
        let allowed = 4 * wa.min(wb) / self.budget;
        let reason = if wa == 0 || wb == 0 {
            Reason::Empty
        } else if !self.a_passage(c) {
            Reason::OnlyAPhrase
        } else if 100 * (c.a.shared_figures(c.b) + 1)
            < self.agreement * (c.a.distinct_figures().min(c.b.distinct_figures()) + 1)
        {
            Reason::Figures
        } else if cost * self.budget > 4 * wa.min(wb) {
            Reason::Differs
        } else {
            Reason::Same
        };
        let costs = costs.iter().map(|&c| c as f64 / 4.0).collect();
        Verdict {
            duplicate: reason == Reason::Same,
            reason,
            cost: cost as f64 / 4.0,
            allowed: allowed as f64 / 4.0,
            costs,
        }
    }

    /// Decision 2's two rules beside the budget, which decision 3 reads as features:
    /// whether the shorter text is only a phrase of a mostly other text, and whether the
    /// texts' figures disagree.
    pub fn rules(&self, c: &Comparison<'_>) -> (bool, bool) {
        let (a, b) = (c.a, c.b);
        let figures =
            100 * (a.shared_figures(b) + 1) < self.agreement * (a.distinct_figures().min(b.distinct_figures()) + 1);
        (!self.a_passage(c), figures)
    }

    /// The rule for a text inside a mostly other one (module docs): true unless the longer
    /// text's other content outweighs what they share, what they share is under a passage,
    /// and it is not whole sentences of the longer text.
    fn a_passage(&self, c: &Comparison<'_>) -> bool {
        let other = |a: bool| -> u64 {
            c.diffs.iter().filter_map(|d| live(if a { &d.a } else { &d.b })).map(|s| u64::from(s.weight)).sum()
        };
        let (ua, ub) = (other(true), other(false));
        let matched = c.a.weight() - ua;
        if ua.max(ub) <= matched || matched >= self.passage {
            return true;
        }
        let longer_is_a = ua >= ub;
        c.diffs.iter().all(|d| d.truncated || live(if longer_is_a { &d.a } else { &d.b }).is_none_or(|s| s.sentences))
    }
}

/// A side that has tokens and did not move (decision 3's features read it too).
pub(super) fn live(s: &Side) -> Option<&Side> {
    (s.tokens > 0 && !s.moved).then_some(s)
}

/// What a diff is, in a word a reader knows (for `simhash_explain`): its costs decide.
pub fn what(d: &Diff) -> &'static str {
    let (a, b) = (live(&d.a), live(&d.b));
    match (a, b) {
        _ if d.truncated => "cut",
        (None, None) => "moved",
        (Some(_), None) | (None, Some(_)) if d.a.moved || d.b.moved => "moved",
        (Some(s), None) | (None, Some(s)) if s.sentences => {
            if a.is_some() {
                "sentence dropped"
            } else {
                "sentence added"
            }
        }
        (Some(_), None) => "dropped",
        (None, Some(_)) => "added",
        (Some(_), Some(_)) if d.figures_changed > 0 => "figure changed",
        (Some(_), Some(_)) => "substituted",
    }
}

/// [`what`] with the two texts the other way round.
pub fn flipped(what: &'static str) -> &'static str {
    match what {
        "dropped" => "added",
        "added" => "dropped",
        "sentence dropped" => "sentence added",
        "sentence added" => "sentence dropped",
        other => other,
    }
}

impl Verdict {
    /// The verdict in words, for `simhash_explain`.
    pub fn describe(&self) -> String {
        let (cost, allowed) = (round(self.cost), round(self.allowed));
        match self.reason {
            Reason::Same => format!("same passage: the differences cost {cost}, at most {allowed} allowed"),
            Reason::Differs => format!("kept apart: the differences cost {cost}, at most {allowed} allowed"),
            Reason::OnlyAPhrase => {
                "kept apart: the shorter text is a phrase of a text that is mostly other content".to_owned()
            }
            Reason::Empty => "kept apart: a text has no letter or digit".to_owned(),
            Reason::Figures => "kept apart: their figures disagree".to_owned(),
            Reason::LittleShared => "kept apart: they share less than half of the shorter text".to_owned(),
        }
    }
}

/// A cost as `simhash_explain` shows it: to two decimals (decision 2's are quarters, exact).
pub fn round(x: f64) -> f64 {
    (x * 100.0).round() / 100.0
}
