//! Reading the `(id bigint, fp bigint)` rows of the pair functions' queries through an SPI
//! cursor in batches, each batch's tuple table freed before the next, into Rust-owned
//! vectors.

use pgrx::prelude::*;

/// Rows fetched per SPI batch: bounds the tuple memory held at once to a few MB.
pub(super) const FETCH_ROWS: i64 = 50_000;

/// Runs `query`, which must return `(id bigint, value)` with `value` of one of the types
/// `second` (else ERROR 42804 with `message()`'s text and hint), and calls `each(id, value)`
/// for every row whose value is not NULL (a NULL id is ERROR 22004, naming the `what` query);
/// returns how many rows had a NULL value. The rows come `fetch` at a time, their detoasted
/// values living in a memory context reset after each fetch (so `each` must copy what it
/// keeps), with a check for cancellation between fetches. The segment and text readers'
/// loop (src/segments/pairs.rs, src/similarity/pairs.rs).
pub(crate) fn for_each_value(
    func: &str,
    what: &str,
    query: &str,
    fetch: i64,
    second: &[pg_sys::Oid],
    message: impl Fn() -> (String, &'static str),
    mut each: impl FnMut(i64, pg_sys::Datum),
) -> u64 {
    Spi::connect(|client| {
        let mut cursor = client.open_cursor(query, &[]);
        let mut cx = pgrx::PgMemoryContexts::new("simhash rows");
        let (mut null_values, mut checked) = (0u64, false);
        loop {
            let n = cursor.fetch(fetch).unwrap_or_else(|e| error!("{func}: {e}")).len();
            // SAFETY: as in take_fetched: the fetch just set SPI_tuptable to a table of `n`
            // tuples with the portal's descriptor; its SpiTupleTable is gone, we free it here
            // (before any ERROR we raise while it is live) and nothing else does.
            // heap_deform_tuple writes one value and flag per attribute: two (checked on the
            // first fetch; every fetch of a portal has its descriptor). The values detoasted
            // in `cx` are handed to `each`, which copies them, before it is reset.
            unsafe {
                let table = pg_sys::SPI_tuptable;
                if table.is_null() {
                    break;
                }
                let desc = (*table).tupdesc;
                if !checked {
                    check_columns(table, second, &message);
                    checked = true;
                }
                let (mut values, mut nulls) = ([pg_sys::Datum::from(0usize); 2], [false; 2]);
                cx.switch_to(|_| {
                    for &tuple in std::slice::from_raw_parts((*table).vals, n) {
                        pg_sys::heap_deform_tuple(tuple, desc, values.as_mut_ptr(), nulls.as_mut_ptr());
                        if nulls[0] {
                            null_id(table, func, what);
                        }
                        if nulls[1] {
                            null_values += 1;
                            continue;
                        }
                        each(values[0].value() as i64, values[1]);
                    }
                });
                pg_sys::SPI_freetuptable(table);
                cx.reset();
            }
            if n == 0 {
                break;
            }
            check_for_interrupts!();
        }
        null_values
    })
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
pub(super) fn take_fetched(
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
            check_columns(table, &[pg_sys::INT8OID], || {
                (
                    format!("{func}: the {what} query must return two bigint columns (id, fp)"),
                    "Cast them, e.g. SELECT id::bigint, fp FROM t.",
                )
            });
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
                null_id(table, func, what);
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

/// On a query's first fetch: frees the tuple table and raises ERROR 42804 with `message()`'s
/// text and hint unless its columns are exactly a bigint id and one of the types `second`.
/// Shared by the fingerprint readers here, the segment reader (src/segments/pairs.rs) and the
/// text reader (src/similarity/pairs.rs).
///
/// # Safety
/// `table` is the live SPI tuple table of that fetch, freed by nobody else.
unsafe fn check_columns(
    table: *mut pg_sys::SPITupleTable,
    second: &[pg_sys::Oid],
    message: impl Fn() -> (String, &'static str),
) {
    // SAFETY: the caller's contract; SPI_gettypeid reads attributes 1 and 2 only when the
    // descriptor has exactly two.
    unsafe {
        let desc = (*table).tupdesc;
        if (*desc).natts != 2
            || pg_sys::SPI_gettypeid(desc, 1) != pg_sys::INT8OID
            || !second.contains(&pg_sys::SPI_gettypeid(desc, 2))
        {
            pg_sys::SPI_freetuptable(table);
            let (text, hint) = message();
            crate::error::raise(PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH, text, None, Some(hint));
        }
    }
}

/// Frees the tuple table and raises ERROR 22004: the `what` query returned a NULL id.
///
/// # Safety
/// As [`check_columns`].
unsafe fn null_id(table: *mut pg_sys::SPITupleTable, func: &str, what: &str) -> ! {
    // SAFETY: the caller's contract.
    unsafe { pg_sys::SPI_freetuptable(table) };
    crate::error::raise(
        PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
        format!("{func}: the {what} query returned a NULL id"),
        None,
        None,
    )
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
