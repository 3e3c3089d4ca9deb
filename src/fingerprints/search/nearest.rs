//! `simhash_nearest(tbl, fp_column, query, n)`: the `n` rows of a table nearest `query` in
//! Hamming distance, exactly, by multi-index hashing over the table's block indexes
//! (`simhash_core::fingerprints::search` holds the search and its stopping rule; this is only glue).
//!
//! Each probe is one SPI query, `<block i> = ANY($1)`, on the block column or block
//! expression the table indexes, which the planner runs as a btree index scan; the kept
//! rows are identified by ctid, which is also the tie-breaker. The statements run under
//! the caller's snapshot (the function is STABLE), so the ctids returned can be joined
//! back to the table in the same statement.

use std::ffi::CStr;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::itemptr::{item_pointer_get_both, item_pointer_set_all};
use pgrx::prelude::*;
use pgrx::spi::SpiClient;
use simhash_core::fingerprints::search as core_blocks;
use simhash_core::fingerprints::search::{self as core_nearest, Nearest, Neighbour};

use super::block_index::{block_sets, Funcs};
use crate::error::raise;
use crate::nodes::is_a;

/// `simhash.nearest_scan_fallback`: whether `simhash_nearest` may answer by a sequential
/// scan when probing would cost more (on by default; tests turn it off to pin the probes).
static SCAN_FALLBACK: GucSetting<bool> = GucSetting::<bool>::new(true);

pub(crate) fn register_gucs() {
    GucRegistry::define_bool_guc(
        c"simhash.nearest_scan_fallback",
        c"Whether simhash_nearest may switch to a sequential scan.",
        c"When on, simhash_nearest scans the table instead of probing its block indexes once the probes would cost more than a scan.",
        &SCAN_FALLBACK,
        GucContext::Userset,
        GucFlags::default(),
    );
}

/// A ctid as an ordered key: block number, then offset (the order of `ORDER BY ctid`).
fn tid_key(tid: pg_sys::ItemPointerData) -> u64 {
    let (block, offset) = item_pointer_get_both(tid);
    (block as u64) << 16 | offset as u64
}

fn key_tid(key: u64) -> pg_sys::ItemPointerData {
    let mut tid = pg_sys::ItemPointerData::default();
    item_pointer_set_all(&mut tid, (key >> 16) as pg_sys::BlockNumber, key as pg_sys::OffsetNumber);
    tid
}

/// What the search needs to know about the table, as SQL text.
struct Target {
    /// `ONLY schema.table`.
    from: String,
    /// The fingerprint column, quoted.
    fp: String,
    /// `schema.` of the extension, quoted.
    ext: String,
    /// For each block of the chosen set, the expression its index is on.
    blocks: Vec<String>,
    /// Estimated number of rows, for the fallback rule.
    rows: f64,
}

fn quote(ident: &CStr) -> String {
    // SAFETY: quote_identifier reads a NUL-terminated string and returns it or a palloc'd
    // quoted copy, NUL-terminated.
    unsafe { CStr::from_ptr(pg_sys::quote_identifier(ident.as_ptr())) }.to_string_lossy().into_owned()
}

/// Resolves the table, its fingerprint column and its block set, or raises the ERROR.
fn target(tbl: pg_sys::Oid, fp_column: &CStr, ext_schema: pg_sys::Oid) -> Target {
    const LOCK: pg_sys::LOCKMODE = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
    // SAFETY: in a transaction (a SQL function call). The relation is opened by OID with
    // AccessShareLock, which also makes sure it exists, and closed (keeping the lock until
    // end of transaction, as the SPI queries will take it anyway) before any ERROR that
    // follows; its descriptor is only read while open. get_attnum, get_attname,
    // get_namespace_name and quote_identifier take NUL-terminated strings and return
    // palloc'd ones or NULL, checked.
    unsafe {
        let rel = pg_sys::try_relation_open(tbl, LOCK);
        if rel.is_null() {
            raise(
                PgSqlErrorCode::ERRCODE_UNDEFINED_TABLE,
                format!("simhash_nearest: relation with OID {tbl:?} does not exist"),
                None,
                None,
            );
        }
        let relname = quote(CStr::from_ptr((*(*rel).rd_rel).relname.data.as_ptr()));
        let relkind = (*(*rel).rd_rel).relkind as u8;
        let nsp = pg_sys::get_namespace_name((*(*rel).rd_rel).relnamespace);
        let name = format!("{}.{relname}", quote(CStr::from_ptr(nsp)));
        let from = format!("ONLY {name}");
        if relkind != pg_sys::RELKIND_RELATION && relkind != pg_sys::RELKIND_MATVIEW {
            pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
            raise(
                PgSqlErrorCode::ERRCODE_WRONG_OBJECT_TYPE,
                format!("simhash_nearest: {name} is not a table or materialized view"),
                None,
                Some("Partitioned tables are not supported: search each partition."),
            );
        }
        let attno = pg_sys::get_attnum(tbl, fp_column.as_ptr());
        let fp = quote(fp_column);
        if attno <= 0 {
            pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
            raise(
                PgSqlErrorCode::ERRCODE_UNDEFINED_COLUMN,
                format!("simhash_nearest: column {fp} of relation {name} does not exist"),
                None,
                None,
            );
        }
        let att = crate::pg_compat::tuple_desc_attrs((*rel).rd_att)[attno as usize - 1];
        if att.atttypid != pg_sys::INT8OID {
            pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
            raise(
                PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                format!("simhash_nearest: column {fp} must be bigint"),
                None,
                None,
            );
        }
        let Some(funcs) = Funcs::lookup(ext_schema) else {
            pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);
            raise(
                PgSqlErrorCode::ERRCODE_UNDEFINED_FUNCTION,
                "simhash_nearest: the extension's functions are missing".into(),
                None,
                None,
            );
        };
        let var = pg_sys::makeVar(1, attno, pg_sys::INT8OID, -1, pg_sys::InvalidOid, 0);
        let sets = block_sets(rel, var, &funcs);
        // Current size, scaled by the last ANALYZE/VACUUM/CREATE INDEX's density, as the
        // planner estimates it.
        let pages = pg_sys::RelationGetNumberOfBlocksInFork(rel, pg_sys::ForkNumber::MAIN_FORKNUM) as f64;
        let (reltuples, relpages) = ((*(*rel).rd_rel).reltuples as f64, (*(*rel).rd_rel).relpages as f64);
        let rows = if reltuples > 0.0 && relpages > 0.0 { reltuples / relpages * pages } else { pages * 100.0 };
        pg_sys::relation_close(rel, pg_sys::NoLock as pg_sys::LOCKMODE);

        // The set with the most blocks: the narrowest blocks, whose shells grow slowest.
        let Some(set) = sets.iter().max_by_key(|s| s.n) else {
            raise(
                PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                format!("simhash_nearest: {name} has no complete set of block indexes on column {fp}"),
                Some("simhash_nearest probes a complete set of btree indexes on simhash_block(fp, i, n), i = 0 .. n-1.".into()),
                Some("Create them with SELECT simhash_create_blocks(table, fp_column), or CREATE INDEX ... (simhash_block(fp, i, n)) for each block."),
            );
        };
        let ext = format!("{}.", quote(CStr::from_ptr(pg_sys::get_namespace_name(ext_schema))));
        let blocks = set
            .exprs
            .iter()
            .enumerate()
            .map(|(i, &e)| {
                if is_a(e.cast(), pg_sys::NodeTag::T_Var) {
                    let name = pg_sys::get_attname(tbl, (*e.cast::<pg_sys::Var>()).varattno, false);
                    quote(CStr::from_ptr(name))
                } else {
                    format!("{ext}simhash_block({fp}, {i}, {})", set.n)
                }
            })
            .collect();
        Target { from, fp, ext, blocks, rows }
    }
}

fn spi_error(e: pgrx::spi::SpiError) -> ! {
    error!("simhash_nearest: {e}")
}

/// Offers the `(ctid, fp)` rows of a probe.
fn offer_rows(
    client: &SpiClient<'_>,
    stmt: &pgrx::spi::PreparedStatement<'_>,
    args: &[pgrx::datum::DatumWithOid<'_>],
    s: &mut Nearest,
) {
    let rows = client.select(stmt, None, args).unwrap_or_else(|e| spi_error(e));
    for row in rows {
        let tid: Option<pg_sys::ItemPointerData> = row.get(1).unwrap_or_else(|e| spi_error(e));
        let fp: Option<i64> = row.get(2).unwrap_or_else(|e| spi_error(e));
        if let (Some(tid), Some(fp)) = (tid, fp) {
            s.offer(tid_key(tid), fp as u64);
        }
    }
}

/// The `n` rows of `tbl` nearest `query` in Hamming distance on `fp_column`, by ascending
/// (distance, ctid). Declared in sql/fingerprints/nearest.sql.
#[pg_extern(sql = false)]
fn simhash_nearest(
    tbl: pg_sys::Oid,
    fp_column: &CStr,
    query: i64,
    n: i32,
) -> TableIterator<'static, (name!(ctid, pg_sys::ItemPointerData), name!(fp, i64), name!(distance, i32))> {
    if !(1..=core_nearest::MAX_N).contains(&n) {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("simhash_nearest: n must be between 1 and {}, got {n}", core_nearest::MAX_N)
        );
    }
    let ext_schema: pg_sys::Oid =
        Spi::get_one("SELECT extnamespace FROM pg_catalog.pg_extension WHERE extname = 'simhash'")
            .unwrap_or_else(|e| spi_error(e))
            .unwrap_or_else(|| error!("simhash_nearest: the simhash extension is not installed"));
    let t = target(tbl, fp_column, ext_schema);
    let nblocks = t.blocks.len() as u32;
    let fallback = SCAN_FALLBACK.get();
    let results = Spi::connect(|client| {
        let mut s = Nearest::new(query as u64, nblocks, n as usize);
        let mut statements = Vec::new();
        for b in &t.blocks {
            let sql = format!(
                "SELECT ctid, {fp} FROM {from} WHERE {b} OPERATOR(pg_catalog.=) ANY($1) AND {ext}hamming({fp}, $2) OPERATOR(pg_catalog.<=) $3",
                fp = t.fp,
                from = t.from,
                ext = t.ext
            );
            let types = [PgOid::from(pg_sys::INT4ARRAYOID), PgOid::from(pg_sys::INT8OID), PgOid::from(pg_sys::INT4OID)];
            statements.push(client.prepare(sql.as_str(), &types).unwrap_or_else(|e| spi_error(e)));
        }
        // Work spent on probes, in rows of a sequential scan (core_nearest::probe_cost).
        let mut spent = 0.0;
        while !s.done() {
            check_for_interrupts!();
            let (block, radius) = s.next_probe();
            let size = s.probe_size(block, radius);
            let cost = core_nearest::probe_cost(size, block, nblocks, t.rows);
            // Even with the fallback off, a shell too large for one array (a 32-bit block
            // far out) is not probed: the scan answers instead.
            if (fallback && core_nearest::prefer_scan(spent + cost, t.rows)) || size > core_blocks::MAX_RUNTIME_PROBES {
                let sql = format!(
                    "SELECT ctid, {fp}, {ext}hamming({fp}, $1) FROM {from} WHERE {fp} IS NOT NULL ORDER BY 3, 1 LIMIT $2",
                    fp = t.fp,
                    from = t.from,
                    ext = t.ext
                );
                let args = scan_args(query, n);
                let rows = client.select(sql.as_str(), None, &args).unwrap_or_else(|e| spi_error(e));
                let mut scanned = Vec::with_capacity(n as usize);
                for row in rows {
                    let tid: pg_sys::ItemPointerData =
                        row.get(1).unwrap_or_else(|e| spi_error(e)).expect("ctid is never NULL");
                    let fp: i64 = row.get(2).unwrap_or_else(|e| spi_error(e)).expect("filtered on IS NOT NULL");
                    let distance: i32 = row.get(3).unwrap_or_else(|e| spi_error(e)).expect("hamming of non-NULLs");
                    scanned.push(Neighbour { distance: distance as u32, key: tid_key(tid), fp: fp as u64 });
                }
                pgrx::debug1!("simhash_nearest: sequential scan after probes costing {spent:.0} of {:.0} rows", t.rows);
                s.set_scanned(scanned);
                break;
            }
            spent += cost;
            let keys: Vec<i32> = s.probe_keys(block, radius).into_iter().map(|k| k as i32).collect();
            let bound = s.max_useful_distance() as i32;
            let args = probe_args(keys, query, bound);
            offer_rows(client, &statements[block as usize], &args, &mut s);
            s.probed(block, radius);
        }
        s.into_results()
    });
    TableIterator::new(results.into_iter().map(|r| (key_tid(r.key), r.fp as i64, r.distance as i32)))
}

fn probe_args(keys: Vec<i32>, query: i64, bound: i32) -> [pgrx::datum::DatumWithOid<'static>; 3] {
    [keys.into(), query.into(), bound.into()]
}

fn scan_args(query: i64, n: i32) -> [pgrx::datum::DatumWithOid<'static>; 2] {
    [query.into(), n.into()]
}

pgrx::extension_sql_file!("../../../sql/fingerprints/nearest.sql", name = "nearest", requires = ["search"]);
