//! The pairs of a batch and a corpus, streamed: the corpus fed a chunk at a time, each
//! chunk looked up in the batch's tables (`BatchTables`) by the caller or by
//! worker threads ([`LookupThreads`]), its pairs handed out one at a time in the
//! order the chunks were fed.

use std::collections::VecDeque;
use std::sync::Arc;
use std::time::Duration;

use super::super::Progress;
use super::index::Indexed;
use super::prepared::Prepared;
use super::tables::{chunk_rows, BatchTables, ChunkScratch};
use super::threads::{Chunk, Done, LookupThreads, Pool};

/// Streams the pairs of a batch and a corpus fed a chunk at a time:
/// [`CorpusPairs::feed`] chunks while [`CorpusPairs::wants_chunk`], [`CorpusPairs::advance`]
/// to the oldest chunk looked up, and take its pairs from [`CorpusPairs::next_pending`]
/// until it returns `None`. The chunks are looked up by the caller in `feed`, or with
/// worker threads ([`CorpusPairs::start`], [`LookupThreads`]) by them while the
/// caller reads the next ones; the workers build the tables too, while the caller reads
/// the first chunks. The pairs come chunk by chunk in the order fed, corpus row by corpus
/// row in a chunk's order; for one corpus row, group of identical batch fingerprints by
/// group in the order the tables meet them, each group's batch ids increasing. Memory: per
/// chunk in flight its rows and matches (one entry per matching group, not per pair), and
/// a [`ChunkScratch`] per thread that looks up.
pub struct CorpusPairs {
    stage: Stage,
    /// The plan's description, chosen by a worker, for [`CorpusPairs::phase`].
    phase: Option<String>,
    /// The worker threads; `None`: the caller looks up, in `feed`.
    pool: Option<Pool>,
    scratch: ChunkScratch,
    fps: Vec<u64>,
    /// Chunks fed and not yet handed to the lookups (tables not built yet, or the workers
    /// busy), then chunks looked up by the caller, waiting for `advance`.
    pub(super) waiting: VecDeque<Chunk>,
    chunk_rows: usize,
    /// The chunk whose pairs [`CorpusPairs::next_pending`] hands out.
    current: Chunk,
    /// Chunks whose pairs have all been handed out, to be filled again.
    spare: Vec<Chunk>,
    /// Next pair: match `mi` of `current`, row `row` of its group.
    mi: usize,
    row: usize,
    /// Pairs returned, corpus rows fed, units of work of the chunks looked up.
    pub emitted: u64,
    pub fed: u64,
    pub work: u64,
}

enum Stage {
    /// A worker is grouping the batch and choosing the plan.
    Grouping,
    /// The workers are building the tables: `built[i]` once table `i` is back.
    Building {
        prepared: Arc<Prepared>,
        built: Vec<Option<Indexed>>,
    },
    Ready(Arc<BatchTables>),
    /// Only while moving from one to the other.
    Moving,
}

/// What [`CorpusPairs::advance`] did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Advance {
    /// The oldest chunk fed is now the one whose pairs are handed out.
    Ready,
    /// It is still being looked up (or the tables built): check for cancellation and ask
    /// again.
    Pending,
    /// Every chunk fed has been handed out.
    Idle,
}

impl CorpusPairs {
    /// Chunks looked up by the caller, in [`CorpusPairs::feed`].
    pub fn new(tables: BatchTables) -> CorpusPairs {
        Self::with_threads(tables, 0)
    }

    /// Built tables, chunks looked up by `threads` worker threads (fewer if the system
    /// refuses to start some; none: by the caller), started here and joined on drop.
    pub fn with_threads(tables: BatchTables, threads: usize) -> CorpusPairs {
        let chunk_rows = tables.chunk_rows();
        Self::with_stage(Stage::Ready(Arc::new(tables)), LookupThreads::start(threads).into_pool(), chunk_rows)
    }

    /// The batch's tables built and its chunks looked up by `threads` (see
    /// [`LookupThreads`]); with none, the tables are built here, calling `cb`.
    pub fn start(prepared: Prepared, threads: LookupThreads, cb: &mut dyn FnMut(Progress)) -> CorpusPairs {
        let chunk_rows = prepared.chunk_rows();
        match threads.into_pool() {
            None => Self::with_stage(Stage::Ready(Arc::new(prepared.build(cb))), None, chunk_rows),
            Some(pool) => {
                let mut p = Self::with_stage(Stage::Grouping, Some(pool), chunk_rows);
                p.build(prepared);
                p
            }
        }
    }

    /// The batch rows `(id, fp)` grouped, the plan chosen and the tables built, and the
    /// chunks looked up, by `threads`; with none, here (calling `cb`). With threads the
    /// plan's [`Progress::Phase`] comes from [`CorpusPairs::phase`] once known, and chunks
    /// are as big as for as many distinct fingerprints as rows. Panics if `k > 64`.
    pub fn start_rows(
        rows: Vec<(i64, u64)>,
        k: u32,
        threads: LookupThreads,
        cb: &mut dyn FnMut(Progress),
    ) -> CorpusPairs {
        assert!(k <= 64, "max distance {k} > 64");
        match threads.into_pool() {
            None => Self::start(Prepared::new(rows, k, cb), LookupThreads(None), cb),
            Some(mut pool) => {
                let chunk_rows = chunk_rows(rows.len());
                pool.prepare(rows, k);
                Self::with_stage(Stage::Grouping, Some(pool), chunk_rows)
            }
        }
    }

    /// The plan, once a worker has chosen it ([`CorpusPairs::start_rows`]), once.
    pub fn phase(&mut self) -> Option<String> {
        self.phase.take()
    }

    /// Hands the tables of `prepared` to the workers to build.
    fn build(&mut self, prepared: Prepared) {
        let pool = self.pool.as_mut().expect("building in workers");
        let n = prepared.table_count();
        let prepared = Arc::new(prepared);
        for i in 0..n {
            pool.build(i, Arc::clone(&prepared));
        }
        self.stage = Stage::Building { prepared, built: (0..n).map(|_| None).collect() };
        self.finish_building(); // no table to build (brute force, empty batch)
    }

    fn with_stage(stage: Stage, pool: Option<Pool>, chunk_rows: usize) -> CorpusPairs {
        CorpusPairs {
            stage,
            phase: None,
            pool,
            scratch: ChunkScratch::default(),
            fps: Vec::new(),
            waiting: VecDeque::new(),
            chunk_rows,
            current: Chunk::default(),
            spare: Vec::new(),
            mi: 0,
            row: 0,
            emitted: 0,
            fed: 0,
            work: 0,
        }
    }

    /// The tables once built: while workers build them, `None`.
    pub fn tables(&self) -> Option<&BatchTables> {
        match &self.stage {
            Stage::Ready(t) => Some(t),
            _ => None,
        }
    }

    /// Corpus rows per chunk to feed.
    pub fn chunk_rows(&self) -> usize {
        self.chunk_rows
    }

    /// Worker threads running.
    pub fn threads(&self) -> usize {
        self.pool.as_ref().map_or(0, |p| p.workers())
    }

    fn in_flight(&self) -> usize {
        self.waiting.len() + self.pool.as_ref().map_or(0, |p| p.in_flight())
    }

    /// Whether [`CorpusPairs::feed`] may be called: fewer chunks fed and not yet current
    /// than two per worker, or without workers, none.
    pub fn wants_chunk(&self) -> bool {
        // Two chunks per worker: one being looked up, one waiting (which also covers the
        // tables' build: about 0.05 s for a 1M batch on 2 workers, 4 chunks' reading).
        self.in_flight() < (2 * self.threads()).max(1)
    }

    /// Hands over a chunk of corpus rows `(id, fp)` to be looked up (a copy of them). Only
    /// when [`CorpusPairs::wants_chunk`].
    pub fn feed(&mut self, rows: &[(i64, u64)]) {
        let mut buf = self.chunk_buffer();
        buf.extend_from_slice(rows);
        self.feed_rows(buf);
    }

    /// An empty buffer for [`CorpusPairs::feed_rows`], with the capacity of an earlier
    /// chunk's once there is one.
    pub fn chunk_buffer(&mut self) -> Vec<(i64, u64)> {
        let mut rows = self.spare.last_mut().map(|c| std::mem::take(&mut c.rows)).unwrap_or_default();
        rows.clear();
        rows
    }

    /// [`CorpusPairs::feed`] without the copy: the chunk is `rows`.
    pub fn feed_rows(&mut self, rows: Vec<(i64, u64)>) {
        assert!(self.wants_chunk(), "feed while the lookups are full");
        let mut c = self.spare.pop().unwrap_or_default();
        self.fed += rows.len() as u64;
        c.rows = rows;
        if let (Stage::Ready(t), None) = (&self.stage, &self.pool) {
            c.look_up(t, &mut self.scratch, &mut self.fps);
        }
        self.waiting.push_back(c);
        self.pump();
    }

    /// Hands waiting chunks to the workers while they have room, once the tables are built.
    pub(super) fn pump(&mut self) {
        if let (Stage::Ready(t), Some(pool)) = (&self.stage, &mut self.pool) {
            while pool.in_flight() < pool.workers() + 1 {
                let Some(c) = self.waiting.pop_front() else { break };
                pool.look_up(c, Arc::clone(t));
            }
        }
    }

    /// Once every table is back: the batch with its tables, and the chunks waiting for
    /// them handed over.
    fn finish_building(&mut self) {
        if !matches!(&self.stage, Stage::Building { built, .. } if built.iter().all(Option::is_some)) {
            return;
        }
        let Stage::Building { prepared, built, .. } = std::mem::replace(&mut self.stage, Stage::Moving) else {
            unreachable!()
        };
        let prepared =
            Arc::try_unwrap(prepared).unwrap_or_else(|_| panic!("a worker still holds the batch after its last table"));
        let tables = prepared.finish(built.into_iter().map(|t| t.expect("every table built")).collect());
        self.stage = Stage::Ready(Arc::new(tables));
        self.pump();
    }

    /// Once the current chunk's pairs are all handed out: makes the oldest chunk fed the
    /// current one, waiting at most `wait` for its lookups (and the tables).
    pub fn advance(&mut self, wait: Duration) -> Advance {
        let Some(pool) = &mut self.pool else {
            return match self.waiting.pop_front() {
                Some(c) => self.make_current(c),
                None => Advance::Idle,
            };
        };
        let building = matches!(self.stage, Stage::Grouping | Stage::Building { .. });
        match pool.take(wait, building) {
            Done::Prepared(p) => {
                self.phase = Some(p.describe());
                self.build(p);
                Advance::Pending
            }
            Done::Built(i, t) => {
                if let Stage::Building { built, .. } = &mut self.stage {
                    built[i] = Some(t);
                }
                self.finish_building();
                Advance::Pending
            }
            Done::LookedUp(c) => {
                self.pump();
                self.make_current(c)
            }
            Done::Pending => Advance::Pending,
            Done::Idle if self.waiting.is_empty() => Advance::Idle,
            Done::Idle => {
                self.pump();
                Advance::Pending
            }
        }
    }

    fn make_current(&mut self, c: Chunk) -> Advance {
        self.work += c.work;
        let done = std::mem::replace(&mut self.current, c);
        self.spare.push(done);
        self.mi = 0;
        self.row = 0;
        Advance::Ready
    }

    fn batch(&self) -> &BatchTables {
        match &self.stage {
            Stage::Ready(t) => t,
            _ => panic!("pairs before the tables are built"),
        }
    }

    /// The next `(batch_id, corpus_id, distance)` of the current chunk.
    pub fn next_pending(&mut self) -> Option<(i64, i64, u32)> {
        while let Some(&(r, g, d)) = self.current.matches.get(self.mi) {
            let (first, len) = self.current.heads[self.mi];
            if self.row < len as usize {
                let id = if self.row == 0 { first } else { self.batch().group_id(g, self.row) };
                self.row += 1;
                self.emitted += 1;
                return Some((id, self.current.rows[r as usize].0, d));
            }
            self.mi += 1;
            self.row = 0;
        }
        None
    }

    /// Every pair of the chunks fed, waiting for their lookups, appended to `out`.
    pub fn drain_into(&mut self, out: &mut Vec<(i64, i64, u32)>) {
        loop {
            while let Some(p) = self.next_pending() {
                out.push(p);
            }
            if self.advance(Duration::from_secs(3600)) == Advance::Idle {
                return;
            }
        }
    }

    /// Every pair of `corpus` fed in chunks of `size` rows, in the order handed out, all
    /// held in memory: for tests and small inputs.
    pub fn feed_all(&mut self, corpus: &[(i64, u64)], size: usize) -> Vec<(i64, i64, u32)> {
        let mut got = Vec::new();
        for chunk in corpus.chunks(size.max(1)) {
            while !self.wants_chunk() {
                self.drain_into(&mut got);
            }
            self.feed(chunk);
        }
        self.drain_into(&mut got);
        got
    }

    /// The tables back, the workers joined.
    pub fn into_tables(self) -> BatchTables {
        let CorpusPairs { stage, pool, .. } = self;
        drop(pool);
        match stage {
            Stage::Ready(t) => {
                Arc::try_unwrap(t).unwrap_or_else(|_| panic!("the workers hold the tables until joined"))
            }
            _ => panic!("the tables are not built"),
        }
    }
}

/// Every `(batch_id, corpus_id, distance)` within `k`, collected and sorted: for tests
/// and small inputs. Panics if `k > 64`.
pub fn batch_vs_corpus(
    batch: impl IntoIterator<Item = (i64, u64)>,
    corpus: impl IntoIterator<Item = (i64, u64)>,
    k: u32,
    cb: &mut dyn FnMut(Progress),
) -> Vec<(i64, i64, u32)> {
    collect(CorpusPairs::new(BatchTables::new(batch, k, cb)), corpus)
}

/// `corpus` fed to `pairs` in chunks of an odd size, its pairs collected and sorted.
pub(super) fn collect(mut pairs: CorpusPairs, corpus: impl IntoIterator<Item = (i64, u64)>) -> Vec<(i64, i64, u32)> {
    let corpus: Vec<(i64, u64)> = corpus.into_iter().collect();
    // Chunks of an odd size, so chunk and lookahead boundaries fall everywhere.
    let mut out = pairs.feed_all(&corpus, 37);
    out.sort_unstable();
    out
}
