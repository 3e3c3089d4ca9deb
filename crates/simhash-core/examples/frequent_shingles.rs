//! Writes the frequent-shingle list that index keys leave out (`make frequent-shingles`;
//! crates/simhash-core/src/similarity/frequent.rs):
//!
//!   frequent_shingles M OUT.gz TOP CORPUS...
//!
//! Under version M (1 or 2) of the measure, for each corpus (a text a line), the `TOP` share (e.g. 0.01) of its distinct shingles
//! that the most lines have; the union, one `hash shingle` line each (hash in hex,
//! ascending), gzipped.

use std::collections::{BTreeMap, HashMap, HashSet};
use std::io::{BufRead, Write};

use simhash_core::similarity::shingles::{for_each_char, Version, Window};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let version = if args[1] == "1" { Version::M1 } else { Version::M2 };
    let out = &args[2];
    let top: f64 = args[3].parse().expect("TOP");
    let mut list: BTreeMap<u64, String> = BTreeMap::new();
    for corpus in &args[4..] {
        let mut df: HashMap<u64, (u32, String)> = HashMap::new();
        let mut lines = 0usize;
        for line in std::io::BufReader::new(std::fs::File::open(corpus).expect("corpus")).lines() {
            let line = line.expect("line");
            lines += 1;
            let mut seen = HashSet::new();
            let mut window = Window::default();
            for_each_char(&line, version, &mut || (), |c| {
                if let Some(h) = window.push(c) {
                    if seen.insert(h) {
                        df.entry(h).or_insert_with(|| (0, window.current())).0 += 1;
                    }
                }
            });
        }
        let mut ranked: Vec<(u32, u64, String)> = df.into_iter().map(|(h, (c, s))| (c, h, s)).collect();
        ranked.sort_unstable_by(|a, b| b.0.cmp(&a.0).then(a.1.cmp(&b.1)));
        let n = (top * ranked.len() as f64).round() as usize;
        eprintln!(
            "{corpus}: {lines} lines, {} distinct shingles, the {n} most frequent (in {} lines or more)",
            ranked.len(),
            ranked.get(n.saturating_sub(1)).map_or(0, |r| r.0)
        );
        for (_, h, s) in ranked.into_iter().take(n) {
            list.insert(h, s);
        }
    }
    let file = std::fs::File::create(out).expect("output");
    let mut gz = flate2::write::GzEncoder::new(file, flate2::Compression::best());
    for (h, s) in &list {
        writeln!(gz, "{h:016x} {s}").expect("write");
    }
    gz.finish().expect("gzip");
    eprintln!("{out}: {} shingles", list.len());
}
