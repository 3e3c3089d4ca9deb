//! What the examples share: this thread's CPU clock; `name=value` arguments; issue 55's table
//! of one template; and for the batch against corpus benchmarks their fingerprints, their
//! arguments, and the baseline every figure is divided by, a plain sequential pass over the
//! corpus.

// Each example uses a part of this module.
#![allow(dead_code)]

use std::hint::black_box;
use std::time::Instant;

use simhash_core::fingerprints::pairs::{BatchTables, ChunkScratch};

/// A well-mixed 64-bit value of `i` and seed `s`: the benchmarks' fingerprints.
pub fn mix(i: u64, s: u64) -> u64 {
    (i ^ s).wrapping_mul(0x9E37_79B9_7F4A_7C15).rotate_left(29).wrapping_mul(0xBF58_476D_1CE4_E5B9)
}

/// Batch rows `(id, fp)`: ids `0..n`.
pub fn batch(n: usize) -> Vec<(i64, u64)> {
    (0..n as u64).map(|i| (i as i64, mix(i, 1))).collect()
}

/// Corpus rows `(id, fp)`, fingerprints apart from the batch's (so pairs are rare, as
/// between unrelated documents).
pub fn corpus(n: usize) -> Vec<(i64, u64)> {
    (0..n as u64).map(|i| (i as i64, mix(i + (1 << 40), 1))).collect()
}

/// Positional argument `i` (1-based) as a number, `default` when absent.
pub fn arg(i: usize, default: usize) -> usize {
    std::env::args().nth(i).map_or(default, |a| a.replace('_', "").parse().expect("a row count"))
}

/// The argument `name=value` of `args`, parsed; `default` when absent or unparsable.
pub fn named<T: std::str::FromStr>(args: &[String], name: &str, default: T) -> T {
    args.iter().find_map(|a| a.strip_prefix(&format!("{name}=")).and_then(|v| v.parse().ok())).unwrap_or(default)
}

/// Issue 55's template: a row of it with `name` in its slot and `word` where the frame says
/// "terms".
pub fn template_row(name: &str, word: &str) -> String {
    format!("For an explanation of the {word} used in this section, see attributes(7). Interface Attribute Value {name}() Thread safety MT-Safe")
}

/// Function names of 10 to 20 random letters, from `seed` (xorshift): the template's fillers.
pub struct Names(u64);

impl Names {
    pub fn new(seed: u64) -> Names {
        Names(seed)
    }

    fn next_u64(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    pub fn next_name(&mut self) -> String {
        let len = 10 + self.next_u64() % 11;
        (0..len).map(|_| (b'a' + (self.next_u64() % 26) as u8) as char).collect()
    }
}

/// A stopwatch: this thread's CPU time (Linux schedstat; on a shared machine it does not
/// count the time other processes take), or wall time where other threads do the work.
pub enum Watch {
    Cpu(f64),
    Wall(Instant),
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat): unlike wall time, it does
/// not count the time other processes on a shared machine take from us.
pub fn thread_cpu_ns() -> f64 {
    let s = std::fs::read_to_string("/proc/thread-self/schedstat").expect("Linux schedstat");
    s.split_whitespace().next().and_then(|ns| ns.parse().ok()).expect("schedstat ns")
}

impl Watch {
    pub fn cpu() -> Watch {
        Watch::Cpu(thread_cpu_ns())
    }

    pub fn wall() -> Watch {
        Watch::Wall(Instant::now())
    }

    /// Nanoseconds per row of `rows` rows since the start.
    pub fn ns_per_row(&self, rows: usize) -> f64 {
        let ns = match self {
            Watch::Cpu(t0) => thread_cpu_ns() - t0,
            Watch::Wall(t0) => t0.elapsed().as_nanos() as f64,
        };
        ns / rows.max(1) as f64
    }
}

/// The baseline, in ns per corpus row: one XOR-popcount of every corpus fingerprint
/// against one value, in order (a sequential read and the cheapest comparison), in this
/// thread's CPU time, over passes enough for at least 2^27 rows (the clock advances in
/// scheduler ticks).
pub fn sequential_pass(fps: &[u64]) -> f64 {
    let passes = (1usize << 27).div_ceil(fps.len().max(1));
    let watch = Watch::cpu();
    for s in 0..passes as u64 {
        black_box(fps.iter().filter(|&&fp| (fp ^ mix(s, 2)).count_ones() <= 3).count());
    }
    watch.ns_per_row(passes * fps.len())
}

/// The corpus fingerprints `fps` looked up in `t` in chunks of `size` rows (as the
/// caller of `groups_near_chunk` does, without taking the pairs): ns per corpus row by
/// `watch`, started here.
pub fn look_up(t: &BatchTables, fps: &[u64], size: usize, watch: fn() -> Watch) -> f64 {
    let (mut scratch, mut out) = (ChunkScratch::default(), Vec::new());
    let watch = watch();
    for c in fps.chunks(size) {
        out.clear();
        t.groups_near_chunk(c, &mut scratch, &mut out);
    }
    watch.ns_per_row(fps.len())
}

/// `ns` ns per row, and its ratio to the baseline `base`.
pub fn figure(ns: f64, base: f64) -> String {
    format!("{ns:.1} ns/row ({:.1}x seq)", ns / base)
}
