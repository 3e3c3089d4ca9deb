//! Bulk pairs at scale (`similarity::bulk`), against the sketch-group engine and prefix
//! filtering: rows, candidates, pairs, seconds per phase, peak RSS, bytes per row.
//!
//!   bulk_pairs FILE N [theta=0.5] [threads=2] [engine=bulk|old|prefix] [check=0|1] [spill=DIR]
//!
//! FILE holds texts one a line (tests/harness/lib.sh's `markov`: Markov paragraphs). The
//! run's N texts are 90% its first lines, streamed, and 10% reposts of every 9th of those
//! (the first sentence dropped, one character changed, or a source line added, in turn),
//! streamed from a second reading: the example holds no text itself. `check=1` also runs
//! `exact::exact_pairs` (prefix filtering, the brute force of tests) and counts the pairs
//! that differ, by ids and bits of the value. `engine=prefix` counts prefix filtering's
//! candidates (the table's own frequency order, as exact.rs) and times it (`verify=0`:
//! counts them only).

mod common;
use common::{cpu_s, for_each_text, named};

use std::collections::HashMap;
use std::sync::atomic::Ordering;
use std::time::Instant;

use simhash_core::similarity::bulk::templates::Mode;
use simhash_core::similarity::bulk::{bytes_per_row, BulkPairs, Config};
use simhash_core::similarity::exact::exact_pairs;
use simhash_core::similarity::measure::{common, jaccard, shingle_set, Sets};
use simhash_core::similarity::{SimilarityPairs, TextRows, Version};
use simhash_core::Progress;

/// Peak resident memory of this process, from /proc/self/status (VmHWM), in MB.
fn peak_rss_mb() -> f64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    let kb =
        status.lines().find_map(|l| l.strip_prefix("VmHWM:")).and_then(|v| v.split_whitespace().next()?.parse().ok());
    kb.unwrap_or(0.0) / 1024.0
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (file, n): (&str, usize) = (&args[1], args[2].parse().expect("N"));
    let theta: f64 = named(&args, "theta", 0.5);
    let threads: usize = named(&args, "threads", 2);
    let engine: String = named(&args, "engine", "bulk".to_string());
    let check: u32 = named(&args, "check", 0);
    let spill_dir: Option<std::path::PathBuf> = args.iter().find_map(|a| a.strip_prefix("spill=").map(Into::into));
    let v = Version::M2;
    let t0 = Instant::now();
    let mut phases: Vec<(String, f64)> = Vec::new();
    let mut found: Vec<(i64, i64, u64)> = Vec::new();
    match engine.as_str() {
        "bulk" => {
            let mut run =
                BulkPairs::new(&Config { theta, version: v, threads, spill_dir, decide: None, templates: Mode::Off })
                    .expect("a run");
            let counters = run.counters();
            let mut cb = |p: Progress| {
                if let Progress::Phase(m) = p {
                    phases.push((format!("{m} (cpu {:.1} s)", cpu_s()), t0.elapsed().as_secs_f64()));
                }
            };
            let mut in_push = 0.0;
            for_each_text(file, n, |id, t| {
                let t1 = Instant::now();
                run.push(id, t, &mut cb);
                in_push += t1.elapsed().as_secs_f64();
            });
            println!("seconds_in_push {in_push:.1}");
            let read = t0.elapsed().as_secs_f64();
            let mut pairs = 0u64;
            while let Some(p) = run.next_pair(&mut cb) {
                pairs += 1;
                if check == 1 {
                    found.push((p.id1, p.id2, p.similarity.to_bits()));
                }
            }
            let total = t0.elapsed().as_secs_f64();
            let g = |a: &std::sync::atomic::AtomicU64| a.load(Ordering::Relaxed);
            let plan = run.plan();
            println!("engine bulk, theta {theta}, threads {threads}, plan {plan:?}");
            for (m, at) in &phases {
                println!("  at {at:.1} s: {m}");
            }
            println!("rows {n}");
            println!("duplicates {}", g(&counters.duplicates));
            println!("collisions {}", g(&counters.collisions));
            println!("candidates {}", g(&counters.candidates));
            println!("pairs {pairs}");
            println!("spilled_mb {}", g(&counters.spilled) >> 20);
            println!("seconds_read_and_sketch {read:.1}");
            println!("seconds_total {total:.1}");
            println!("cpu_seconds_total {:.1}", cpu_s());
            println!("bytes_per_row_held {}", plan.map_or(0, |p| bytes_per_row(&p)));
        }
        "old" => {
            let mut rows = TextRows::new(theta, v);
            for_each_text(file, n, |id, t| rows.push(id, t, &mut || ()));
            let read = t0.elapsed().as_secs_f64();
            let mut p = SimilarityPairs::new(rows, theta, &mut |_| ());
            let mut pairs = 0u64;
            while let Some(x) = p.next_pair(&mut |_| ()) {
                pairs += 1;
                if check == 1 {
                    found.push((x.id1, x.id2, x.similarity.to_bits()));
                }
            }
            println!("engine old (sketch groups), theta {theta}\nrows {n}\npairs {pairs}");
            println!("seconds_read_and_sketch {read:.1}\nseconds_total {:.1}", t0.elapsed().as_secs_f64());
        }
        "prefix" => {
            let mut sets = Vec::new();
            for_each_text(file, n, |_, t| sets.push(shingle_set(t, v, &mut || ())));
            let read = t0.elapsed().as_secs_f64();
            let (candidates, pairs) = prefix_filter(&sets, theta, named(&args, "verify", 1) == 1);
            println!("engine prefix filtering (frequency order), theta {theta}\nrows {n}");
            println!("candidates {candidates}\npairs {pairs}");
            println!("seconds_read_and_shingle {read:.1}\nseconds_total {:.1}", t0.elapsed().as_secs_f64());
        }
        e => panic!("no engine {e}"),
    }
    println!("peak_rss_mb {:.0}", peak_rss_mb());
    println!("peak_rss_bytes_per_row {:.0}", peak_rss_mb() * 1048576.0 / n as f64);
    if check == 1 {
        let mut sets = Vec::new();
        let mut ids = Vec::new();
        for_each_text(file, n, |id, t| {
            ids.push(id);
            sets.push(Sets::of(t, v, &mut || ()));
        });
        let mut want: Vec<(i64, i64, u64)> = exact_pairs(&sets, theta, 2.0)
            .into_iter()
            .map(|p| (ids[p.i as usize], ids[p.j as usize], p.similarity.to_bits()))
            .collect();
        want.sort_unstable();
        found.sort_unstable();
        let (mut i, mut j, mut differ) = (0, 0, 0);
        while i < want.len() || j < found.len() {
            match (want.get(i), found.get(j)) {
                (Some(a), Some(b)) if a == b => (i, j) = (i + 1, j + 1),
                (Some(a), Some(b)) if a < b => (i, differ) = (i + 1, differ + 1),
                (Some(_), None) => (i, differ) = (i + 1, differ + 1),
                _ => (j, differ) = (j + 1, differ + 1),
            }
        }
        println!("check: {} brute-force pairs, {} found, {differ} differ", want.len(), found.len());
    }
}

/// Prefix filtering's candidates and pairs (similarity only, as exact.rs): shingles ordered by
/// their frequency in the table, each set indexed and probed on its first `|x| − ⌈θ|x|⌉ + 1`.
/// Without `verify`, candidates are counted and not measured (pairs 0).
fn prefix_filter(sets: &[Vec<u64>], theta: f64, verify: bool) -> (u64, u64) {
    let mut df: HashMap<u64, u32> = HashMap::new();
    sets.iter().flatten().for_each(|&h| *df.entry(h).or_default() += 1);
    let mut index: HashMap<u64, Vec<u32>> = HashMap::new();
    let (mut candidates, mut pairs) = (0u64, 0u64);
    let mut seen: Vec<u32> = vec![u32::MAX; sets.len()];
    for (i, s) in sets.iter().enumerate() {
        if s.is_empty() {
            continue;
        }
        let mut o = s.clone();
        o.sort_unstable_by_key(|h| (df[h], *h));
        let least = ((theta * o.len() as f64 - 1e-9).ceil() as usize).clamp(1, o.len());
        for h in &o[..o.len() + 1 - least] {
            let list = index.entry(*h).or_default();
            for &j in list.iter() {
                if seen[j as usize] != i as u32 {
                    seen[j as usize] = i as u32;
                    candidates += 1;
                    if !verify {
                        continue;
                    }
                    let (a, b) = (&sets[j as usize], s);
                    pairs += u64::from(jaccard(common(a, b), a.len(), b.len()) >= theta);
                }
            }
            list.push(i as u32);
        }
    }
    (candidates, pairs)
}
