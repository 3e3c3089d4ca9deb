//! Where a batch's tables are built and the chunks of a corpus looked up in them: in the
//! caller's thread, or in worker threads while the caller reads on.
//!
//! Reading a corpus and looking it up take the same order of time (a 1M batch against a
//! 10M corpus: 0.45 s to read, 0.75 s of lookups), so with workers the two overlap, and
//! the lookups of two chunks run at once. The batch is grouped and its tables built by
//! the workers too, while the caller reads the first chunks. The workers are plain Rust: they run
//! [`Prepared::new`], its table builds and [`BatchTables::groups_near_chunk`] on what they are
//! handed and nothing else, so they never call back into the caller (in PostgreSQL: never
//! into the server). The caller decides what a worker's birth must look like (the SQL layer
//! blocks signals around [`LookupThreads::start`], so that they keep going to the
//! backend's own thread).
//!
//! Chunks come back in the order they were submitted. Dropping the pool closes the job
//! queue and joins the workers, each after at most the job it is on.

use std::collections::VecDeque;
use std::panic::AssertUnwindSafe;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Duration;

use super::index::Indexed;
use super::prepared::Prepared;
use super::tables::{BatchTables, ChunkScratch};

/// A chunk of corpus rows `(id, fp)` and, once looked up, its matches `(row, group,
/// distance)`. The caller fills `rows` in place (the SQL layer fetches into it), and the
/// lookups take the fingerprints apart where they run, so handing a chunk over copies
/// nothing.
#[derive(Default)]
pub(super) struct Chunk {
    pub rows: Vec<(i64, u64)>,
    pub matches: Vec<(u32, u32, u32)>,
    /// For each match, its group's first batch id and number of rows, looked up with the
    /// matches: where the pairs are handed out (the backend's thread) each was a cache
    /// miss or two per pair, 0.09 s of a 1M batch against a 10M corpus (300,000 pairs).
    pub heads: Vec<(i64, u32)>,
    /// Units of work of the lookups.
    pub work: u64,
    /// The lookups panic (a test of how a worker's panic reaches the caller).
    #[cfg(test)]
    pub panic_for_test: bool,
}

impl Chunk {
    pub(super) fn look_up(&mut self, tables: &BatchTables, scratch: &mut ChunkScratch, fps: &mut Vec<u64>) {
        #[cfg(test)]
        assert!(!self.panic_for_test, "poisoned for the test");
        fps.clear();
        fps.extend(self.rows.iter().map(|r| r.1));
        self.matches.clear();
        self.work = tables.groups_near_chunk(fps, scratch, &mut self.matches);
        self.heads.clear();
        self.heads.extend(self.matches.iter().map(|m| tables.group_head(m.1)));
    }
}

enum Job {
    /// Group the batch rows and choose the plan, at maximum distance `k`.
    Prepare(Vec<(i64, u64)>, u32),
    /// Build table `i` of the batch.
    Build(usize, Arc<Prepared>),
    /// Look up the chunk with this sequence number.
    LookUp(u64, Chunk, Arc<BatchTables>),
}

/// What a worker hands back.
pub(super) enum Done {
    Prepared(Prepared),
    Built(usize, Indexed),
    LookedUp(Chunk),
    /// Nothing is in flight.
    Idle,
    /// Something is, not done yet: check for cancellation and ask again.
    Pending,
}

/// Worker threads for [`super::CorpusPairs::start`], started before the
/// tables exist, so that the caller starts them once, in whatever state threads must be
/// born in.
pub struct LookupThreads(pub(super) Option<Pool>);

impl LookupThreads {
    /// `threads` workers (0: none, the caller does the work itself). A worker that cannot
    /// be started is done without.
    pub fn start(threads: usize) -> LookupThreads {
        if threads == 0 {
            return LookupThreads(None);
        }
        let (jobs, queue) = mpsc::channel::<Job>();
        let queue = Arc::new(Mutex::new(queue));
        let (done, results) = mpsc::channel();
        let mut workers = Vec::new();
        for i in 0..threads {
            let (queue, done) = (Arc::clone(&queue), done.clone());
            let spawned =
                std::thread::Builder::new().name(format!("simhash lookups {i}")).spawn(move || work(&queue, &done));
            match spawned {
                Ok(h) => workers.push(h),
                Err(_) => break,
            }
        }
        if workers.is_empty() {
            return LookupThreads(None);
        }
        LookupThreads(Some(Pool {
            jobs: Some(jobs),
            results,
            workers,
            next_seq: 0,
            next_out: 0,
            early: VecDeque::new(),
        }))
    }

    /// Workers running.
    pub fn len(&self) -> usize {
        self.0.as_ref().map_or(0, |p| p.workers.len())
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    pub(super) fn into_pool(self) -> Option<Pool> {
        self.0
    }
}

/// A worker: takes jobs until the queue closes; a panic (a bug) goes back as its message,
/// and ends the worker.
fn work(queue: &Mutex<Receiver<Job>>, done: &Sender<Result<(u64, Done), String>>) {
    let (mut scratch, mut fps) = (ChunkScratch::default(), Vec::new());
    loop {
        // The lock is held only while taking a job, never while doing one.
        let job = match queue.lock() {
            Ok(q) => q.recv(),
            Err(_) => return,
        };
        let Ok(job) = job else { return }; // the queue is closed
                                           // The job's Arc is dropped before the result is sent: once the last table is
                                           // back, the caller holds the only reference to the batch.
        let result = std::panic::catch_unwind(AssertUnwindSafe(|| match job {
            Job::Prepare(rows, k) => (u64::MAX, Done::Prepared(Prepared::new(rows, k, &mut |_| {}))),
            // The lookups' fingerprint buffer is free while tables are built.
            Job::Build(i, prepared) => (u64::MAX, Done::Built(i, prepared.build_table(i, &mut fps, &mut |_| {}))),
            Job::LookUp(seq, mut chunk, tables) => {
                chunk.look_up(&tables, &mut scratch, &mut fps);
                (seq, Done::LookedUp(chunk))
            }
        }));
        let failed = result.is_err();
        if done.send(result.map_err(panic_message)).is_err() || failed {
            return;
        }
    }
}

pub(super) struct Pool {
    /// `None` once closed (in `drop`).
    jobs: Option<Sender<Job>>,
    /// `(sequence number, result)` of each job (`u64::MAX` for a table), or the message of a
    /// worker's panic.
    results: Receiver<Result<(u64, Done), String>>,
    workers: Vec<JoinHandle<()>>,
    /// Lookups: next sequence number to submit, next to hand out.
    next_seq: u64,
    next_out: u64,
    /// Lookups that came back before an older one.
    early: VecDeque<(u64, Done)>,
    // Tables being built are counted by the caller, which knows how many it asked for.
}

impl Pool {
    pub(super) fn workers(&self) -> usize {
        self.workers.len()
    }

    /// Lookups submitted and not yet handed out.
    pub(super) fn in_flight(&self) -> usize {
        (self.next_seq - self.next_out) as usize
    }

    pub(super) fn prepare(&mut self, rows: Vec<(i64, u64)>, k: u32) {
        self.send(Job::Prepare(rows, k));
    }

    pub(super) fn build(&mut self, i: usize, prepared: Arc<Prepared>) {
        self.send(Job::Build(i, prepared));
    }

    pub(super) fn look_up(&mut self, chunk: Chunk, tables: Arc<BatchTables>) {
        self.send(Job::LookUp(self.next_seq, chunk, tables));
        self.next_seq += 1;
    }

    fn send(&mut self, job: Job) {
        let jobs = self.jobs.as_ref().expect("the job queue is open until drop");
        if jobs.send(job).is_err() {
            self.failed("the lookup threads stopped");
        }
    }

    /// The batch prepared or a table built (as soon as one is), or the oldest lookup
    /// submitted once done; waits at most `wait`. `building` says whether the batch is
    /// being prepared or its tables built.
    pub(super) fn take(&mut self, wait: Duration, building: bool) -> Done {
        loop {
            if let Some(i) = self.early.iter().position(|e| e.0 == self.next_out) {
                self.next_out += 1;
                return self.early.swap_remove_back(i).expect("found").1;
            }
            if self.next_out == self.next_seq && !building {
                return Done::Idle;
            }
            match self.results.recv_timeout(wait) {
                Ok(Ok((_, built @ (Done::Built(..) | Done::Prepared(_))))) => return built,
                Ok(Ok(r)) => self.early.push_back(r),
                Ok(Err(msg)) => self.failed(&format!("a lookup thread panicked: {msg}")),
                Err(RecvTimeoutError::Timeout) => return Done::Pending,
                Err(RecvTimeoutError::Disconnected) => self.failed("the lookup threads stopped"),
            }
        }
    }

    /// A worker has panicked: closes the queue, joins the workers and panics with `msg`.
    fn failed(&mut self, msg: &str) -> ! {
        self.jobs = None;
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
        panic!("{msg}");
    }
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned()).unwrap_or_default()
}

impl Drop for Pool {
    fn drop(&mut self) {
        // Closing the queue ends each worker after its current job; their results are
        // dropped with the channel.
        self.jobs = None;
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }
}
