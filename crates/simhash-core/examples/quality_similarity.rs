//! The similarity measure and its index keys for `make quality` (tests/quality/similarity.py).
//! Texts come and go as JSON, one a line. Every command takes `m=1` or `m=2` (the default),
//! the version of the measure.
//!
//!   quality_similarity texts [k=K] [w=W] [bits=B]
//!       stdin: a text a line; stdout: {"q": distinct shingles (not frequent, counted up to
//!       COUNTED), "m": required keys at 0.3, 0.4, ..., 0.9, "sim": a similarity query's keys, "win": the winnowed keys, "idx": the
//!       index keys} a line
//!   quality_similarity pairs
//!       stdin: [a, b] a line; stdout: "similarity a_in_b b_in_a" a line
//!   quality_similarity bulkpairs THETA
//!       stdin: a text a line; stdout: "i j similarity" for every pair at similarity ≥ THETA by
//!       the bulk engine of simhash_similarity_pairs (for timing it against allpairs)
//!   quality_similarity allpairs THETA GAMMA
//!       stdin: a text a line; stdout: "i j similarity i_in_j j_in_i" for every pair (0-based
//!       line numbers, i < j) at similarity ≥ THETA or a containment ≥ GAMMA, exactly

use std::io::{BufRead, Write};

use simhash_core::similarity::exact::exact_pairs;
use simhash_core::similarity::keys::{K, KEY_BITS, W};
use simhash_core::similarity::{
    containment, index_keys, required, sample, similarity, similarity_keys, KeyParams, Sets, SimilarityPairs, TextRows,
    Version,
};

/// The thresholds whose required keys `texts` gives ("m").
const THETAS: [f64; 7] = [0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9];

fn arg(args: &[String], name: &str, default: usize) -> usize {
    args.iter().find_map(|a| a.strip_prefix(&format!("{name}=")).and_then(|v| v.parse().ok())).unwrap_or(default)
}

fn lines() -> impl Iterator<Item = serde_json::Value> {
    std::io::stdin().lock().lines().map(|l| serde_json::from_str(&l.expect("stdin")).expect("a JSON line"))
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let version = if arg(&args, "m", 2) == 1 { Version::M1 } else { Version::M2 };
    match args.get(1).map(String::as_str) {
        Some("texts") => {
            let p = KeyParams {
                version,
                k: arg(&args, "k", K),
                w: arg(&args, "w", W),
                bits: arg(&args, "bits", KEY_BITS as usize) as u32,
                frequent_last: arg(&args, "frequent", 1) == 1,
            };
            for v in lines() {
                let s = sample(v.as_str().expect("a text"), &p, &mut || ());
                let win: Vec<i32> = s.winnowed.iter().map(|&h| p.key(h)).collect();
                let m: Vec<usize> = THETAS.iter().map(|&t| required(s.distinct, p.k, t)).collect();
                let o = serde_json::json!({"q": s.distinct, "m": m, "sim": similarity_keys(&s, &p), "win": win, "idx": index_keys(&s, &p)});
                writeln!(out, "{o}").expect("stdout");
            }
        }
        Some("pairs") => {
            for v in lines() {
                let (a, b) = (
                    Sets::of(v[0].as_str().expect("a"), version, &mut || ()),
                    Sets::of(v[1].as_str().expect("b"), version, &mut || ()),
                );
                writeln!(out, "{} {} {}", similarity(&a, &b), containment(&a, &b), containment(&b, &a))
                    .expect("stdout");
            }
        }
        Some("allpairs") => {
            let theta: f64 = args[2].parse().expect("THETA");
            let gamma: f64 = args[3].parse().expect("GAMMA");
            let sets: Vec<Sets> = lines().map(|v| Sets::of(v.as_str().expect("a text"), version, &mut || ())).collect();
            for p in exact_pairs(&sets, theta, gamma) {
                writeln!(out, "{} {} {} {} {}", p.i, p.j, p.similarity, p.i_in_j, p.j_in_i).expect("stdout");
            }
        }
        Some("bulkpairs") => {
            // The bulk engine of simhash_similarity_pairs (SimilarityPairs), for timing it.
            let theta: f64 = args[2].parse().expect("THETA");
            let mut rows = TextRows::new(theta, version);
            for (i, v) in lines().enumerate() {
                rows.push(i as i64, v.as_str().expect("a text"), &mut || ());
            }
            let mut pairs = SimilarityPairs::new(rows, theta, &mut |_| ());
            while let Some(p) = pairs.next_pair(&mut |_| ()) {
                writeln!(out, "{} {} {}", p.id1, p.id2, p.similarity).expect("stdout");
            }
        }
        _ => panic!("usage: quality_similarity texts|pairs|allpairs|bulkpairs ..."),
    }
}
