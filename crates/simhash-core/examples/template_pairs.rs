//! Issue 55, item 2, before any code: which pairs of a table of one template the dedup
//! decision keeps, and whether their shingles off the frame would find them:
//!
//!   template_pairs [rows=600] [variants=100] [seed=1]
//!
//! The table is issue 55's (`template_lookup`'s): `rows` rows of the frame, each another
//! function name, and for `variants` of them five edits: a full stop added, a frame word
//! changed, a sentence appended, the name's last letter changed, a space doubled. The frame is
//! the shingles 2% of the rows hold (the share `frame_keys` learns keys from). By brute force
//! over every pair at similarity 0.5 or more (`similarity::similarity`), this prints, by the
//! kind of pair, how many there are, how many the decision (7.0's balanced) calls the same
//! passage, and for those the smallest Jaccard of their shingles off the frame: a bulk run
//! that banded a templated row on those shingles at θ would find every kept pair whose
//! Jaccard there is θ or more (with the plan's miss bound).
//!
//! At the defaults (2026-11-30, docs/similarity.md "Templates"): every text is framed (136
//! frame shingles); of the 543,000 pairs at 0.5, the decision keeps a row and its full stop,
//! space, appended sentence and name edit (100 of 100 each) and nothing else but edits of one
//! row; a row and its appended sentence share 0.203 of their shingles off the frame, so banding
//! on those at 0.5 would lose them all.

mod common;
use common::{named, template_row, Names};

use std::collections::HashMap;

use simhash_core::decision::{decide, Rule};
use simhash_core::similarity::measure::{common, jaccard};
use simhash_core::similarity::{similarity, Sets, Version};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rows: usize = named(&args, "rows", 600);
    let variants: usize = named(&args, "variants", 100);
    let mut names_from = Names::new(named(&args, "seed", 1));
    let names: Vec<String> = (0..rows).map(|_| names_from.next_name()).collect();
    let frame = template_row;
    // (kind, the row it edits or itself, text)
    let mut texts: Vec<(&str, usize, String)> =
        names.iter().enumerate().map(|(i, n)| ("row", i, frame(n, "terms"))).collect();
    for r in (0..variants).map(|i| i * rows / variants.max(1)) {
        let (n, t) = (&names[r], frame(&names[r], "terms"));
        let mut near = n.clone();
        let last = near.pop().unwrap_or('a');
        near.push(if last == 'z' { 'a' } else { (last as u8 + 1) as char });
        texts.push(("full stop", r, format!("{t}.")));
        texts.push(("frame word", r, frame(n, "words")));
        texts.push(("appended", r, format!("{t} See the notes at the end of this page for the locale it reads.")));
        texts.push(("name edit", r, frame(&near, "terms")));
        texts.push(("space", r, t.replacen(" see ", "  see ", 1)));
    }
    let v = Version::M2;
    let sets: Vec<Sets> = texts.iter().map(|(_, _, t)| Sets::of(t, v, &mut || ())).collect();
    let mut held: HashMap<u64, usize> = HashMap::new();
    for s in &sets[..rows] {
        for &h in &s.shingles {
            *held.entry(h).or_default() += 1;
        }
    }
    let share = (rows as f64 * 0.02).ceil().max(2.0) as usize;
    let free: Vec<Vec<u64>> = sets
        .iter()
        .map(|s| s.shingles.iter().copied().filter(|h| held.get(h).copied().unwrap_or(0) < share).collect())
        .collect();
    let framed = |i: usize| 2 * free[i].len() <= sets[i].shingles.len();
    println!(
        "texts {} ({} rows, {} variants); frame shingles {}; framed texts {}",
        texts.len(),
        rows,
        texts.len() - rows,
        held.values().filter(|&&c| c >= share).count(),
        (0..texts.len()).filter(|&i| framed(i)).count()
    );
    // kind of pair -> (pairs at 0.5, kept by the decision, smallest free Jaccard of a kept pair, kept below 0.5 there)
    let mut by_kind: std::collections::BTreeMap<String, (usize, usize, f64, usize)> = Default::default();
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            if similarity(&sets[i], &sets[j]) < 0.5 {
                continue;
            }
            let (ki, ri, ti) = &texts[i];
            let (kj, rj, tj) = &texts[j];
            let kind = match (ri == rj, *ki, *kj) {
                (true, "row", k) | (true, k, "row") => format!("a row and its {k}"),
                (true, a, b) => format!("two edits of a row ({a}, {b})"),
                (false, "row", "row") => "two rows".to_string(),
                (false, ..) => "an edit and another row".to_string(),
            };
            let e = by_kind.entry(kind).or_insert((0, 0, 1.0, 0));
            e.0 += 1;
            if decide(Rule::LATEST, ti.as_str(), tj.as_str(), None, &mut || ()).duplicate {
                let fj = jaccard(common(&free[i], &free[j]), free[i].len(), free[j].len());
                e.1 += 1;
                e.2 = e.2.min(fj);
                e.3 += usize::from(fj < 0.5 && framed(i) && framed(j));
            }
        }
    }
    println!(
        "{:<44} {:>9} {:>7} {:>14} {:>13}",
        "pairs at similarity 0.5+", "pairs", "kept", "min free J", "kept, J < 0.5"
    );
    for (kind, (n, kept, min_j, below)) in by_kind {
        let min_j = if kept > 0 { format!("{min_j:.3}") } else { "-".into() };
        println!("{kind:<44} {n:>9} {kept:>7} {min_j:>14} {below:>13}");
    }
}
