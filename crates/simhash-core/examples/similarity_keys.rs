//! Index keys of a corpus, for choosing their parameters (docs/similarity.md):
//!
//! `m=1` or `m=2` (default) picks the version of the measure.
//!
//!   similarity_keys stats FILE [k=24] [w=24] [bits=18] [frequent=1] [theta=0.5] [queries=500]
//!       keys per text, distinct keys, the longest posting list, and for `queries` texts of
//!       FILE taken as similarity queries (their bottom-k keys) and as containment queries
//!       (all their keys): the mean number of other texts kept at m = required(n, theta),
//!       and at m = 1, 2, 3, each also scaled to a table of 1M texts; frequent=0: the
//!       frequent shingles ranked as any other (the list's worth);
//!   similarity_keys dump FILE [k] [w] [bits] [frequent]
//!       one int4[] literal of index keys a line, for COPY into a table with a GIN index.

mod common;
use common::named;

use std::collections::HashMap;
use std::io::{BufRead, Write};

use simhash_core::similarity::keys::{K, KEY_BITS, W};
use simhash_core::similarity::{index_keys, required, sample, similarity_keys, KeyParams, Version};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let (cmd, file) = (&args[1], &args[2]);
    let p = KeyParams {
        version: if named(&args, "m", 2) == 1 { Version::M1 } else { Version::M2 },
        k: named(&args, "k", K),
        w: named(&args, "w", W),
        bits: named(&args, "bits", KEY_BITS),
        frequent_last: named(&args, "frequent", 1) == 1,
    };
    let theta: f64 = named(&args, "theta", 0.5);
    let queries: usize = named(&args, "queries", 500);
    let texts: Vec<String> =
        std::io::BufReader::new(std::fs::File::open(file).expect("corpus")).lines().map(|l| l.expect("line")).collect();
    let samples: Vec<_> = texts.iter().map(|t| sample(t, &p, &mut || ())).collect();
    let keys: Vec<Vec<i32>> = samples.iter().map(|s| index_keys(s, &p)).collect();
    if cmd == "dump" {
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for k in &keys {
            let ks: Vec<String> = k.iter().map(|x| x.to_string()).collect();
            writeln!(out, "{{{}}}", ks.join(",")).expect("stdout");
        }
        return;
    }
    let mut post: HashMap<i32, Vec<u32>> = HashMap::new();
    for (i, ks) in keys.iter().enumerate() {
        for &k in ks {
            post.entry(k).or_default().push(i as u32);
        }
    }
    let longest = post.values().map(Vec::len).max().unwrap_or(0);
    let n = texts.len();
    let scale = 1e6 / n as f64;
    let step = (n / queries.max(1)).max(1);
    let mut count = vec![0u32; n];
    let (mut sim_req, mut sim_m, mut con_m, mut qs, mut req_sum) = (0usize, [0usize; 3], [0usize; 3], 0usize, 0usize);
    for q in (0..n).step_by(step) {
        qs += 1;
        for (which, qkeys) in [(0, similarity_keys(&samples[q], &p)), (1, keys[q].clone())] {
            let mut touched = Vec::new();
            for k in &qkeys {
                for &r in post.get(k).map_or(&[][..], Vec::as_slice) {
                    if r as usize != q {
                        if count[r as usize] == 0 {
                            touched.push(r);
                        }
                        count[r as usize] += 1;
                    }
                }
            }
            let m = if which == 0 { required(samples[q].distinct, p.k, theta) } else { 1 };
            for &r in &touched {
                let c = count[r as usize] as usize;
                for j in 0..3 {
                    if c > j {
                        if which == 0 {
                            sim_m[j] += 1;
                        } else {
                            con_m[j] += 1;
                        }
                    }
                }
                if which == 0 && c >= m {
                    sim_req += 1;
                }
                count[r as usize] = 0;
            }
            if which == 0 {
                req_sum += m;
            }
        }
    }
    let mean = |x: usize| x as f64 / qs as f64;
    println!(
        "frequent={} texts={n} k={} w={} bits={} theta={theta} keys/text={:.1} distinct={} longest={longest} \
         | similarity: m={:.2} kept={:.1} (1M: {:.0}); m=1,2,3: {:.1} {:.1} {:.1} (1M: {:.0} {:.0} {:.0}) \
         | containment m=1,2,3: {:.1} {:.1} {:.1} (1M: {:.0} {:.0} {:.0})",
        u8::from(p.frequent_last),
        p.k,
        p.w,
        p.bits,
        keys.iter().map(Vec::len).sum::<usize>() as f64 / n as f64,
        post.len(),
        mean(req_sum),
        mean(sim_req),
        mean(sim_req) * scale,
        mean(sim_m[0]),
        mean(sim_m[1]),
        mean(sim_m[2]),
        mean(sim_m[0]) * scale,
        mean(sim_m[1]) * scale,
        mean(sim_m[2]) * scale,
        mean(con_m[0]),
        mean(con_m[1]),
        mean(con_m[2]),
        mean(con_m[0]) * scale,
        mean(con_m[1]) * scale,
        mean(con_m[2]) * scale,
    );
}
