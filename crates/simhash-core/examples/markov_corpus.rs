//! Distinct texts at scale for the similarity benches (tests/bench/similarity.sh): an
//! order-`o` character Markov chain trained on a corpus, so that the texts share character
//! n-grams at about the corpus's rates but no sentence, as a million distinct articles would.
//! (Copies of corpus paragraphs would make every paragraph a shared passage of hundreds of
//! texts.) Deterministic: a splitmix64 stream from the seed.
//!
//!   markov_corpus CORPUS N MIN MAX [order=3] [seed=1998]
//!
//! writes N texts, one a line, of MIN to MAX characters (uniform), each started at the
//! context of a random corpus position and ended at the first sentence end past its length.

use std::collections::HashMap;
use std::io::{BufRead, Write};

struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
}

fn arg(args: &[String], name: &str, default: u64) -> u64 {
    args.iter().find_map(|a| a.strip_prefix(&format!("{name}=")).and_then(|v| v.parse().ok())).unwrap_or(default)
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let corpus = &args[1];
    let n: usize = args[2].parse().expect("N");
    let (lo, hi): (usize, usize) = (args[3].parse().expect("MIN"), args[4].parse().expect("MAX"));
    let order = arg(&args, "order", 3) as usize;
    let mut rng = Rng(arg(&args, "seed", 1998));
    // The corpus as one character sequence, paragraphs separated by '\n'.
    let mut text: Vec<char> = Vec::new();
    for line in std::io::BufReader::new(std::fs::File::open(corpus).expect("corpus")).lines() {
        text.extend(line.expect("line").chars());
        text.push('\n');
    }
    // Context → the positions that follow it (a character drawn from them is drawn by its
    // frequency after the context).
    let mut next: HashMap<&[char], Vec<u32>> = HashMap::new();
    for i in order..text.len() {
        next.entry(&text[i - order..i]).or_default().push(i as u32);
    }
    let ends = ['。', '！', '？', '.', '!', '?'];
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    let mut doc = String::new();
    for _ in 0..n {
        let len = lo + rng.below(hi - lo + 1);
        doc.clear();
        let mut ctx: Vec<char> = {
            let at = order + rng.below(text.len() - order);
            text[at - order..at].to_vec()
        };
        let mut chars = 0;
        loop {
            let Some(follow) = next.get(ctx.as_slice()) else {
                let at = order + rng.below(text.len() - order);
                ctx = text[at - order..at].to_vec();
                continue;
            };
            let c = text[follow[rng.below(follow.len())] as usize];
            ctx.remove(0);
            ctx.push(c);
            if c == '\n' {
                continue;
            }
            doc.push(c);
            chars += 1;
            if chars >= len && (ends.contains(&c) || chars >= len + 200) {
                break;
            }
        }
        writeln!(out, "{doc}").expect("stdout");
    }
}
