//! Reading the rows of a bulk function's query: the query checked before it runs, then an
//! SPI cursor read in batches, each batch's tuple table freed before the next, its values
//! handed on and copied into Rust-owned memory. Every measure's bulk functions read through
//! here (the fingerprints' `(id, fp)` reader adds its fast path in fingerprints/pairs/rows.rs).

use pgrx::prelude::*;

/// Checks a bulk function's query before it runs, for messages that name what the user
/// wrote (issue 49; 5.2.0 said "cannot open multi-query plan as cursor" for an empty query
/// and "DELETE is not allowed in a non-volatile function" for a DELETE … RETURNING): ERROR
/// 42601 unless it is one statement, 0A000 unless that is a SELECT (or VALUES, TABLE) with no
/// FOR UPDATE/SHARE and no data-modifying WITH. Syntax errors are the parser's own.
pub(crate) fn check_query(func: &str, what: &str, query: &str) {
    let fail = |code, message: String, hint: &str| -> ! {
        crate::error::raise(code, format!("{func}: {message}"), None, Some(hint))
    };
    let c = std::ffi::CString::new(query).unwrap_or_else(|_| {
        fail(PgSqlErrorCode::ERRCODE_SYNTAX_ERROR, format!("the {what} query holds a zero byte"), "Give one SELECT.")
    });
    // SAFETY: raw_parser reads a NUL-terminated string and returns a List of RawStmt in the
    // current memory context (or raises a syntax error); the nodes it builds are read only.
    unsafe {
        let stmts = crate::nodes::list_ptrs(pg_sys::raw_parser(c.as_ptr(), pg_sys::RawParseMode::RAW_PARSE_DEFAULT));
        if stmts.len() != 1 {
            fail(
                PgSqlErrorCode::ERRCODE_SYNTAX_ERROR,
                if stmts.is_empty() {
                    format!("the {what} query is empty")
                } else {
                    format!("the {what} query must be one statement, got {}", stmts.len())
                },
                "Give one SELECT returning the columns this function reads.",
            );
        }
        let stmt = (*stmts[0].cast::<pg_sys::RawStmt>()).stmt.cast::<std::ffi::c_void>();
        let hint = "Give a SELECT: a bulk function only reads its rows. To delete the duplicates, DELETE … USING the function's result.";
        if !crate::nodes::is_a(stmt, pg_sys::NodeTag::T_SelectStmt) {
            let tag = std::ffi::CStr::from_ptr(pg_sys::CreateCommandName(stmt.cast())).to_string_lossy().into_owned();
            fail(
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                format!("the {what} query must be a SELECT, got {tag}"),
                hint,
            );
        }
        let select = stmt.cast::<pg_sys::SelectStmt>();
        if !(*select).lockingClause.is_null() {
            fail(
                PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                format!("the {what} query must not lock rows (FOR UPDATE or FOR SHARE)"),
                "A bulk function reads a snapshot; to keep writers out meanwhile, LOCK TABLE in the same transaction.",
            );
        }
        let with = (*select).withClause;
        let ctes = if with.is_null() { Vec::new() } else { crate::nodes::list_ptrs((*with).ctes) };
        for cte in ctes {
            let q = (*cte.cast::<pg_sys::CommonTableExpr>()).ctequery.cast::<std::ffi::c_void>();
            if !crate::nodes::is_a(q, pg_sys::NodeTag::T_SelectStmt) {
                fail(
                    PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
                    format!("the {what} query must not modify data (a WITH holds a data-modifying statement)"),
                    hint,
                );
            }
        }
    }
}

/// Rows a fetch reads when the query has a text column (and for its first fetch).
pub(crate) const TEXT_FETCH_ROWS: i64 = 1_000;

/// Runs `query`, which must return `(id bigint, value)` with `value` of one of the types
/// `second` (else ERROR 42804 with `message()`'s text and hint), and calls `each(id, value)`
/// for every row whose value is not NULL (a NULL id is ERROR 22004, naming the `what` query);
/// returns how many rows had a NULL value. The rows come `fetch` at a time, their detoasted
/// values living in a memory context reset after each fetch (so `each` must copy what it
/// keeps), with a check for cancellation between fetches; ERROR 21000 after the last fetch if
/// two rows with a value share an id (`super::unique_ids`), unless `each` refused a row
/// (returned false: the caller raises its own error for it). The segment and text readers'
/// loop.
pub(crate) fn for_each_value(
    func: &str,
    what: &str,
    query: &str,
    fetch: i64,
    second: &[pg_sys::Oid],
    message: impl Fn() -> (String, &'static str),
    mut each: impl FnMut(i64, pg_sys::Datum) -> bool,
) -> u64 {
    check_query(func, what, query);
    let (mut ids, mut refused) = (Vec::new(), false);
    let null_values = Spi::connect(|client| {
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
                        ids.push(values[0].value() as i64);
                        refused |= !each(values[0].value() as i64, values[1]);
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
    });
    if !refused {
        super::unique_ids(func, what, &mut ids);
    }
    null_values
}

/// ERROR: the temporary file of the texts failed.
pub(crate) fn spill_error(func: &str, e: std::io::Error) -> ! {
    crate::error::raise(
        PgSqlErrorCode::ERRCODE_INSUFFICIENT_RESOURCES,
        format!("{func}: the temporary file of the texts failed: {e}"),
        None,
        Some("It goes under base/pgsql_tmp in the data directory."),
    )
}

/// On a query's first fetch: frees the tuple table and raises ERROR 42804 with `message()`'s
/// text and hint unless its columns are exactly a bigint id and one of the types `second`.
/// Shared by every measure's readers.
///
/// # Safety
/// `table` is the live SPI tuple table of that fetch, freed by nobody else.
pub(crate) unsafe fn check_columns(
    table: *mut pg_sys::SPITupleTable,
    second: &[pg_sys::Oid],
    message: impl Fn() -> (String, &'static str),
) {
    // SAFETY: forwarded from the caller.
    unsafe { check_columns_n(table, 2, second, message) }
}

/// [`check_columns`] for a query of `natts` columns, the first two as there (the others
/// checked by the caller).
///
/// # Safety
/// As [`check_columns`].
pub(crate) unsafe fn check_columns_n(
    table: *mut pg_sys::SPITupleTable,
    natts: usize,
    second: &[pg_sys::Oid],
    message: impl Fn() -> (String, &'static str),
) {
    // SAFETY: the caller's contract; SPI_gettypeid reads attributes 1 and 2 only when the
    // descriptor has exactly `natts` (two or more).
    unsafe {
        let desc = (*table).tupdesc;
        if (*desc).natts as usize != natts
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
pub(crate) unsafe fn null_id(table: *mut pg_sys::SPITupleTable, func: &str, what: &str) -> ! {
    // SAFETY: the caller's contract.
    unsafe { pg_sys::SPI_freetuptable(table) };
    crate::error::raise(
        PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
        format!("{func}: the {what} query returned a NULL id"),
        None,
        None,
    )
}
