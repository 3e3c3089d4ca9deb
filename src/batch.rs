//! `simhash_duplicates(query, max_distance)` and `simhash_clusters(query, max_distance)`:
//! bulk near-duplicate detection over the `(id bigint, fp bigint)` rows of a query.
//!
//! Only glue: the query runs through an SPI cursor in batches (each batch's tuple table
//! freed before the next), the rows go into Rust-owned vectors, and
//! `simhash_core::pairs` does the work (for a batch against a corpus, partly in worker
//! threads of `simhash_core::LookupThreads`, which never call into PostgreSQL). Every
//! allocation of the search is a Rust `Vec`, so an error or a cancellation (a Rust panic
//! unwinding to pgrx's guard) frees it; no palloc'd state outlives the call except the
//! result rows. `simhash_duplicates` streams: its search state lives in the SRF's
//! multi-call memory context, whose deletion (end of the scan, LIMIT reached, error)
//! drops it, joining the worker threads.

use std::time::Duration;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use simhash_core::pairs::{self as batch, Advance, CorpusPairs, LookupThreads, Progress};

/// Rows fetched per SPI batch: bounds the tuple memory held at once to a few MB.
const FETCH_ROWS: i64 = 50_000;

/// `max_distance` as the core's `k`, or ERROR 22023 outside `0..=64`.
pub(crate) fn max_distance(func: &str, k: i32) -> u32 {
    if !(0..=64).contains(&k) {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: max_distance must be between 0 and 64, got {k}")
        );
    }
    k as u32
}

/// Runs `query` and returns its `(id, fp)` rows. ERROR 42804 unless it returns exactly
/// two bigint columns, 22004 on a NULL id; rows with a NULL fingerprint are skipped.
/// `what` names the query in messages ("fingerprints", "batch").
pub(crate) fn read_rows(func: &str, what: &str, query: &str) -> Vec<(i64, u64)> {
    Spi::connect(|client| {
        let mut cursor = client.open_cursor(query, &[]);
        let mut rows = Vec::new();
        let mut null_fps = 0u64;
        let mut checked = false;
        loop {
            let n = cursor.fetch(FETCH_ROWS).unwrap_or_else(|e| error!("{func}: {e}")).len();
            if take_fetched(func, what, n, &mut rows, &mut null_fps, &mut checked) == 0 {
                break;
            }
            check_for_interrupts!();
        }
        let what = if what == "fingerprints" { String::new() } else { format!("{what} ") };
        notice!("{func}: read {} {what}rows ({null_fps} with a NULL fingerprint ignored)", rows.len());
        rows
    })
}

/// Right after a cursor FETCH of `n` rows: appends the fetched `(id, fp)` rows to `rows`
/// (NULL fingerprints counted in `null_fps`, not appended), frees the tuple table, and
/// returns `n`. On the first call (`checked` false) checks the columns: ERROR 42804
/// unless exactly two bigint columns; a NULL id is ERROR 22004.
fn take_fetched(
    func: &str,
    what: &str,
    n: usize,
    rows: &mut Vec<(i64, u64)>,
    null_fps: &mut u64,
    checked: &mut bool,
) -> usize {
    // SAFETY: the caller's `fetch` just set SPI_tuptable (a FETCH always builds one, with
    // the portal's tuple descriptor, even for zero rows) and it holds `n` tuples. The
    // SpiTupleTable borrowing it is gone; we free it here and nothing else does, and we
    // free it before every ERROR raised while it is live. heap_deform_tuple writes one
    // value and one null flag per attribute of `desc`: exactly two (checked on the first
    // fetch; every fetch of a portal has its descriptor), the length of `values`, `nulls`.
    unsafe {
        let table = pg_sys::SPI_tuptable;
        if table.is_null() {
            return 0;
        }
        let desc = (*table).tupdesc;
        if !*checked {
            let types_ok = (*desc).natts == 2
                && pg_sys::SPI_gettypeid(desc, 1) == pg_sys::INT8OID
                && pg_sys::SPI_gettypeid(desc, 2) == pg_sys::INT8OID;
            if !types_ok {
                pg_sys::SPI_freetuptable(table);
                crate::error::raise(
                    PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                    format!("{func}: the {what} query must return two bigint columns (id, fp)"),
                    None,
                    Some("Cast them, e.g. SELECT id::bigint, fp FROM t."),
                );
            }
            *checked = true;
        }
        let vals = std::slice::from_raw_parts((*table).vals, n);
        rows.reserve(n);
        // One heap_deform_tuple per row, not two SPI_getbinval: every call into PostgreSQL
        // sets up pgrx's error guard (a sigsetjmp), 20M of them for a 10M-row corpus.
        let mut values = [pg_sys::Datum::from(0usize); 2];
        let mut nulls = [false; 2];
        for &tuple in vals {
            if let Some((id, fp)) = int8_pair(tuple) {
                rows.push((id, fp as u64));
                continue;
            }
            pg_sys::heap_deform_tuple(tuple, desc, values.as_mut_ptr(), nulls.as_mut_ptr());
            if nulls[0] {
                pg_sys::SPI_freetuptable(table);
                ereport!(
                    ERROR,
                    PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
                    format!("{func}: the {what} query returned a NULL id")
                );
            }
            if nulls[1] {
                *null_fps += 1;
                continue;
            }
            rows.push((values[0].value() as i64, values[1].value() as i64 as u64));
        }
        pg_sys::SPI_freetuptable(table);
    }
    n
}

/// The two `bigint` values of a tuple of two `bigint` columns, read in place when it has
/// no NULL (the common case); `None` sends the caller to `heap_deform_tuple`. Each call
/// into PostgreSQL costs pgrx's error guard: reading a 10M-row corpus against a 1-row
/// batch took 566-572 ms with one heap_deform_tuple per row, 449-450 with this (the
/// sequential read `SELECT count(*), sum(fp)`: 445-447).
///
/// # Safety
/// `tuple` is a valid heap tuple whose descriptor is exactly two `int8` attributes.
unsafe fn int8_pair(tuple: pg_sys::HeapTuple) -> Option<(i64, i64)> {
    // SAFETY: the caller's contract: `tuple` and its header are valid for `t_len` bytes.
    // int8 is 8 bytes, passed by value and 'd'-aligned, and the data area starts at
    // `t_hoff`, which is MAXALIGNed: without NULLs and with both attributes stored (the
    // tuple may predate a column), they are the 16 bytes at `t_hoff`, within `t_len`.
    // Unaligned reads, so no alignment is assumed of the tuple itself.
    unsafe {
        let h = (*tuple).t_data;
        let hoff = usize::from((*h).t_hoff);
        let stored = u32::from((*h).t_infomask2) & pg_sys::HEAP_NATTS_MASK;
        if u32::from((*h).t_infomask) & pg_sys::HEAP_HASNULL != 0 || stored < 2 || ((*tuple).t_len as usize) < hoff + 16
        {
            return None;
        }
        let data = h.cast::<u8>().add(hoff);
        Some((data.cast::<i64>().read_unaligned(), data.add(8).cast::<i64>().read_unaligned()))
    }
}

/// The corpus query read through a cursor that outlives each SPI connection: every
/// fetch connects, finds the portal by name, appends up to `FETCH_ROWS` rows to the
/// caller's chunk and detaches again. The portal is closed when the rows run out; if the
/// scan stops earlier (LIMIT, error) the transaction's end closes it.
struct CorpusCursor {
    name: Option<String>,
    null_fps: u64,
    checked: bool,
}

impl CorpusCursor {
    const F: &'static str = "simhash_duplicates";

    /// Opens the cursor and fetches its first rows into `first` (which checks the columns
    /// before any pair).
    fn open(query: &str, first: &mut Vec<(i64, u64)>) -> CorpusCursor {
        let name = Spi::connect(|client| client.open_cursor(query, &[]).detach_into_name());
        let mut c = CorpusCursor { name: Some(name), null_fps: 0, checked: false };
        c.fetch(first, FETCH_ROWS);
        c
    }

    /// Appends the next up to `rows` rows to `buf`; closes the cursor once they run out.
    fn fetch(&mut self, buf: &mut Vec<(i64, u64)>, rows: i64) {
        let Some(name) = self.name.take() else { return };
        let (null_fps, checked) = (&mut self.null_fps, &mut self.checked);
        self.name = Spi::connect(|client| {
            let mut cursor = client.find_cursor(&name).unwrap_or_else(|e| error!("{}: {e}", Self::F));
            let n = cursor.fetch(rows).unwrap_or_else(|e| error!("{}: {e}", Self::F)).len();
            // Fewer rows than asked for: the portal is at its end (so a small corpus is known
            // to be done after its first fetch).
            if (take_fetched(Self::F, "corpus", n, buf, null_fps, checked) as i64) < rows {
                None // dropping `cursor` closes the portal
            } else {
                Some(cursor.detach_into_name())
            }
        });
    }

    /// Fills `buf` up to `max` rows (fewer at the end), fetched `FETCH_ROWS` at a time with
    /// an interrupt check after each fetch.
    fn fill(&mut self, buf: &mut Vec<(i64, u64)>, max: usize) {
        while buf.len() < max && self.name.is_some() {
            self.fetch(buf, FETCH_ROWS.min((max - buf.len()) as i64));
            check_for_interrupts!();
        }
    }

    /// Whether every row has been fetched (or the portal closed).
    fn is_done(&self) -> bool {
        self.name.is_none()
    }

    /// Closes the portal without reading the rest.
    fn close(&mut self) {
        if let Some(name) = self.name.take() {
            Spi::connect(|client| drop(client.find_cursor(&name)));
        }
    }
}

/// The core's progress callback: phases become NOTICEs, ticks check for cancellation.
pub(crate) fn progress(func: &'static str) -> impl FnMut(Progress) {
    move |p| match p {
        Progress::Phase(msg) => notice!("{func}: {msg}"),
        Progress::Tick => {
            check_for_interrupts!();
        }
    }
}

/// Every pair of rows of `fingerprints` (a query returning `(id bigint, fp bigint)`)
/// within Hamming distance `max_distance`, once, with `id1 < id2`, streamed in the
/// order of `batch::Duplicates`. SQL calls it through the SQL function
/// `simhash_duplicates` (sql/batch.sql), which calls this one in a select list, where
/// PostgreSQL asks a value-per-call function for one row at a time: in FROM it would
/// first put every row into a tuplestore (100,000 identical fingerprints: 5·10⁹ rows).
/// The Rust name keeps the C symbol `simhash_duplicates_wrapper` that the 0.x install
/// scripts name, so a database still at 0.x loads (and streams into its tuplestore).
#[pg_extern(name = "simhash_duplicates_stream", volatile, parallel_unsafe)]
fn simhash_duplicates(
    fingerprints: &str,
    max_distance: i32,
) -> TableIterator<'static, (name!(id1, i64), name!(id2, i64), name!(distance, i32))> {
    const F: &str = "simhash_duplicates";
    let k = self::max_distance(F, max_distance);
    let rows = read_rows(F, "fingerprints", fingerprints);
    let mut progress = progress(F);
    let pairs = batch::Duplicates::new(rows, k, &mut progress);
    // Value per call, not a tuplestore: 100,000 identical fingerprints give their first
    // 10 rows in 0.023 s with the backend at 72 MB VmHWM (60 MB after SELECT 1), where a
    // tuplestore would take 5·10⁹ rows first (tests/bench/stream.sh).
    TableIterator::new(stream(pairs, progress))
}

/// The pairs of `pairs` one at a time, checking for cancellation before each.
pub(crate) fn stream(
    mut pairs: batch::Duplicates,
    mut progress: impl FnMut(Progress) + 'static,
) -> impl Iterator<Item = (i64, i64, i32)> + 'static {
    std::iter::from_fn(move || {
        // Each row is cheap, but a consumer such as count(*) asks for billions of them.
        check_for_interrupts!();
        pairs.next_pair(&mut progress).map(|(a, b, d)| (a, b, d as i32))
    })
}

/// Every `(batch row, corpus row)` pair within `max_distance`, both queries returning
/// `(id bigint, fp bigint)`: the batch is read into memory and put into permuted tables
/// (`simhash_core::pairs::BatchTables`), then the corpus streams through a cursor, one fetch
/// at a time, each row looked up in the tables. Value per call like the one-query
/// form, called through the SQL function `simhash_duplicates(batch, corpus, ...)`;
/// pairs come out in the corpus query's row order, looked up a chunk of corpus rows at a
/// time (`BatchTables::chunk_rows`). Pairs inside the batch are not reported (the
/// one-query form on the batch finds them).
#[pg_extern(name = "simhash_duplicates_stream", volatile, parallel_unsafe)]
fn simhash_duplicates_corpus(
    batch: &str,
    corpus: &str,
    max_distance: i32,
) -> TableIterator<'static, (name!(batch_id, i64), name!(corpus_id, i64), name!(distance, i32))> {
    const F: &str = "simhash_duplicates";
    let k = self::max_distance(F, max_distance);
    let rows = read_rows(F, "batch", batch);
    let mut progress = progress(F);
    let batch_is_empty = rows.is_empty();
    let mut first = Vec::new();
    let mut cursor = CorpusCursor::open(corpus, &mut first);
    if batch_is_empty {
        cursor.close(); // no pair is possible: the corpus's first fetch checked its columns
        first.clear();
    }
    // Threads only for a corpus of more than one fetch (50,000 rows): a smaller one is
    // looked up in less time than starting and joining them takes (a 2-row batch against
    // a 2-row corpus: 0.23 ms a call without threads, 0.43 ms with 2, pgbench). Deciding
    // on the first fetch, not the first chunk, lets the threads start on the batch while
    // the backend reads the rest of that chunk.
    let threads = if cursor.is_done() { 0 } else { BATCH_THREADS.get() as usize };
    // SAFETY: the workers run only simhash_core's grouping, table builds and lookups (no
    // call into PostgreSQL, no callback), so the one thing they must not do is take the
    // backend's signals: they are started with every signal blocked and keep that mask.
    let workers = unsafe { with_signals_blocked(|| LookupThreads::start(threads)) };
    if workers.len() < threads {
        notice!("{F}: {} of {threads} lookup threads started (simhash.batch_threads)", workers.len());
    }
    // With workers, they group the batch and build its tables while this backend reads
    // the next chunks.
    let mut pairs = CorpusPairs::start_rows(rows, k, workers, &mut progress);
    let mut first = Some(first);
    let mut read_all = false;
    let mut done = false;
    TableIterator::new(std::iter::from_fn(move || {
        loop {
            check_for_interrupts!();
            if let Some((b, c, d)) = pairs.next_pending() {
                return Some((b, c, d as i32));
            }
            if done {
                return None;
            }
            if let Some(plan) = pairs.phase() {
                notice!("{F}: {plan}"); // the plan a worker chose
            }
            // A chunk already looked up first, so pairs come out as early as they can.
            if pairs.advance(Duration::ZERO) == Advance::Ready {
                continue;
            }
            if !read_all && pairs.wants_chunk() {
                // While this backend reads, the workers look up the chunks before.
                let mut rows = first.take().unwrap_or_else(|| pairs.chunk_buffer());
                cursor.fill(&mut rows, pairs.chunk_rows());
                if rows.is_empty() {
                    read_all = true;
                } else {
                    pairs.feed_rows(rows);
                }
                continue;
            }
            // Waiting for the workers, a cancel is seen within a wait.
            if pairs.advance(Duration::from_millis(10)) == Advance::Idle && read_all {
                done = true;
                notice!(
                    "{F}: read {} corpus rows ({} with a NULL fingerprint ignored), {} pairs, {} lookup threads",
                    pairs.fed,
                    cursor.null_fps,
                    pairs.emitted,
                    pairs.threads()
                );
            }
        }
    }))
}

/// `simhash.batch_threads`: worker threads for `simhash_duplicates(batch, corpus)`. 2 by
/// default: a 1M batch against a 10M corpus takes 0.89 s with 2, 1.43-1.47 s with
/// none (tests/bench/batch_corpus.sh), and on 2 cores more add nothing.
static BATCH_THREADS: GucSetting<i32> = GucSetting::<i32>::new(2);

pub(crate) fn register_gucs() {
    GucRegistry::define_int_guc(
        c"simhash.batch_threads",
        c"Threads that look up the corpus in simhash_duplicates(batch, corpus).",
        c"They run inside the backend, grouping the batch, building its tables and looking up the corpus while the backend reads it, and never call into the server; 0: the backend does it all.",
        &BATCH_THREADS,
        0,
        64,
        GucContext::Userset,
        GucFlags::default(),
    );
}

/// Runs `f` with every signal blocked in this thread, so that threads it starts are born
/// with them blocked, and restores the mask. A signal that arrives meanwhile stays
/// pending and is delivered to this thread (the backend's) when the mask is restored.
///
/// # Safety
/// `f` must not call into PostgreSQL: its signal handlers (cancel, latch) cannot run
/// while `f` does. Threads `f` starts must never call into PostgreSQL either.
unsafe fn with_signals_blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: pthread_sigmask only changes this thread's mask; `all` is initialized by
    // sigfillset before use and `old` by the first call, which restores it below.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        out.unwrap_or_else(|e| std::panic::resume_unwind(e))
    }
}

/// Connected components of the near-duplicate graph of `fingerprints`: `(id, cluster_id)`
/// for every row with at least one near-duplicate, `cluster_id` the component's smallest id.
#[pg_extern(volatile, parallel_unsafe)]
fn simhash_clusters(
    fingerprints: &str,
    max_distance: default!(i32, 3),
) -> TableIterator<'static, (name!(id, i64), name!(cluster_id, i64))> {
    const F: &str = "simhash_clusters";
    let k = self::max_distance(F, max_distance);
    let rows = read_rows(F, "fingerprints", fingerprints);
    TableIterator::new(batch::clusters(rows, k, &mut progress(F)))
}

pgrx::extension_sql_file!(
    "../sql/batch.sql",
    name = "batch",
    requires = [simhash_duplicates, simhash_duplicates_corpus]
);
