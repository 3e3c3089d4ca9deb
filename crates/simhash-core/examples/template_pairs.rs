//! Issue 55, item 2: which pairs of a table of one template the dedup decision keeps, and how
//! many of their shingles off the frame they share:
//!
//!   template_pairs [template=attributes|listing|cjk] [rows=600] [variants=100] [seed=1]
//!
//! The table is `rows` rows of the template, each another filler, and for `variants` of them
//! ten edits (a full stop added, a frame word changed, a sentence appended, a line put before,
//! the filler's last letter changed, a letter in its middle changed, two letters changed, a
//! letter dropped, a space doubled, the text in upper case). `attributes` is issue 55's
//! template (a function name of 10 to 20 letters, `template_lookup`'s); `listing` a package
//! listing (a name of 4 to 20 letters); `cjk` a Chinese notice whose slots are a two-character
//! city and a three-character company. The frame is the shingles 2% of the rows hold (the share
//! `frame_keys` learns from). By brute force over every pair at similarity 0.5 or more, this
//! prints, by the kind of pair, how many there are, how many the decision (7.0's balanced)
//! calls the same passage, without a frame and with the first text's frame among 16 rows (as a
//! trigger and a bulk run read it), and of those the smallest Jaccard of their shingles off the
//! frame and the smallest *overlap*, the off-frame shingles they share over the fewer that either
//! has (`similarity::bulk`'s join asks for a quarter of them, 2 to 8: `join::required`).
//!
//! At the defaults (2026-12-02, docs/similarity.md "Templates in bulk runs"): on `attributes`,
//! of the pairs at 0.5 the decision keeps a row and its full stop, space, case, appended
//! sentence, line before and name edits, and nothing else but edits of one row; with the frame,
//! no name edit. A row and its appended sentence share 0.203 of their shingles off the frame
//! (Jaccard), so banding on those at 0.5 would lose them all, but their overlap is 1. The least
//! overlap of a pair kept with the frame is 0.308 (two edits of a row) on `attributes`, 0.182 on
//! `listing` (a line before beside a sentence appended: 8 shared, which the join asks for at most), 0.6 on `cjk`,
//! where the decision with the frame still keeps 9 pairs of two rows (overlap 0).

mod common;
use common::{named, template_table};

use std::collections::{BTreeMap, HashMap};

use simhash_core::decision::{decide, Prepared, Rule};
use simhash_core::similarity::measure::{common, jaccard};
use simhash_core::similarity::{similarity, Sets, Version};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let template: String = named(&args, "template", "attributes".to_string());
    let rows: usize = named(&args, "rows", 600);
    let texts = template_table(&template, rows, named(&args, "variants", 100), named(&args, "seed", 1));
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
    println!(
        "template {template}: texts {} ({} rows, {} variants); frame shingles {}; texts with no shingle off it {}",
        texts.len(),
        rows,
        texts.len() - rows,
        held.values().filter(|&&c| c >= share).count(),
        free.iter().filter(|f| f.is_empty()).count()
    );
    // Each text's frame among 16 rows of the table (not its own), as a trigger reads it.
    let rule = Rule::LATEST;
    let prepared: Vec<Prepared> = texts.iter().map(|(_, _, t)| Prepared::of(rule.version, t, &mut || ())).collect();
    let frames: Vec<_> = (0..texts.len())
        .map(|i| {
            let mates: Vec<&Prepared> = (0..rows).filter(|&m| m != texts[i].1).take(16).map(|m| &prepared[m]).collect();
            prepared[i].frame(&mates, &mut || ())
        })
        .collect();
    // kind of pair -> (pairs at 0.5, kept, smallest free Jaccard of a kept pair, smallest overlap of one,
    // kept with the first text's frame, smallest overlap of those)
    let mut by_kind: BTreeMap<String, (usize, usize, f64, f64, usize, f64)> = Default::default();
    for i in 0..texts.len() {
        for j in i + 1..texts.len() {
            if similarity(&sets[i], &sets[j]) < 0.5 {
                continue;
            }
            let (ki, ri, ti) = &texts[i];
            let (kj, rj, tj) = &texts[j];
            let kind = match (ri == rj, *ki, *kj) {
                (true, "row", k) | (true, k, "row") => format!("a row and its {k}"),
                (true, ..) => "two edits of a row".to_string(),
                (false, "row", "row") => "two rows".to_string(),
                (false, ..) => "an edit and another row".to_string(),
            };
            let e = by_kind.entry(kind).or_insert((0, 0, 1.0, 1.0, 0, 1.0));
            e.0 += 1;
            let c = common(&free[i], &free[j]);
            let (a, b) = (free[i].len(), free[j].len());
            let overlap = if a.min(b) == 0 { 1.0 } else { c as f64 / a.min(b) as f64 };
            let _ = (ti, tj);
            if decide(rule, &prepared[i], &prepared[j], None, &mut || ()).duplicate {
                e.1 += 1;
                e.2 = e.2.min(jaccard(c, a, b));
                e.3 = e.3.min(overlap);
            }
            if decide(rule, &prepared[i], &prepared[j], Some(&frames[i]), &mut || ()).duplicate {
                e.4 += 1;
                e.5 = e.5.min(overlap);
            }
        }
    }
    println!(
        "{:<36} {:>9} {:>7} {:>11} {:>11} {:>7} {:>11}",
        "pairs at similarity 0.5+", "pairs", "kept", "min free J", "min overlap", "framed", "min overlap"
    );
    let f = |kept: usize, x: f64| if kept > 0 { format!("{x:.3}") } else { "-".into() };
    for (kind, (n, kept, min_j, min_o, framed, min_fo)) in by_kind {
        let (j, o, fo) = (f(kept, min_j), f(kept, min_o), f(framed, min_fo));
        println!("{kind:<36} {n:>9} {kept:>7} {j:>11} {o:>11} {framed:>7} {fo:>11}");
    }
}
