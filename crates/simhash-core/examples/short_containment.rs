//! What a containment lookup for a short text finds from keys (issue 47, docs/similarity.md
//! "Short texts"), against brute force:
//!
//!   short_containment FILE [gamma=0.8] [queries=2000] [seed=1] [required=N]
//!
//! (`required=N`: ask a row for N keys instead of the lookup's own number, for the
//! frontier; `SHOW=1` in the environment prints the pairs of short rows the lookup missed.)
//!
//! FILE: one row a line. Queries are texts of fewer than `SHORT_QUERY` shingles: each of
//! `queries` rows of FILE that short itself, and an excerpt of 8 to 45 characters of a row
//! (a quote of a longer text). For each, brute force finds every row whose containment
//! either way with it is at least `gamma` (the query's own row aside), and the lookup the
//! SQL layer runs (`lookup::lookup`) keeps the rows whose index keys hold `required` of the
//! query's keys. Prints, for rows of up to 24 distinct shingles and for longer ones, the
//! pairs brute force finds, the share the lookup finds, and the candidates and posting
//! entries read per query (both directions), also scaled to a table of 1M rows.

mod common;
use common::named;

use std::collections::HashMap;
use std::io::BufRead;

use simhash_core::similarity::lookup::{lookup, SHORT_QUERY};
use simhash_core::similarity::{containment, index_keys, sample, KeyParams, Measure, Sets, Version};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let file = &args[1];
    let gamma: f64 = named(&args, "gamma", 0.8);
    let queries: usize = named(&args, "queries", 2000);
    let mut seed: u64 = named(&args, "seed", 1);
    let force: usize = named(&args, "required", 0);
    let mut rand = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let v = Version::M2;
    let p = KeyParams::of(v);
    let texts: Vec<String> =
        std::io::BufReader::new(std::fs::File::open(file).expect("corpus")).lines().map(|l| l.expect("line")).collect();
    let sets: Vec<Sets> = texts.iter().map(|t| Sets::of(t, v, &mut || ())).collect();
    let mut post: HashMap<i32, Vec<u32>> = HashMap::new();
    for (i, t) in texts.iter().enumerate() {
        for k in index_keys(&sample(t, &p, &mut || ()), &p) {
            post.entry(k).or_default().push(i as u32);
        }
    }
    let n = texts.len();
    // (found, truth) by the row's size: up to 24 distinct shingles, more; candidates.
    let (mut found, mut truth, mut cands, mut asked, mut read) = ([0usize; 2], [0usize; 2], 0usize, 0usize, 0usize);
    let mut count = vec![0u32; n];
    let mut tried = 0;
    while asked < queries && tried < 100 * queries {
        tried += 1;
        let i = (rand() % n as u64) as usize;
        let (q, own) = if rand() % 2 == 0 {
            (texts[i].clone(), Some(i))
        } else {
            let chars: Vec<char> = texts[i].chars().collect();
            let len = 8 + (rand() % 38) as usize;
            if chars.len() <= len + 8 {
                continue;
            }
            let at = (rand() % (chars.len() - len) as u64) as usize;
            (chars[at..at + len].iter().collect(), None)
        };
        let qs = Sets::of(&q, v, &mut || ());
        if qs.shingles.is_empty() || qs.shingles.len() >= SHORT_QUERY {
            continue;
        }
        asked += 1;
        let mut kept = std::collections::HashSet::new();
        for m in [Measure::QueryInRow, Measure::RowInQuery] {
            let l = lookup(&q, v, m, gamma, &mut || ());
            assert!(!l.scan_all, "a short query at {gamma} reads every row");
            for c in count.iter_mut() {
                *c = 0;
            }
            for k in &l.keys {
                for &r in post.get(k).map(Vec::as_slice).unwrap_or(&[]) {
                    count[r as usize] += 1;
                }
            }
            read += l.keys.iter().map(|k| post.get(k).map_or(0, Vec::len)).sum::<usize>();
            let req = if force > 0 { force } else { l.required };
            kept.extend((0..n).filter(|&r| count[r] as usize >= req));
        }
        cands += kept.len();
        for r in (0..n).filter(|&r| Some(r) != own) {
            if containment(&qs, &sets[r]) >= gamma || containment(&sets[r], &qs) >= gamma {
                let long = usize::from(sets[r].shingles.len() > 24);
                truth[long] += 1;
                found[long] += usize::from(kept.contains(&r));
                if !kept.contains(&r) && long == 0 && std::env::var("SHOW").is_ok() {
                    eprintln!("miss: {q} | {} | {} {}", texts[r], qs.shingles.len(), sets[r].shingles.len());
                }
            }
        }
    }
    let scale = 1e6 / n as f64;
    println!("rows {n}, short queries {asked}, containment either way >= {gamma}");
    for (name, j) in [("rows of <= 24 shingles", 0), ("rows of > 24 shingles", 1)] {
        let share = if truth[j] == 0 { f64::NAN } else { found[j] as f64 / truth[j] as f64 };
        println!("{name}: pairs {} found {} ({share:.4})", truth[j], found[j]);
    }
    println!(
        "candidates per query: {:.1} (at 1M rows: {:.0})",
        cands as f64 / asked as f64,
        cands as f64 / asked as f64 * scale
    );
    let per = read as f64 / asked as f64;
    println!("posting entries read per query, both directions: {per:.0} (at 1M rows: {:.0})", per * scale);
}
