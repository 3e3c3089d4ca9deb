//! Reading the `(id bigint, fp bigint [, body text])` rows of the fingerprint pair functions'
//! queries through an SPI cursor in batches (on the shared reader of src/bulk/rows.rs), into
//! Rust-owned vectors, the texts into a temporary file.

use pgrx::prelude::*;
use simhash_core::fingerprints::pairs::Texts;

use crate::bulk::rows::{check_columns_n, check_query, null_id, spill_error, TEXT_FETCH_ROWS};

/// Rows fetched per SPI batch: bounds the tuple memory held at once to a few MB.
pub(super) const FETCH_ROWS: i64 = 50_000;
/// Runs `query` and returns its `(id, fp)` rows, and with a third, text column, their texts
/// in a [`Texts`] store (a temporary file under base/pgsql_tmp) for the dedup decision.
/// ERROR 42804 unless it returns two bigint columns and maybe a text (or varchar) one, 22004
/// on a NULL id, 21000 if two rows with a fingerprint share an id; rows with a NULL
/// fingerprint are skipped, and a row with a NULL text keeps its fingerprint but is nobody's
/// same passage. `what` names the query in messages ("fingerprints", "batch").
pub(crate) fn read_rows(
    func: &str,
    what: &str,
    query: &str,
    rule: Option<simhash_core::decision::Rule>,
) -> (Vec<(i64, u64)>, Option<Texts>) {
    check_query(func, what, query);
    Spi::connect(|client| {
        let mut cursor = client.open_cursor(query, &[]);
        let (mut rows, mut null_fps, mut shape) = (Vec::new(), 0u64, None);
        let mut texts: Option<Texts> = None;
        let mut put = |id: i64, text: Option<&str>| {
            let store = texts.get_or_insert_with(|| text_store(func, rule));
            if let Some(text) = text {
                store.push(id, text).unwrap_or_else(|e| spill_error(func, e));
            }
        };
        loop {
            // Texts make rows of any size: 1,000 at a time then, as the similarity pairs read.
            let size = if shape == Some(false) { FETCH_ROWS } else { TEXT_FETCH_ROWS };
            let n = cursor.fetch(size).unwrap_or_else(|e| error!("{func}: {e}")).len();
            let mut f = Fetched { rows: &mut rows, null_fps: &mut null_fps, shape: &mut shape, text: &mut put };
            if take_fetched(func, what, n, &mut f) == 0 {
                break;
            }
            check_for_interrupts!();
        }
        crate::bulk::unique_ids(func, what, &mut rows.iter().map(|r| r.0).collect::<Vec<_>>());
        let what = if what == "fingerprints" { String::new() } else { format!("{what} ") };
        let with = if shape == Some(true) { " and their texts" } else { "" };
        notice!("{func}: read {} {what}rows{with} ({null_fps} with a NULL fingerprint ignored)", rows.len());
        // A text column whose rows were all NULL still decides: nobody is the same passage.
        if shape == Some(true) && texts.is_none() {
            texts = Some(text_store(func, rule));
        }
        (rows, texts)
    })
}

/// An empty store of texts under base/pgsql_tmp; ERROR 53000-class when it cannot be made.
pub(crate) fn text_store(func: &str, rule: Option<simhash_core::decision::Rule>) -> Texts {
    let dir = std::path::PathBuf::from("base/pgsql_tmp");
    let _ = std::fs::create_dir_all(&dir);
    Texts::new(&dir).unwrap_or_else(|e| spill_error(func, e)).deciding(rule)
}

/// Where a fetch of `(id, fp [, body])` rows goes.
pub(super) struct Fetched<'a> {
    pub rows: &'a mut Vec<(i64, u64)>,
    /// Rows with a NULL fingerprint, not appended.
    pub null_fps: &'a mut u64,
    /// None until the first fetch checked the columns; then whether there is a text column.
    pub shape: &'a mut Option<bool>,
    /// Called with each appended row's text (None: NULL), when there is a text column.
    pub text: &'a mut dyn FnMut(i64, Option<&str>),
}

/// Right after a cursor FETCH of `n` rows: appends the fetched `(id, fp)` rows to `f.rows`
/// (NULL fingerprints counted, not appended) and hands their texts to `f.text`, frees the
/// tuple table, and returns `n`. On the first call (`f.shape` None) checks the columns:
/// ERROR 42804 unless two bigint columns and maybe a text (or varchar) one; a NULL id is
/// ERROR 22004.
pub(super) fn take_fetched(func: &str, what: &str, n: usize, f: &mut Fetched<'_>) -> usize {
    // SAFETY: the caller's `fetch` just set SPI_tuptable (a FETCH always builds one, with
    // the portal's tuple descriptor, even for zero rows) and it holds `n` tuples. The
    // SpiTupleTable borrowing it is gone; we free it here and nothing else does, and we
    // free it before every ERROR raised while it is live. heap_deform_tuple writes one
    // value and one null flag per attribute of `desc`: two or three (checked on the first
    // fetch; every fetch of a portal has its descriptor), at most the length of `values`,
    // `nulls`. A text datum becomes a Rust String (text_datum_to_utf8) before the next tuple.
    unsafe {
        let table = pg_sys::SPI_tuptable;
        if table.is_null() {
            return 0;
        }
        let desc = (*table).tupdesc;
        if f.shape.is_none() {
            *f.shape = Some(check_fp_columns(table, func, what));
        }
        let with_text = *f.shape == Some(true);
        let vals = std::slice::from_raw_parts((*table).vals, n);
        f.rows.reserve(n);
        // One heap_deform_tuple per row, not two SPI_getbinval: every call into PostgreSQL
        // sets up pgrx's error guard (a sigsetjmp), 20M of them for a 10M-row corpus.
        let mut values = [pg_sys::Datum::from(0usize); 3];
        let mut nulls = [false; 3];
        for &tuple in vals {
            if !with_text {
                if let Some((id, fp)) = int8_pair(tuple) {
                    f.rows.push((id, fp as u64));
                    continue;
                }
            }
            pg_sys::heap_deform_tuple(tuple, desc, values.as_mut_ptr(), nulls.as_mut_ptr());
            if nulls[0] {
                null_id(table, func, what);
            }
            if nulls[1] {
                *f.null_fps += 1;
                continue;
            }
            let id = values[0].value() as i64;
            f.rows.push((id, values[1].value() as i64 as u64));
            if with_text {
                let text = (!nulls[2]).then(|| crate::text::text_datum_to_utf8(values[2]));
                (f.text)(id, text.as_deref());
            }
        }
        pg_sys::SPI_freetuptable(table);
    }
    n
}

/// On a fingerprint query's first fetch: whether it has a text column (ERROR 42804 unless its
/// columns are `(id bigint, fp bigint)` or `(id bigint, fp bigint, body text)`).
///
/// # Safety
/// As [`check_columns`].
unsafe fn check_fp_columns(table: *mut pg_sys::SPITupleTable, func: &str, what: &str) -> bool {
    let message = || {
        (
            format!(
                "{func}: the {what} query must return two bigint columns (id, fp), and may add a text column (body)"
            ),
            "Cast them, e.g. SELECT id::bigint, fp, body::text FROM t: with the text, the dedup decision reads it.",
        )
    };
    // SAFETY: the caller's contract; SPI_gettypeid reads attribute 3 only when there is one.
    unsafe {
        let desc = (*table).tupdesc;
        if (*desc).natts == 3 {
            let third = pg_sys::SPI_gettypeid(desc, 3);
            if third != pg_sys::TEXTOID && third != pg_sys::VARCHAROID {
                pg_sys::SPI_freetuptable(table);
                let (text, hint) = message();
                crate::error::raise(PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH, text, None, Some(hint));
            }
        }
        let natts = (*desc).natts;
        check_columns_n(table, natts.clamp(2, 3) as usize, &[pg_sys::INT8OID], message);
        natts == 3
    }
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
