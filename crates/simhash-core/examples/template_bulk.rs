//! Issue 55, item 2: bulk pairs with the decision on a templated table, by each way a run can
//! treat its templates (`similarity::bulk::templates::Mode`), over the same rows:
//!
//!   template_bulk [template=attributes|listing|cjk] [rows=600] [variants=100] [seed=1] [modes=off,enumerated,joined]
//!   template_bulk file=FILE n=N [modes=…]
//!
//! The rows are `examples/template_pairs`' table (`rows` rows of the template, ten edits of
//! `variants` of them), or N texts of FILE with 10% reposts (`examples/bulk_pairs`' rows). For
//! each mode this prints its seconds (wall and CPU), the pairs it returns, the rows templated,
//! and how its pairs differ from `enumerated`'s (every pair from the bands, a templated row's
//! decided with its frame): what the join loses (`missing`) or adds, and what the frame changes
//! against `off` (6.0's run: no templates).

mod common;
use common::{cpu_s, for_each_text, named, template_table};

use std::collections::BTreeSet;
use std::sync::atomic::Ordering;
use std::time::Instant;

use simhash_core::decision::Rule;
use simhash_core::similarity::bulk::templates::Mode;
use simhash_core::similarity::bulk::{BulkPairs, Config};
use simhash_core::similarity::Version;

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file: Option<String> = args.iter().find_map(|a| a.strip_prefix("file=").map(Into::into));
    // (kind, the row it edits) of a generated table's texts, by id − 1.
    let mut kinds: Vec<(&str, usize)> = Vec::new();
    let rows: Vec<(i64, String)> = match &file {
        Some(f) => {
            let mut v = Vec::new();
            for_each_text(f, named(&args, "n", 10_000), |id, t| v.push((id, t.to_string())));
            v
        }
        None => {
            let t: String = named(&args, "template", "attributes".to_string());
            let table =
                template_table(&t, named(&args, "rows", 600), named(&args, "variants", 100), named(&args, "seed", 1));
            kinds = table.iter().map(|(k, r, _)| (*k, *r)).collect();
            table.into_iter().enumerate().map(|(i, (_, _, text))| (i as i64 + 1, text)).collect()
        }
    };
    let theta: f64 = named(&args, "theta", 0.5);
    let modes: String = named(&args, "modes", "off,enumerated,joined".to_string());
    println!("rows {}  theta {theta}", rows.len());
    let mut reference: Option<BTreeSet<(i64, i64)>> = None;
    let mut off: Option<BTreeSet<(i64, i64)>> = None;
    println!(
        "{:<11} {:>8} {:>8} {:>9} {:>10} {:>11} {:>8} {:>8}",
        "mode", "wall s", "cpu s", "pairs", "templated", "candidates", "missing", "added"
    );
    for name in modes.split(',') {
        let mode = match name {
            "off" => Mode::Off,
            "enumerated" => Mode::Enumerated,
            _ => Mode::Joined,
        };
        let config = Config {
            theta,
            version: Version::M2,
            threads: named(&args, "threads", 2),
            spill_dir: None,
            decide: Some(Rule::LATEST),
            templates: mode,
        };
        let (t0, c0) = (Instant::now(), cpu_s());
        let mut run = BulkPairs::new(&config).expect("a run");
        let verbose = named(&args, "phases", 0) == 1;
        let mut cb = |p: simhash_core::Progress| {
            if let (true, simhash_core::Progress::Phase(m)) = (verbose, p) {
                println!("  {:>7.2} s  {m}", t0.elapsed().as_secs_f64());
            }
        };
        for (id, t) in &rows {
            run.push(*id, t, &mut cb);
        }
        let mut pairs = BTreeSet::new();
        while let Some(p) = run.next_pair(&mut cb) {
            pairs.insert((p.id1, p.id2));
        }
        let (wall, cpu) = (t0.elapsed().as_secs_f64(), cpu_s() - c0);
        let c = run.counters();
        let against = reference.as_ref().or(off.as_ref());
        let (missing, added) = against.map_or((0, 0), |r| (r.difference(&pairs).count(), pairs.difference(r).count()));
        println!(
            "{name:<11} {wall:>8.2} {cpu:>8.2} {:>9} {:>10} {:>11} {missing:>8} {added:>8}",
            pairs.len(),
            c.templated.load(Ordering::Relaxed),
            c.candidates.load(Ordering::Relaxed)
        );
        if let (Some(r), Mode::Joined) = (against, mode) {
            for &(a, b) in r.difference(&pairs).take(named(&args, "show", 0)) {
                println!("  missing: {} | {}", rows[a as usize - 1].1, rows[b as usize - 1].1);
            }
            if !kinds.is_empty() {
                let mut by: std::collections::BTreeMap<String, usize> = Default::default();
                for &(a, b) in r.difference(&pairs) {
                    let ((ka, ra), (kb, rb)) = (kinds[a as usize - 1], kinds[b as usize - 1]);
                    let kind = match (ra == rb, ka, kb) {
                        (true, "row", k) | (true, k, "row") => format!("a row and its {k}"),
                        (true, ..) => "two edits of a row".into(),
                        (false, ..) => "texts of two rows".into(),
                    };
                    *by.entry(kind).or_default() += 1;
                }
                for (kind, n) in by {
                    println!("  missing: {n} {kind}");
                }
            }
        }
        match mode {
            Mode::Off => off = Some(pairs),
            Mode::Enumerated => reference = Some(pairs),
            Mode::Joined => {}
        }
    }
    println!("missing, added: against enumerated's pairs (off's when it did not run)");
}
