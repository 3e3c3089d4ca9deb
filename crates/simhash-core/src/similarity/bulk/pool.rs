//! The worker threads of a bulk run (`super`): boxed jobs from one queue, results back on one
//! bounded channel, a stop flag every job checks at least every millisecond or so of work.
//!
//! Workers are plain Rust: they run the jobs they are given (sketching, sorting, measuring on
//! the data the jobs hold) and never call back into the caller, so in PostgreSQL they never
//! call into the server. The caller decides what a thread's birth looks like (the SQL layer
//! blocks signals around [`Pool::start`]).
//!
//! **Stopping.** Dropping the pool sets the flag, closes the queue, drops the results'
//! receiver (a worker blocked on a full channel wakes with an error) and joins every worker:
//! each returns within one check of the flag. A job stops itself by unwinding with the
//! [`Stopped`] marker (`resume_unwind`, no panic message), which its worker catches. A real
//! panic in a job goes back to the caller as its message; the caller's next wait stops the
//! pool and panics with it. No lock is held across a job, and a poisoned queue lock is
//! taken as it is (nothing it guards can be left half-changed: it is the receiver alone).

use std::panic::AssertUnwindSafe;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, Sender, SyncSender, TryRecvError};
use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use crate::bulk::Progress;

/// How long the caller waits for a result before it reports a [`Progress::Tick`].
pub(super) const WAIT: Duration = Duration::from_millis(10);
/// Results that may wait in the channel: beyond that, workers wait for the caller.
const RESULTS: usize = 64;

/// The payload a job unwinds with when the pool stops (not a panic of its own).
pub(super) struct Stopped;

/// What a job is handed: the way back and the stop flag.
pub(super) struct Ctx<M> {
    out: SyncSender<Result<M, String>>,
    stop: Arc<AtomicBool>,
}

impl<M> Ctx<M> {
    /// Unwinds (with [`Stopped`]) if the pool is stopping.
    #[inline]
    pub(super) fn check(&self) {
        if self.stop.load(Ordering::Relaxed) {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    }

    /// Sends a result, waiting while the channel is full; unwinds if the caller is gone.
    pub(super) fn send(&self, m: M) {
        self.check();
        if self.out.send(Ok(m)).is_err() {
            std::panic::resume_unwind(Box::new(Stopped));
        }
    }
}

pub(super) type Job<M> = Box<dyn FnOnce(&Ctx<M>) + Send>;

pub(super) struct Pool<M: Send + 'static> {
    /// `None` once closed.
    jobs: Option<Sender<Job<M>>>,
    results: Option<Receiver<Result<M, String>>>,
    stop: Arc<AtomicBool>,
    workers: Vec<JoinHandle<()>>,
}

impl<M: Send + 'static> Pool<M> {
    /// `threads` workers (at least 1); an error if none could be started.
    pub(super) fn start(threads: usize) -> std::io::Result<Pool<M>> {
        let (jobs, queue) = mpsc::channel::<Job<M>>();
        let queue = Arc::new(Mutex::new(queue));
        let (out, results) = mpsc::sync_channel(RESULTS);
        let stop = Arc::new(AtomicBool::new(false));
        let mut workers = Vec::new();
        let mut error = None;
        for i in 0..threads.max(1) {
            let (queue, ctx) = (Arc::clone(&queue), Ctx { out: out.clone(), stop: Arc::clone(&stop) });
            match std::thread::Builder::new().name(format!("simhash bulk {i}")).spawn(move || work(&queue, &ctx)) {
                Ok(h) => workers.push(h),
                Err(e) => {
                    error = Some(e);
                    break;
                }
            }
        }
        match error {
            Some(e) if workers.is_empty() => Err(e),
            _ => Ok(Pool { jobs: Some(jobs), results: Some(results), stop, workers }),
        }
    }

    pub(super) fn workers(&self) -> usize {
        self.workers.len()
    }

    pub(super) fn submit(&mut self, job: Job<M>) {
        let sent = self.jobs.as_ref().is_some_and(|j| j.send(job).is_ok());
        if !sent {
            self.fail("the bulk pairs' worker threads stopped".into());
        }
    }

    /// The next result, reporting a [`Progress::Tick`] every [`WAIT`] while none comes.
    pub(super) fn recv(&mut self, cb: &mut dyn FnMut(Progress)) -> M {
        loop {
            let r = self.results.as_ref().map(|r| r.recv_timeout(WAIT));
            match r {
                Some(Ok(Ok(m))) => return m,
                Some(Ok(Err(msg))) => self.fail(format!("a bulk pairs worker panicked: {msg}")),
                Some(Err(RecvTimeoutError::Timeout)) => cb(Progress::Tick),
                _ => self.fail("the bulk pairs' worker threads stopped".into()),
            }
        }
    }

    /// Runs `jobs`, each sending one result, with at most two a worker out at once (so that
    /// the results waiting here stay few), handing each result to `each` as it comes.
    pub(super) fn run_each(&mut self, jobs: Vec<Job<M>>, cb: &mut dyn FnMut(Progress), mut each: impl FnMut(M)) {
        let (total, mut jobs) = (jobs.len(), jobs.into_iter());
        let (mut sent, mut got) = (0, 0);
        while got < total {
            while sent < total && sent - got < 2 * self.workers() {
                self.submit(jobs.next().expect("one left"));
                sent += 1;
            }
            each(self.recv(cb));
            got += 1;
        }
    }

    /// A result if one is there.
    pub(super) fn try_recv(&mut self) -> Option<M> {
        match self.results.as_ref()?.try_recv() {
            Ok(Ok(m)) => Some(m),
            Ok(Err(msg)) => self.fail(format!("a bulk pairs worker panicked: {msg}")),
            Err(TryRecvError::Empty) => None,
            Err(TryRecvError::Disconnected) => self.fail("the bulk pairs' worker threads stopped".into()),
        }
    }

    /// Stops and joins the workers.
    fn shut(&mut self) {
        self.stop.store(true, Ordering::SeqCst);
        self.jobs = None;
        self.results = None;
        for h in self.workers.drain(..) {
            let _ = h.join();
        }
    }

    /// Stops the workers and panics with `msg` (in the caller's thread).
    fn fail(&mut self, msg: String) -> ! {
        self.shut();
        panic!("{msg}");
    }
}

impl<M: Send + 'static> Drop for Pool<M> {
    fn drop(&mut self) {
        self.shut();
    }
}

/// A worker: runs jobs until the queue closes or one panics.
fn work<M>(queue: &Mutex<Receiver<Job<M>>>, ctx: &Ctx<M>) {
    loop {
        // The lock is held while waiting for a job, never while doing one.
        let job = queue.lock().unwrap_or_else(PoisonError::into_inner).recv();
        let Ok(job) = job else { return };
        if let Err(e) = std::panic::catch_unwind(AssertUnwindSafe(|| job(ctx))) {
            if !e.is::<Stopped>() {
                let _ = ctx.out.send(Err(panic_message(e)));
            }
            return;
        }
    }
}

fn panic_message(e: Box<dyn std::any::Any + Send>) -> String {
    e.downcast_ref::<&str>().map(|s| s.to_string()).or_else(|| e.downcast_ref::<String>().cloned()).unwrap_or_default()
}
