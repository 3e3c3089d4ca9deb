//! Batch against corpus: `simhash_duplicates(batch, corpus, max_distance)`, every
//! `(batch row, corpus row)` pair within the bound. The batch is held in memory; the corpus
//! streams through a cursor and is looked up partly in worker threads of
//! `simhash_core::LookupThreads`, which never call into PostgreSQL. The search state lives
//! in the SRF's multi-call memory context, whose deletion (end of the scan, LIMIT reached,
//! error) drops it, joining the worker threads.

use std::collections::HashSet;
use std::time::Duration;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use simhash_core::{Advance, CorpusPairs, LookupThreads};

use super::rows::{read_rows, take_fetched, Fetched, FETCH_ROWS};
use crate::bulk::rows::spill_error;
use crate::bulk::{progress, repeated_id, with_signals_blocked};
use simhash_core::decision::Rule;

/// The corpus query read through a cursor that outlives each SPI connection: every
/// fetch connects, finds the portal by name, appends up to `FETCH_ROWS` rows to the
/// caller's chunk and detaches again. The portal is closed when the rows run out; if the
/// scan stops earlier (LIMIT, error) the transaction's end closes it.
///
/// With a text column (for the dedup decision) the rows go to the lookups under their
/// sequence numbers in the corpus, their ids and texts kept in [`CorpusTexts`] until the
/// pairs of their chunk are out.
struct CorpusCursor {
    name: Option<String>,
    null_fps: u64,
    /// After the first fetch: whether the corpus has a text column.
    shape: Option<bool>,
    texts: CorpusTexts,
}

/// The ids and texts of the corpus rows whose chunks' pairs are not all out, by sequence
/// number: chunk by chunk in the order fed, each dropped when the next one's pairs start
/// (`CorpusPairs` hands out pairs chunk by chunk in that order).
#[derive(Default)]
struct CorpusTexts {
    /// The sequence number of `rows[0]`.
    base: u64,
    rows: std::collections::VecDeque<(i64, Option<String>)>,
    /// The number of rows of each chunk fed and not yet dropped, oldest first.
    chunks: std::collections::VecDeque<usize>,
    /// Whether a chunk's pairs have started (the front chunk is the current one).
    started: bool,
}

impl CorpusTexts {
    /// The next sequence number.
    fn end(&self) -> u64 {
        self.base + self.rows.len() as u64
    }

    /// A chunk was fed: the rows read since the last one.
    fn fed(&mut self) {
        let before: usize = self.chunks.iter().sum();
        self.chunks.push_back(self.rows.len() - before);
    }

    /// A chunk's pairs start: the chunk before it, if any, is done.
    fn next_chunk(&mut self) {
        if std::mem::replace(&mut self.started, true) {
            let n = self.chunks.pop_front().unwrap_or(0);
            self.rows.drain(..n);
            self.base += n as u64;
        }
    }

    /// The id and text of corpus row `seq`.
    fn get(&self, seq: u64) -> &(i64, Option<String>) {
        let i = seq.checked_sub(self.base).and_then(|i| self.rows.get(i as usize));
        i.unwrap_or_else(|| panic!("simhash_duplicates: corpus row {seq} is no longer held (from {})", self.base))
    }
}

impl CorpusCursor {
    const F: &'static str = "simhash_duplicates";

    /// Opens the cursor and fetches its first rows into `first` (which checks the columns
    /// before any pair).
    fn open(query: &str, first: &mut Vec<(i64, u64)>) -> CorpusCursor {
        crate::bulk::rows::check_query(Self::F, "corpus", query);
        let name = Spi::connect(|client| client.open_cursor(query, &[]).detach_into_name());
        let mut c = CorpusCursor { name: Some(name), null_fps: 0, shape: None, texts: CorpusTexts::default() };
        c.fetch(first, FETCH_ROWS);
        c
    }

    /// Appends the next up to `rows` rows to `buf` (with texts: under their sequence numbers,
    /// their ids and texts kept); closes the cursor once they run out.
    fn fetch(&mut self, buf: &mut Vec<(i64, u64)>, rows: i64) {
        let Some(name) = self.name.take() else { return };
        let from = buf.len();
        let (null_fps, shape, texts) = (&mut self.null_fps, &mut self.shape, &mut self.texts);
        let mut keep = |id: i64, text: Option<&str>| texts.rows.push_back((id, text.map(str::to_owned)));
        self.name = Spi::connect(|client| {
            let mut cursor = client.find_cursor(&name).unwrap_or_else(|e| error!("{}: {e}", Self::F));
            let n = cursor.fetch(rows).unwrap_or_else(|e| error!("{}: {e}", Self::F)).len();
            let mut f = Fetched { rows: buf, null_fps, shape, text: &mut keep };
            // Fewer rows than asked for: the portal is at its end (so a small corpus is known
            // to be done after its first fetch).
            if (take_fetched(Self::F, "corpus", n, &mut f) as i64) < rows {
                None // dropping `cursor` closes the portal
            } else {
                Some(cursor.detach_into_name())
            }
        });
        if self.shape == Some(true) {
            let first = self.texts.end() - (buf.len() - from) as u64;
            for (i, row) in buf[from..].iter_mut().enumerate() {
                row.0 = (first + i as u64) as i64;
            }
        }
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

/// Every `(batch row, corpus row)` pair within `max_distance`, both queries returning
/// `(id bigint, fp bigint)`: the batch is read into memory and put into permuted tables
/// (`simhash_core::fingerprints::pairs::BatchTables`), then the corpus streams through a cursor, one fetch
/// at a time, each row looked up in the tables. Value per call like the one-query
/// form, called through the SQL function `simhash_duplicates(batch, corpus, ...)`;
/// pairs come out in the corpus query's row order, looked up a chunk of corpus rows at a
/// time (`BatchTables::chunk_rows`). Pairs inside the batch are not reported (the
/// one-query form on the batch finds them). Not strict: a NULL argument is ERROR 22004, for
/// `simhash_duplicates(query, NULL)` resolves to this form and would return no row.
#[pg_extern(name = "simhash_duplicates_stream_d2", volatile, parallel_unsafe)]
fn simhash_duplicates_corpus(
    batch: Option<&str>,
    corpus: Option<&str>,
    max_distance: Option<i32>,
) -> TableIterator<'static, (name!(batch_id, i64), name!(corpus_id, i64), name!(distance, i32))> {
    corpus_pairs(batch, corpus, max_distance, Some(Rule::D2), "simhash_duplicates_d2")
}

/// The same since 7.0.0, deciding by `simhash.decision` (decision 3, balanced by default).
#[pg_extern(name = "simhash_duplicates_stream", volatile, parallel_unsafe)]
fn simhash_duplicates_corpus_d3(
    batch: Option<&str>,
    corpus: Option<&str>,
    max_distance: Option<i32>,
) -> TableIterator<'static, (name!(batch_id, i64), name!(corpus_id, i64), name!(distance, i32))> {
    corpus_pairs(batch, corpus, max_distance, crate::bulk::decision(), "simhash_duplicates")
}

/// The batch-against-corpus pairs, decided by `rule` when both queries bring texts.
fn corpus_pairs(
    batch: Option<&str>,
    corpus: Option<&str>,
    max_distance: Option<i32>,
    rule: Option<Rule>,
    func: &'static str,
) -> TableIterator<'static, (i64, i64, i32)> {
    let null = |what: &str| -> ! {
        crate::error::raise(
            PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            format!("{func}: {what} is NULL"),
            None,
            Some("simhash_duplicates(query, NULL) is the form simhash_duplicates(batch, corpus); for the pairs of one query give max_distance as an integer, e.g. simhash_duplicates(query, 3)."),
        )
    };
    let batch = batch.unwrap_or_else(|| null("the batch query"));
    let corpus = corpus.unwrap_or_else(|| null("the corpus query"));
    let k = super::max_distance(func, max_distance.unwrap_or_else(|| null("max_distance")));
    let (rows, mut batch_texts) = read_rows(func, "batch", batch, rule);
    let mut progress = progress(func, None);
    let batch_is_empty = rows.is_empty();
    let mut first = Vec::new();
    let mut cursor = CorpusCursor::open(corpus, &mut first);
    if batch_texts.is_some() != (cursor.shape == Some(true)) && cursor.shape.is_some() {
        crate::error::raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: the batch and corpus queries must both return a text column, or neither"),
            None,
            Some("With (id, fp, body) from both, the dedup decision reads the texts; with (id, fp), it does not."),
        );
    }
    let deciding = batch_texts.is_some();
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
        notice!("{func}: {} of {threads} lookup threads started (simhash.batch_threads)", workers.len());
    }
    // With workers, they group the batch and build its tables while this backend reads
    // the next chunks.
    let mut pairs = CorpusPairs::start_rows(rows, k, workers, &mut progress);
    let mut first = Some(first);
    let mut read_all = false;
    let mut done = false;
    // The corpus is not held, so its ids are checked where a repeat would show (the batch's
    // were checked by read_rows). A corpus row's pairs come one after another, rows in the
    // corpus's order (CorpusPairs), so an id whose pairs come again after another id's, or a
    // pair again within one id's, is a second row of that id. Memory: an id for each corpus row
    // with a pair, and one row's batch ids; not the pairs.
    let (mut ended, mut run, mut last) = (HashSet::new(), HashSet::new(), None);
    let mut once = move |b: i64, c: i64, d: u32| {
        if last != Some(c) {
            if let Some(prev) = last.replace(c) {
                ended.insert(prev);
            }
            run.clear();
            if ended.contains(&c) {
                repeated_id(func, "corpus", c);
            }
        }
        if !run.insert(b) {
            repeated_id(func, "corpus", c);
        }
        Some((b, c, d as i32))
    };
    TableIterator::new(std::iter::from_fn(move || {
        loop {
            check_for_interrupts!();
            if let Some((b, c, d)) = pairs.next_pending() {
                if !deciding {
                    return once(b, c, d);
                }
                // c is the corpus row's sequence number (CorpusCursor).
                let (id, text) = cursor.texts.get(c as u64);
                let same = text.as_deref().is_some_and(|t| {
                    let texts = batch_texts.as_mut().expect("deciding");
                    texts.same_passage_as(b, t, &mut crate::error::tick).unwrap_or_else(|e| spill_error(func, e))
                });
                if same {
                    return once(b, *id, d);
                }
                continue;
            }
            if done {
                return None;
            }
            if let Some(plan) = pairs.phase() {
                notice!("{func}: {plan}"); // the plan a worker chose
            }
            // A chunk already looked up first, so pairs come out as early as they can.
            if pairs.advance(Duration::ZERO) == Advance::Ready {
                cursor.texts.next_chunk();
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
                    cursor.texts.fed();
                }
                continue;
            }
            // Waiting for the workers, a cancel is seen within a wait.
            let advanced = pairs.advance(Duration::from_millis(10));
            if advanced == Advance::Ready {
                cursor.texts.next_chunk();
            }
            if advanced == Advance::Idle && read_all {
                done = true;
                notice!(
                    "{func}: read {} corpus rows ({} with a NULL fingerprint ignored), {} pairs, {} lookup threads",
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
