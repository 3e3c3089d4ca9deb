//! Every pair of a set of texts at similarity θ or more, exactly measured, in time linear in
//! the rows and memory that does not hold the texts: MinHash banding (locality-sensitive
//! hashing) for candidates, the exact measure on the full shingle sets for every candidate.
//!
//! **Per row** (a worker thread, `sketch.rs`): the kept characters go to a temporary file
//! (`spill.rs`), the shingle set to its size, a 64-bit hash and a densified one-permutation
//! MinHash signature, which becomes `b` band keys of `r` values and 128 two-bit codes.
//! **Groups** (`groups.rs`): rows with identical sets are one, confirmed exactly. **Bands**
//! (`bands.rs`): for each band the rows sorted on its key; each pair in a run of equal keys,
//! in its first such band, is a candidate if its codes agree enough and its set sizes allow
//! θ, and is then measured: `jaccard(common, |A|, |B|)` on both sets re-made from the file,
//! bit for bit the value of `measure::similarity`. Bands run on the workers, any order.
//!
//! **The plan** (`plan.rs`) at θ, `(r, b)` and bytes per row held: 0.3 (2, 79) 380, 0.4
//! (3, 113) 516, 0.5 (3, 56) 288, 0.6 (3, 31) 188, 0.7 (3, 18) 136, 0.8 (4, 15) 124, 0.85
//! (6, 16) 128, 0.9 (9, 16) 128, 0.95 (19, 16) 128 ([`plan::plan`]). **Miss bound:** a pair at
//! similarity exactly θ is no candidate with probability `(1 − θ^r)^b + 10⁻⁵` (no band, or the
//! code filter drops it) ≤ 6.1·10⁻⁴ for every plan, when the pair's shingles fall in distinct
//! bins of the 2,048; the smallest sets miss more, and the plan leaves room for it: over
//! 100,000 pairs each at θ = 0.5, sets of 1 and 2 shingles missed 8.4·10⁻⁴, 3 and 6 8.2·10⁻⁴,
//! 10 and 20 6.4·10⁻⁴ (formula 5.7·10⁻⁴; `tests.rs`, `small_sets_at_theta_are_found`): at
//! most 10⁻³ in all. The code filter skips sets under [`plan::CODED_MIN`] shingles. At
//! higher similarity less. Below θ = 0.3 there is no plan: the run is [`SimilarityPairs`]'
//! (sketch groups, every text's kept characters in memory), and its phase says so. Below
//! about 0.45 the plan costs more than 400 bytes a row (`r = 3`) or, below 0.38 (`r = 2`),
//! collisions grow with the square of the rows on a bounded vocabulary (`E[J²] = 8.7·10⁻⁶`
//! over random pairs of the Markov corpus: about 3·10⁸ collisions at 1M rows at 0.3).
//!
//! **Memory per row**, held until the end: id 8, set size 4, place in the file 12, band keys
//! `4·b` (224 at 0.5), codes 32, group link 4, representative list 4: `64 + 4·b` bytes (288
//! at 0.5, 128 at 0.9; [`bytes_per_row`]); while reading, 8 more (the set hash), and while
//! the bands run, 16 per row per worker (one band's sorted entries and their sort's scratch).
//! The texts are in the file (their kept characters, at most their UTF-8 bytes), and in
//! memory only a chunk at a time (1,024 rows or 1 MB, a few chunks per worker in flight).
//!
//! **Threads.** The caller pushes rows ([`BulkPairs::push`]) and pulls pairs
//! ([`BulkPairs::next`]); workers (`pool.rs`) do everything else and never call back. The
//! caller gets [`Progress::Tick`] at least every 10 ms while it waits for them; dropping the
//! engine at any point stops and joins them (each checks a flag every millisecond or so).
//! A worker's panic reaches the caller as a panic with its message. [`Counters`] can be read
//! from anywhere while it runs.
//!
//! **Equal ids** are never paired (a row with itself); two rows of one id may both pair
//! with a third, as in [`SimilarityPairs`]: the SQL layer refuses a query with repeated ids
//! (`crate::bulk::first_repeated`). A text without shingles is in no pair (θ > 0).
//!
//! **Why banding** (`examples/bulk_pairs.rs`, Markov paragraphs of People's Daily of 200–500
//! characters and 10% reposts, θ = 0.5, 2 shared cores): prefix filtering in the table's own
//! frequency order (AllPairs/PPJoin, `exact.rs`) draws candidates with the square of the rows,
//! 7.6·10⁷ at 100k (511 s) and 4.8·10⁸ at 250k, for 9,930 and 24,860 pairs; the sketch-group
//! engine took 89 s at 100k. Banding: 0.50M collisions and 9,868 candidates at 100k (4.4 s),
//! 7.5M and 98,920 at 1M (30 s, 46 CPU s, peak RSS 319 MB), 317M and 1.0M at 10M (491 CPU
//! s: 388 reading and sketching, 102 in the bands; peak RSS 3,081 MB), the same pairs as
//! `exact_pairs` at 20k. The bands grow faster than the rows (7.5 CPU s at 1M, 102 at 10M):
//! collisions of random pairs (`E[J³] = 6.7·10⁻⁸`) go with their square.
//!
//! **Shards** (`exchange.rs`): [`row_keys`] makes a text's band keys, codes and set size into
//! bytes; [`BulkPairs::push_foreign`] takes such a row from another shard, and its
//! candidates with local rows come out unmeasured as [`Found::Foreign`], for the caller to
//! fetch the foreign text and measure (two foreign rows are never paired). On many shards
//! ([`slices`]) each shard owns a range of the bands instead, and finds the candidates of its
//! bands among all documents from a slice of their keys.

mod bands;
mod engine;
mod exchange;
mod groups;
mod heavy;
mod join;
mod output;
pub mod plan;
mod pool;
mod radix;
mod sketch;
pub mod slices;
mod template_pairs;
pub mod templates;
#[cfg(test)]
mod templates_tests;
#[cfg(test)]
mod tests;

use std::path::PathBuf;
use std::sync::atomic::{AtomicU64, AtomicU8, Ordering};
use std::sync::Arc;

pub use exchange::{band_keys_of, row_keys};
pub use plan::Plan;

use super::pairs::{SimilarityPair, SimilarityPairs, TextRows};
use super::shingles::Version;
use crate::bulk::Progress;
use engine::Lsh;

/// What a run is asked.
#[derive(Debug, Clone)]
pub struct Config {
    pub theta: f64,
    pub version: Version,
    /// Worker threads (at least 1).
    pub threads: usize,
    /// Where the temporary file of the rows' texts goes (default: `std::env::temp_dir()`).
    pub spill_dir: Option<PathBuf>,
    /// Whether a pair is handed out only when the dedup decision calls its two texts the same
    /// passage (`crate::decision`; 6.0's bulk pairs), or whenever it reaches θ (5.x's).
    pub decide: Option<crate::decision::Rule>,
    /// How a run that decides treats the templates of its rows ([`templates`]); one that does
    /// not finds none.
    pub templates: templates::Mode,
}

/// What [`BulkPairs::next`] hands out.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Found {
    /// A pair of local rows, measured, `id1 < id2`.
    Pair(SimilarityPair),
    /// A candidate of a local row and a foreign one ([`BulkPairs::push_foreign`]), unmeasured.
    Foreign { local: i64, foreign: i64 },
}

/// A run's phase, as [`Counters::phase`] tells it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Phase {
    Reading = 0,
    Grouping = 1,
    Bands = 2,
    Groups = 3,
    Done = 4,
    /// Below θ = 0.3: the sketch-group engine, texts in memory.
    Fallback = 5,
    /// Finding the rows' templates ([`templates`]).
    Templates = 6,
}

/// A run's progress, readable from any thread while it runs.
#[derive(Debug, Default)]
pub struct Counters {
    /// Rows pushed (local and foreign).
    pub rows: AtomicU64,
    /// Rows sketched by the workers.
    pub sketched: AtomicU64,
    /// Rows found identical (in shingle set) to an earlier one.
    pub duplicates: AtomicU64,
    pub bands: AtomicU64,
    pub bands_done: AtomicU64,
    /// Pairs met in a run of equal band keys (every band).
    pub collisions: AtomicU64,
    /// Collisions that passed the filters: measured, or handed out as foreign candidates.
    pub candidates: AtomicU64,
    /// Pairs handed out.
    pub pairs: AtomicU64,
    /// Pairs at θ or more that the dedup decision kept apart.
    pub apart: AtomicU64,
    /// Bytes of kept characters in the spill file.
    pub spilled: AtomicU64,
    /// Rows whose pairs among their template's rows the join finds ([`templates`]).
    pub templated: AtomicU64,
    phase: AtomicU8,
}

impl Counters {
    pub fn phase(&self) -> Phase {
        match self.phase.load(Ordering::Relaxed) {
            0 => Phase::Reading,
            1 => Phase::Grouping,
            2 => Phase::Bands,
            3 => Phase::Groups,
            4 => Phase::Done,
            6 => Phase::Templates,
            _ => Phase::Fallback,
        }
    }

    pub(crate) fn set_phase(&self, p: Phase) {
        self.phase.store(p as u8, Ordering::Relaxed);
    }

    /// One line for a NOTICE: phase and counters.
    pub fn summary(&self) -> String {
        let g = |a: &AtomicU64| a.load(Ordering::Relaxed);
        format!(
            "{:?}: {} rows, {} sketched ({} MB spilled), {} duplicates, {} templated, bands {}/{}, {} collisions, {} candidates, {} pairs, {} kept apart",
            self.phase(),
            g(&self.rows),
            g(&self.sketched),
            g(&self.spilled) >> 20,
            g(&self.duplicates),
            g(&self.templated),
            g(&self.bands_done),
            g(&self.bands),
            g(&self.collisions),
            g(&self.candidates),
            g(&self.pairs),
            g(&self.apart)
        )
    }
}

/// Bytes per row a run under `plan` holds (module docs), besides the transient ones.
pub fn bytes_per_row(plan: &Plan) -> usize {
    8 + 4 + 12 + plan.key_bytes() + 4 + 4
}

/// Every pair of the pushed texts at similarity θ or more (module docs).
pub struct BulkPairs {
    inner: Inner,
    counters: Arc<Counters>,
}

enum Inner {
    Lsh(Box<Lsh>),
    /// Below θ = 0.3: the texts, then their pairs.
    Fallback(Box<(Option<TextRows>, Option<SimilarityPairs>, f64)>),
}

impl BulkPairs {
    /// A run: starts the worker threads (the caller decides their birth: the SQL layer blocks
    /// signals around this call) and makes the spill file. An error if neither can be had.
    pub fn new(config: &Config) -> std::io::Result<BulkPairs> {
        let counters = Arc::new(Counters::default());
        let inner = match plan::plan(config.theta) {
            Some(p) => Inner::Lsh(Box::new(Lsh::new(config, p, Arc::clone(&counters))?)),
            None => {
                counters.set_phase(Phase::Fallback);
                let rows = TextRows::new(config.theta, config.version).deciding(config.decide);
                Inner::Fallback(Box::new((Some(rows), None, config.theta)))
            }
        };
        Ok(BulkPairs { inner, counters })
    }

    /// The banding, None below θ = 0.3.
    pub fn plan(&self) -> Option<Plan> {
        match &self.inner {
            Inner::Lsh(l) => Some(l.plan),
            Inner::Fallback(..) => None,
        }
    }

    pub fn counters(&self) -> Arc<Counters> {
        Arc::clone(&self.counters)
    }

    /// Adds a row. Rows come before the first [`BulkPairs::next`].
    pub fn push(&mut self, id: i64, text: &str, cb: &mut dyn FnMut(Progress)) {
        self.counters.rows.fetch_add(1, Ordering::Relaxed);
        match &mut self.inner {
            Inner::Lsh(l) => l.push(id, text, cb),
            Inner::Fallback(f) => {
                f.0.as_mut().expect("rows come before pairs").push(id, text, &mut || cb(Progress::Tick))
            }
        }
    }

    /// Adds a foreign row: `bytes` from [`row_keys`] on another shard, under the same θ and
    /// version. An error if they are not such bytes, or below θ = 0.3 (no band keys).
    pub fn push_foreign(&mut self, id: i64, bytes: &[u8]) -> Result<(), String> {
        match &mut self.inner {
            Inner::Lsh(l) => {
                l.push_foreign(id, bytes)?;
                self.counters.rows.fetch_add(1, Ordering::Relaxed);
                Ok(())
            }
            Inner::Fallback(..) => Err("no band keys below similarity 0.3".into()),
        }
    }

    /// The next pair or foreign candidate; None when all are out. The first call ends the input.
    pub fn next(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<Found> {
        let found = match &mut self.inner {
            Inner::Lsh(l) => l.next(cb),
            Inner::Fallback(f) => {
                let (rows, pairs, theta) = &mut **f;
                if let Some(rows) = rows.take() {
                    cb(Progress::Phase("below similarity 0.3: no banding, the sketch-group engine".into()));
                    *pairs = Some(SimilarityPairs::new(rows, *theta, cb));
                }
                pairs.as_mut().and_then(|p| p.next_pair(cb)).map(Found::Pair)
            }
        };
        if found.is_some() {
            self.counters.pairs.fetch_add(1, Ordering::Relaxed);
        }
        found
    }

    /// The next measured pair, passing over foreign candidates.
    pub fn next_pair(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<SimilarityPair> {
        loop {
            if let Found::Pair(p) = self.next(cb)? {
                return Some(p);
            }
        }
    }
}

/// The connected components of a run's pairs: `(id, cluster_id)` for every id in a pair,
/// `cluster_id` the smallest id of its component, sorted by `(cluster_id, id)`, as
/// [`super::similarity_clusters`] makes them.
pub fn clusters(mut run: BulkPairs, cb: &mut dyn FnMut(Progress)) -> Vec<(i64, i64)> {
    super::pairs::clusters_of(&mut |cb| run.next_pair(cb), cb)
}

/// What workers send back (`engine.rs` reads it).
enum Msg {
    /// A chunk's rows sketched, by its sequence number.
    Sketched(u64, Box<engine::Sketched>),
    /// Candidate groups of identical sets (`groups::runs`).
    Runs(Vec<u32>, Vec<u32>),
    /// Confirmed `(representative, member)` links.
    Links(Vec<(u32, u32)>),
    /// Measured pairs of representatives `(x, y, similarity)`.
    Pairs(Vec<(u32, u32, f64, bool)>),
    /// `(local representative, foreign row)` candidates.
    Foreign(Vec<(u32, u32)>),
    /// A part of where the templates are (`heavy.rs`).
    Heavy(heavy::Part),
    /// A template learned and its local rows, or none (`templates::learn`).
    Template(Option<Box<(templates::Template, Vec<u32>)>>),
    /// A chunk of a template's rows, by template and chunk: its members (`templates::members`).
    Members(usize, usize, Box<templates::Members>),
    BandDone,
}

/// The rows' data the workers share once reading is done.
struct Rows {
    plan: Plan,
    theta: f64,
    version: Version,
    /// Config's `decide`.
    decide: Option<crate::decision::Rule>,
    sizes: Vec<u32>,
    offsets: Vec<u64>,
    lens: Vec<u32>,
    /// Row-major: row x's keys are `keys[x·b..(x+1)·b]`.
    keys: Vec<u32>,
    /// Row x's codes are `codes[x·4..(x+1)·4]`.
    codes: Vec<u64>,
    /// Rows `n_local..` are foreign.
    n_local: usize,
    spill: Arc<crate::bulk::spill::Spill>,
    counters: Arc<Counters>,
}
