//! Insert triggers: `simhash_update_trigger(fp_column, text_column)` keeps a fingerprint
//! column current, `simhash_dedup_trigger(fp_column, text_column, max_distance, action
//! [, link_column])` also stops near-duplicates at the door (reject / skip / link), safely
//! under concurrency. `simhash_dedup_skipped()` counts skipped rows, and
//! `simhash_dedup_query(tbl, VARIADIC args)` shows the check query a trigger runs.
//!
//! Design (README.md, "Deduplicating on insert", has the user-facing version):
//! - Stored generated columns are computed after BEFORE triggers, so the dedup trigger
//!   cannot read a generated fingerprint: it fingerprints the text itself and writes the
//!   (plain) fingerprint column, which the block columns are then generated from.
//! - Concurrency: before the check, the inserter takes transaction-level advisory locks on
//!   `simhash_core::dedup::lock_keys` (k + 1 pigeonhole blocks, ascending), so two
//!   near-duplicates always contend; the check then runs with a fresh snapshot (READ
//!   COMMITTED) and sees the row of whoever held the lock. Under REPEATABLE READ and
//!   SERIALIZABLE the transaction snapshot cannot see that row, so the check is repeated
//!   with the latest snapshot, as PostgreSQL's foreign-key checks do, and a match there is
//!   a serialization failure (40001).
//! - The check is one SPI query, `simhash_near(fp, $1, k)` on the table, which the planner
//!   support function (support.rs) turns into block-index probes. It is prepared once per
//!   backend and trigger, and forgotten when the table's relcache entry is invalidated
//!   (ALTER TABLE, new indexes, VACUUM, ...), so renamed or re-added columns are picked up.
//! - Before it, the index pre-check (probe.rs) scans the block indexes directly and skips
//!   the query when no index entry can be a match, which is nearly every insert: with
//!   covering block indexes at 1M rows it took insert throughput from 0.44 to about 0.8 of
//!   fingerprint maintenance alone (README.md, Performance).

use std::cell::RefCell;
use std::collections::HashMap;
use std::ffi::{CStr, CString};
use std::sync::atomic::{AtomicI64, Ordering};

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::dedup::{self, Action, CheckQuery};

use crate::block_index::{block_sets, covering, Funcs};
use crate::error::raise;
use crate::probe::PreCheck;

/// `locktag_field4` of our advisory locks. `pg_advisory_lock(bigint)` uses 1 and
/// `pg_advisory_lock(int, int)` 2, so an application's own advisory locks never collide
/// with these; in `pg_locks` they are `locktype = 'advisory'` with `objsubid = 21320`.
const LOCK_FIELD4: u16 = 0x5348; // "SH"

/// Rows skipped by `simhash_dedup_trigger(..., 'skip')` in this session (see
/// `simhash_dedup_skipped`). A backend runs one query at a time, so Relaxed is enough.
static SKIPPED: AtomicI64 = AtomicI64::new(0);

/// A NUL-terminated copy of a Rust string (identifiers from trigger arguments can't hold NUL).
fn cstring(s: &str) -> CString {
    CString::new(s).expect("trigger arguments are C strings")
}

/// `quote_identifier(name)`.
fn quote_ident(name: &str) -> String {
    let c = cstring(name);
    // SAFETY: quote_identifier reads a NUL-terminated string and returns either it or a
    // palloc'd quoted copy; we copy the result before `c` is dropped.
    unsafe { CStr::from_ptr(pg_sys::quote_identifier(c.as_ptr())).to_string_lossy().into_owned() }
}

/// The trigger's relation as a quoted, schema-qualified name, and its plain name for messages.
///
/// # Safety
/// `rel` must be an open relation.
unsafe fn relation_names(rel: pg_sys::Relation) -> (String, String) {
    // SAFETY: an open relation has a valid pg_class form; the namespace exists while the
    // relation is open and locked.
    unsafe {
        let name = (*(*rel).rd_rel).relname.data.as_ptr();
        let nsp = pg_sys::get_namespace_name((*(*rel).rd_rel).relnamespace);
        let qualified = CStr::from_ptr(pg_sys::quote_qualified_identifier(nsp, name)).to_string_lossy().into_owned();
        (qualified, CStr::from_ptr(name).to_string_lossy().into_owned())
    }
}

/// The fired trigger, after checking that it was declared the way these functions need.
struct Fired {
    td: *mut pg_sys::TriggerData,
    is_update: bool,
}

/// Checks the calling protocol (SQLSTATE 39P01 on misuse, like tsvector_update_trigger).
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
unsafe fn fired(fcinfo: pg_sys::FunctionCallInfo, func: &str) -> Fired {
    let bad = |what: &str| -> ! {
        raise(PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED, format!("{func}: {what}"), None, None)
    };
    // SAFETY: `context` is NULL or a Node; it is a TriggerData when the tag says so.
    unsafe {
        let ctx = (*fcinfo).context;
        if ctx.is_null() || (*ctx).type_ != pg_sys::NodeTag::T_TriggerData {
            bad("not called by the trigger manager");
        }
        let td = ctx.cast::<pg_sys::TriggerData>();
        let event = (*td).tg_event;
        if event & pg_sys::TRIGGER_EVENT_ROW == 0 {
            bad("must be fired FOR EACH ROW");
        }
        if event & pg_sys::TRIGGER_EVENT_TIMINGMASK != pg_sys::TRIGGER_EVENT_BEFORE {
            bad("must be fired BEFORE INSERT or UPDATE");
        }
        let op = event & pg_sys::TRIGGER_EVENT_OPMASK;
        if op != pg_sys::TRIGGER_EVENT_INSERT && op != pg_sys::TRIGGER_EVENT_UPDATE {
            bad("must be fired for INSERT or UPDATE");
        }
        Fired { td, is_update: op == pg_sys::TRIGGER_EVENT_UPDATE }
    }
}

/// The trigger's arguments.
///
/// # Safety
/// `trigger` must be the Trigger of a firing trigger.
unsafe fn trigger_args(trigger: *const pg_sys::Trigger) -> Vec<String> {
    // SAFETY: tgargs holds tgnargs NUL-terminated strings.
    unsafe {
        (0..(*trigger).tgnargs as usize)
            .map(|i| CStr::from_ptr(*(*trigger).tgargs.add(i)).to_string_lossy().into_owned())
            .collect()
    }
}

/// A user column of the trigger's table.
#[derive(Clone, Debug)]
struct Column {
    attnum: i16,
    base_type: pg_sys::Oid,
    generated: bool,
    /// quote_identifier(name)
    sql: String,
}

/// Looks a column up by name: ERROR 42703 when it doesn't exist or is a system column.
///
/// # Safety
/// `rel` must be an open relation.
unsafe fn column(rel: pg_sys::Relation, name: &str, func: &str, role: &str) -> Column {
    // SAFETY: SPI_fnumber only reads the descriptor (no SPI connection needed); attributes
    // 1..=natts are initialized entries of it.
    unsafe {
        let desc = (*rel).rd_att;
        let attnum = pg_sys::SPI_fnumber(desc, cstring(name).as_ptr());
        if attnum <= 0 {
            let (_, relname) = relation_names(rel);
            let what = if attnum == pg_sys::SPI_ERROR_NOATTRIBUTE { "does not exist" } else { "is a system column" };
            raise(
                PgSqlErrorCode::ERRCODE_UNDEFINED_COLUMN,
                format!("{func}: {role} column \"{name}\" of relation \"{relname}\" {what}"),
                None,
                None,
            );
        }
        let att = &(*desc).attrs.as_slice((*desc).natts as usize)[attnum as usize - 1];
        Column {
            attnum: attnum as i16,
            base_type: pg_sys::getBaseType(att.atttypid),
            generated: att.attgenerated != 0,
            sql: quote_ident(name),
        }
    }
}

/// The name of a type, for messages.
fn type_name(oid: pg_sys::Oid) -> String {
    // SAFETY: format_type_be returns a palloc'd string for any OID.
    unsafe { CStr::from_ptr(pg_sys::format_type_be(oid)).to_string_lossy().into_owned() }
}

/// The fingerprint and text columns, checked: ERROR 42804 on a wrong type, 428C9 when the
/// fingerprint column is generated (a BEFORE trigger cannot set it).
///
/// # Safety
/// `rel` must be an open relation.
unsafe fn fp_and_text(rel: pg_sys::Relation, fp_name: &str, text_name: &str, func: &str) -> (Column, Column) {
    // SAFETY: forwarded from the caller.
    let (fp, text) = unsafe { (column(rel, fp_name, func, "fingerprint"), column(rel, text_name, func, "text")) };
    if fp.base_type != pg_sys::INT8OID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: fingerprint column \"{fp_name}\" has type {}, expected bigint", type_name(fp.base_type)),
            None,
            None,
        );
    }
    if fp.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: fingerprint column \"{fp_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger can neither read nor set it.".into()),
            Some("Make it a plain bigint column: the trigger computes the fingerprint from the text and stores it there."),
        );
    }
    if text.base_type != pg_sys::TEXTOID && text.base_type != pg_sys::VARCHAROID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!(
                "{func}: text column \"{text_name}\" has type {}, expected text or varchar",
                type_name(text.base_type)
            ),
            None,
            None,
        );
    }
    (fp, text)
}

/// The fingerprint of the text in `text_col` of `tuple`, None when it is NULL.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`, and `text_col` a text/varchar column of it.
unsafe fn fingerprint_of(tuple: pg_sys::HeapTuple, desc: pg_sys::TupleDesc, text_col: &Column) -> Option<i64> {
    let mut null = false;
    // SAFETY: forwarded from the caller; the datum lives as long as the tuple.
    let datum = unsafe { pg_sys::heap_getattr(tuple, text_col.attnum as i32, desc, &mut null) };
    if null {
        return None;
    }
    // SAFETY: a non-NULL text or varchar datum (checked by `fp_and_text`).
    Some(unsafe { crate::fingerprint::simhash_of_text_datum(datum) })
}

/// `tuple` with some columns replaced, palloc'd in the current memory context.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`; each value must be of its column's type.
unsafe fn replace(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    cols: &[(i16, Option<pg_sys::Datum>)],
) -> pg_sys::HeapTuple {
    let mut nums: Vec<i32> = cols.iter().map(|c| c.0 as i32).collect();
    let mut values: Vec<pg_sys::Datum> = cols.iter().map(|c| c.1.unwrap_or(pg_sys::Datum::from(0usize))).collect();
    let mut nulls: Vec<bool> = cols.iter().map(|c| c.1.is_none()).collect();
    // SAFETY: forwarded from the caller; the three arrays have cols.len() entries.
    unsafe {
        pg_sys::heap_modify_tuple_by_cols(
            tuple,
            desc,
            cols.len() as i32,
            nums.as_mut_ptr(),
            values.as_mut_ptr(),
            nulls.as_mut_ptr(),
        )
    }
}

function_info_v1!(pg_finfo_simhash_update_trigger);
/// `simhash_update_trigger()`, used as `BEFORE INSERT OR UPDATE ... FOR EACH ROW EXECUTE
/// FUNCTION simhash_update_trigger('fp', 'body')`: sets fp = simhash(body), NULL for NULL.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_update_trigger(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    const F: &str = "simhash_update_trigger";
    // SAFETY: called by the fmgr with a valid fcinfo; `fired` checks it is a BEFORE ROW
    // INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call.
    unsafe {
        let f = fired(fcinfo, F);
        let td = f.td;
        let args = trigger_args((*td).tg_trigger);
        if args.len() != 2 {
            raise(
                PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED,
                format!("{F}: expected 2 arguments (fp_column, text_column), got {}", args.len()),
                None,
                None,
            );
        }
        let rel = (*td).tg_relation;
        let (fp, text) = fp_and_text(rel, &args[0], &args[1], F);
        let tuple = if f.is_update { (*td).tg_newtuple } else { (*td).tg_trigtuple };
        let value = fingerprint_of(tuple, (*rel).rd_att, &text).map(pg_sys::Datum::from);
        pg_sys::Datum::from(replace(tuple, (*rel).rd_att, &[(fp.attnum, value)]))
    }
}

/// Everything a dedup trigger derives from its arguments and table, built on its first
/// firing in a backend.
struct Config {
    relid: pg_sys::Oid,
    relname: String,
    fp: Column,
    text: Column,
    link: Option<Column>,
    k: u32,
    action: Action,
    /// The key columns as listed in DETAIL, e.g. `id` or `a, b` (`ctid` without a primary key).
    key_label: String,
    /// The key's type, when the check query returns it (link).
    link_type: Option<(bool, i16)>,
    query_insert: String,
    query_update: String,
    /// The block indexes scanned before the check query (probe.rs), if some set is cheaper
    /// to scan than the query is to run (`dedup::choose_precheck`).
    precheck: Option<PreCheck>,
}

/// Checks the arguments of a dedup trigger against its table and builds the check queries.
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
unsafe fn config(rel: pg_sys::Relation, args: &[String], ext_schema: pg_sys::Oid, func: &str) -> Config {
    let parsed = dedup::parse_args(args).unwrap_or_else(|e| {
        let code = if e.is_protocol() {
            PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED
        } else {
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
        };
        raise(code, format!("{func}: {e}"), None, None)
    });
    // SAFETY: `rel` is open (caller); catalog lookups run inside a transaction. The primary
    // key index is opened and closed with AccessShareLock, as the planner does.
    unsafe {
        let (fp, text) = fp_and_text(rel, &parsed.fp_column, &parsed.text_column, func);
        let (qualified, relname) = relation_names(rel);
        // The primary key, for DETAIL and for link.
        let mut key_names = Vec::new();
        let mut key_types = Vec::new();
        let pk = pg_sys::RelationGetPrimaryKeyIndex(rel);
        if pk != pg_sys::InvalidOid {
            let index = pg_sys::index_open(pk, pg_sys::AccessShareLock as i32);
            let form = (*index).rd_index;
            let attrs = (*(*rel).rd_att).attrs.as_slice((*(*rel).rd_att).natts as usize);
            for j in 0..(*form).indnkeyatts as usize {
                let attnum = *(*form).indkey.values.as_ptr().add(j);
                let att = &attrs[attnum as usize - 1];
                key_names.push(CStr::from_ptr(att.attname.data.as_ptr()).to_string_lossy().into_owned());
                key_types.push((att.atttypid, att.attbyval, att.attlen));
            }
            pg_sys::index_close(index, pg_sys::AccessShareLock as i32);
        }
        let mut link = None;
        let mut link_type = None;
        if let Some(name) = &parsed.link_column {
            let col = column(rel, name, func, "link");
            if key_names.len() != 1 {
                raise(
                    PgSqlErrorCode::ERRCODE_OBJECT_NOT_IN_PREREQUISITE_STATE,
                    format!("{func}: action link needs a single-column primary key on \"{relname}\""),
                    Some(format!("The table has {}.", if key_names.is_empty() { "no primary key".to_owned() } else { format!("a primary key of {} columns", key_names.len()) })),
                    Some("The link column receives the primary key of the matching row."),
                );
            }
            let (key_type, byval, len) = key_types[0];
            if col.base_type != pg_sys::getBaseType(key_type) {
                raise(
                    PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
                    format!(
                        "{func}: link column \"{name}\" has type {}, but the primary key \"{}\" has type {}",
                        type_name(col.base_type),
                        key_names[0],
                        type_name(key_type)
                    ),
                    None,
                    None,
                );
            }
            if col.generated {
                raise(
                    PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
                    format!("{func}: link column \"{name}\" is a generated column"),
                    None,
                    None,
                );
            }
            link = Some(col);
            link_type = Some((byval, len));
        }
        let quoted_keys: Vec<String> = key_names.iter().map(|n| quote_ident(n)).collect();
        let schema = quote_ident(&CStr::from_ptr(pg_sys::get_namespace_name(ext_schema)).to_string_lossy());
        let q = CheckQuery {
            table: &qualified,
            fp: &fp.sql,
            ext_schema: &schema,
            max_distance: parsed.max_distance,
            key_columns: &quoted_keys,
            with_link_value: link.is_some(),
            exclude_ctid: false,
        };
        let query_insert = dedup::check_query(&q);
        let query_update = dedup::check_query(&CheckQuery { exclude_ctid: true, ..q });
        // The table's row count as of its last VACUUM or ANALYZE, which also invalidate this
        // config (relcache), so the choice follows the table's growth.
        let rows = (*(*rel).rd_rel).reltuples as f64;
        let precheck = Funcs::lookup(ext_schema).and_then(|funcs| {
            let var = pg_sys::makeVar(1, fp.attnum, pg_sys::INT8OID, -1, pg_sys::InvalidOid, 0);
            let sets = block_sets(rel, var, &funcs);
            let shapes: Vec<(u32, bool)> =
                sets.iter().map(|s| (s.n as u32, covering(&s.indexes))).collect();
            let chosen = dedup::choose_precheck(&shapes, parsed.max_distance, rows)?;
            Some(PreCheck { nblocks: sets[chosen].n, indexes: sets[chosen].indexes.clone() })
        });
        Config {
            relid: (*rel).rd_id,
            relname,
            fp,
            text,
            link,
            k: parsed.max_distance,
            action: parsed.action,
            key_label: if key_names.is_empty() { "ctid".into() } else { key_names.join(", ") },
            link_type,
            query_insert,
            query_update,
            precheck,
        }
    }
}

/// A backend's cached state of one dedup trigger.
struct Entry {
    config: std::rc::Rc<Config>,
    /// SPI plans kept with SPI_keepplan: [insert, update].
    plans: [pg_sys::SPIPlanPtr; 2],
}

thread_local! {
    /// Dedup triggers by trigger OID. Never borrowed across a call into PostgreSQL.
    static CACHE: RefCell<HashMap<pg_sys::Oid, Entry>> = RefCell::new(HashMap::new());
    /// Relations whose relcache entry was invalidated since the last lookup (InvalidOid:
    /// all). Written by the invalidation callback, which may run inside any PostgreSQL call.
    static STALE: RefCell<Vec<pg_sys::Oid>> = const { RefCell::new(Vec::new()) };
    static CALLBACK_REGISTERED: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// Relcache invalidation callback: remember the relation; the cache is pruned on next use.
#[pg_guard]
unsafe extern "C-unwind" fn relcache_invalidated(_arg: pg_sys::Datum, relid: pg_sys::Oid) {
    STALE.with(|s| {
        let mut s = s.borrow_mut();
        // A session busy with DDL and no insert would grow the list without bound: past a
        // few entries, forget everything instead (one re-prepare per trigger).
        if s.len() >= 64 {
            s.clear();
            s.push(pg_sys::InvalidOid);
        } else {
            s.push(relid);
        }
    });
}

/// The trigger's cached state, built (and validated) if missing or stale.
///
/// # Safety
/// `td` must be the TriggerData of a firing trigger; `ext_schema` this extension's schema.
unsafe fn entry(td: *mut pg_sys::TriggerData, ext_schema: pg_sys::Oid, func: &str) -> (std::rc::Rc<Config>, [pg_sys::SPIPlanPtr; 2]) {
    if !CALLBACK_REGISTERED.get() {
        // SAFETY: registers a plain function once per backend (PostgreSQL allows 10).
        unsafe { pg_sys::CacheRegisterRelcacheCallback(Some(relcache_invalidated), pg_sys::Datum::from(0usize)) };
        CALLBACK_REGISTERED.set(true);
    }
    // SAFETY: `td` is valid for the call (caller).
    let (tgoid, rel) = unsafe { ((*(*td).tg_trigger).tgoid, (*td).tg_relation) };
    let stale: Vec<pg_sys::Oid> = STALE.with(|s| std::mem::take(&mut *s.borrow_mut()));
    let mut dropped = Vec::new();
    let found = CACHE.with(|c| {
        let mut c = c.borrow_mut();
        if !stale.is_empty() {
            c.retain(|_, e| {
                let keep = !stale.iter().any(|&r| r == pg_sys::InvalidOid || r == e.config.relid);
                if !keep {
                    dropped.extend(e.plans.iter().copied().filter(|p| !p.is_null()));
                }
                keep
            });
        }
        c.get(&tgoid).map(|e| (e.config.clone(), e.plans))
    });
    for plan in dropped {
        // SAFETY: a plan we kept with SPI_keepplan and no longer reference.
        unsafe { pg_sys::SPI_freeplan(plan) };
    }
    if let Some(found) = found {
        return found;
    }
    // SAFETY: forwarded from the caller.
    let config = std::rc::Rc::new(unsafe { config(rel, &trigger_args((*td).tg_trigger), ext_schema, func) });
    let plans = [std::ptr::null_mut(); 2];
    CACHE.with(|c| c.borrow_mut().insert(tgoid, Entry { config: config.clone(), plans }));
    (config, plans)
}

/// The nearest existing row within the distance bound.
struct Match {
    key: String,
    /// The key as a datum (link only), copied out of SPI's memory.
    link_value: Option<pg_sys::Datum>,
    distance: i32,
}

/// What the check found.
enum Found {
    None,
    Visible(Match),
    /// Visible only to the latest snapshot (REPEATABLE READ / SERIALIZABLE).
    Concurrent(Match),
}

/// Bounds on the block keys one transaction locks. Transaction locks stay in PostgreSQL's
/// shared lock table until commit, and that table holds max_locks_per_transaction x
/// (max_connections + workers) entries for the whole server (about 7,800 by default): at
/// k = 3 (4 keys a row) one INSERT of 2,000 rows would fill it and fail with "out of shared
/// memory". Past ESCALATE_TRY_AFTER keys a transaction tries, without waiting, to hold the
/// table key exclusively instead; past ESCALATE_WAIT_AFTER it waits for it, which can
/// deadlock (40P01) with a concurrent inserter but keeps 8 concurrent bulk writers within
/// the default lock table (8 x 512 keys).
const ESCALATE_TRY_AFTER: usize = 128;
const ESCALATE_WAIT_AFTER: usize = 512;

thread_local! {
    /// (local transaction id, block keys locked in it so far).
    static XACT_LOCKS: std::cell::Cell<(u32, usize)> = const { std::cell::Cell::new((0, 0)) };
}

/// An advisory LOCKTAG of this extension.
fn lock_tag(key: u64) -> pg_sys::LOCKTAG {
    pg_sys::LOCKTAG {
        // SAFETY: MyDatabaseId is set at backend start and never changes afterwards.
        locktag_field1: unsafe { pg_sys::MyDatabaseId }.to_u32(),
        locktag_field2: (key >> 32) as u32,
        locktag_field3: key as u32,
        locktag_field4: LOCK_FIELD4,
        locktag_type: pg_sys::LockTagType::LOCKTAG_ADVISORY as u8,
        locktag_lockmethodid: pg_sys::USER_LOCKMETHOD as u8,
    }
}

/// Takes, until the end of the transaction, the locks that make two inserters of
/// near-duplicates contend: the table key in Share mode, then the block keys of `fp` in
/// Exclusive mode in ascending order (so single-row inserters never deadlock). A
/// transaction with many block keys upgrades the table key to Exclusive (see
/// ESCALATE_TRY_AFTER); once it holds it no other dedup inserter on this table can run,
/// so it needs no more block keys.
fn lock(config: &Config, fp: i64) {
    let (relid, attnum) = (config.relid.to_u32(), config.fp.attnum);
    let table = lock_tag(dedup::table_lock_key(relid, attnum, config.k));
    let (share, exclusive) = (pg_sys::ShareLock as i32, pg_sys::ExclusiveLock as i32);
    // SAFETY: fully initialized advisory LOCKTAGs; transaction locks (sessionLock = false).
    // A waiting LockAcquire returns only once the lock is held (a deadlock or cancellation
    // raises an ERROR instead); MyProc is this backend's PGPROC, valid in a transaction.
    unsafe {
        if pg_sys::LockHeldByMe(&table, exclusive) {
            return;
        }
        pg_sys::LockAcquire(&table, share, false, false);
        let keys = dedup::lock_keys(relid, attnum, config.k, fp as u64);
        let lxid = (*pg_sys::MyProc).lxid;
        let (xact, taken) = XACT_LOCKS.get();
        let taken = if xact == lxid { taken } else { 0 };
        let after = taken + keys.len();
        if after > ESCALATE_TRY_AFTER {
            let wait = after > ESCALATE_WAIT_AFTER;
            if pg_sys::LockAcquire(&table, exclusive, false, !wait) != pg_sys::LockAcquireResult::LOCKACQUIRE_NOT_AVAIL {
                return;
            }
        }
        XACT_LOCKS.set((lxid, taken + keys.len()));
        for key in keys {
            pg_sys::LockAcquire(&lock_tag(key), exclusive, false, false);
        }
    }
}

/// Runs the check query (under SPI, already connected) and copies its row out.
///
/// # Safety
/// SPI must be connected; `plan` must be a valid plan of this trigger's check query and
/// `values`/`nulls` match its parameters.
unsafe fn run_check(
    config: &Config,
    plan: pg_sys::SPIPlanPtr,
    values: &mut [pg_sys::Datum],
    nulls: &CStr,
    snapshot: Option<pg_sys::Snapshot>,
) -> Option<Match> {
    // SAFETY: forwarded from the caller. read_only = false: SPI increments the command
    // counter and takes a fresh snapshot (READ COMMITTED), so rows committed by whoever
    // held our locks, and rows inserted earlier by this statement, are visible.
    unsafe {
        let rc = match snapshot {
            None => pg_sys::SPI_execute_plan(plan, values.as_mut_ptr(), nulls.as_ptr(), false, 1),
            Some(s) => pg_sys::SPI_execute_snapshot(
                plan,
                values.as_mut_ptr(),
                nulls.as_ptr(),
                s,
                std::ptr::null_mut(),
                false,
                false,
                1,
            ),
        };
        if rc != pg_sys::SPI_OK_SELECT as i32 {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("simhash_dedup_trigger: the check query failed (SPI code {rc})"),
                None,
                None,
            );
        }
        if pg_sys::SPI_processed == 0 {
            return None;
        }
        let table = pg_sys::SPI_tuptable;
        let (tuple, desc) = (*(*table).vals, (*table).tupdesc);
        let key_ptr = pg_sys::SPI_getvalue(tuple, desc, 1);
        let key = CStr::from_ptr(key_ptr).to_string_lossy().into_owned();
        let mut null = false;
        let link_value = match config.link_type {
            Some((byval, len)) => {
                let v = pg_sys::SPI_getbinval(tuple, desc, 2, &mut null);
                // The primary key is never NULL; copy it to the trigger's memory context.
                Some(pg_sys::SPI_datumTransfer(v, byval, len as i32))
            }
            None => None,
        };
        let distance = pg_sys::SPI_getbinval(tuple, desc, 3, &mut null).value() as i32;
        Some(Match { key, link_value, distance })
    }
}

/// Locks, then looks for the nearest existing row within the bound.
///
/// # Safety
/// `td` must be the TriggerData of a firing dedup trigger whose Config is `config`.
unsafe fn check(
    td: *mut pg_sys::TriggerData,
    config: &Config,
    mut plans: [pg_sys::SPIPlanPtr; 2],
    fp: i64,
    exclude: Option<pg_sys::ItemPointerData>,
) -> Found {
    lock(config, fp);
    if let Some(precheck) = &config.precheck {
        // SAFETY: the trigger's relation, open for the call; the block set was found on it
        // when the config was built, and any change to its indexes invalidated the config.
        if !unsafe { precheck.may_match((*td).tg_relation, fp, config.k as i32) } {
            return Found::None;
        }
    }
    // SAFETY: SPI_connect/SPI_finish bracket every SPI call; on ERROR the transaction
    // abort releases the SPI stack. Plans are prepared in SPI's context and moved to a
    // long-lived one by SPI_keepplan before being cached.
    unsafe {
        if pg_sys::SPI_connect() != pg_sys::SPI_OK_CONNECT as i32 {
            raise(PgSqlErrorCode::ERRCODE_INTERNAL_ERROR, "simhash_dedup_trigger: SPI_connect failed".into(), None, None);
        }
        let which = exclude.is_some() as usize;
        if plans[which].is_null() {
            let text = if exclude.is_some() { &config.query_update } else { &config.query_insert };
            let mut types = [pg_sys::INT8OID, pg_sys::TIDOID];
            let nargs = 1 + which as i32;
            // Always the generic plan: its probes come from simhash_probes($1, ...) at run
            // time. The plan cache would otherwise keep choosing custom plans (it guesses 10
            // elements for a run-time array, so the generic plan looks costlier) and re-plan
            // the query, support function included, on every row.
            let plan = pg_sys::SPI_prepare_cursor(
                cstring(text).as_ptr(),
                nargs,
                types.as_mut_ptr(),
                pg_sys::CURSOR_OPT_GENERIC_PLAN as i32,
            );
            if plan.is_null() {
                let code = pg_sys::SPI_result;
                raise(
                    PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                    format!("simhash_dedup_trigger: could not prepare the check query (SPI code {code})"),
                    Some(text.clone()),
                    None,
                );
            }
            pg_sys::SPI_keepplan(plan);
            plans[which] = plan;
            let tgoid = (*(*td).tg_trigger).tgoid;
            CACHE.with(|c| {
                if let Some(e) = c.borrow_mut().get_mut(&tgoid) {
                    e.plans[which] = plan;
                }
            });
        }
        let plan = plans[which];
        let mut tid = exclude.unwrap_or_default();
        let mut values = [pg_sys::Datum::from(fp), pg_sys::Datum::from(&mut tid as *mut pg_sys::ItemPointerData)];
        let nulls = c"  ";
        let mut found = match run_check(config, plan, &mut values, nulls, None) {
            Some(m) => Found::Visible(m),
            None => Found::None,
        };
        // REPEATABLE READ and SERIALIZABLE: the transaction snapshot cannot see a row
        // committed since it was taken, e.g. by the transaction whose locks we waited for.
        if matches!(found, Found::None) && pg_sys::XactIsoLevel >= pg_sys::XACT_REPEATABLE_READ as i32 {
            if let Some(m) = run_check(config, plan, &mut values, nulls, Some(pg_sys::GetLatestSnapshot())) {
                found = Found::Concurrent(m);
            }
        }
        pg_sys::SPI_finish();
        found
    }
}

function_info_v1!(pg_finfo_simhash_dedup_trigger);
/// `simhash_dedup_trigger()`, used as `BEFORE INSERT OR UPDATE OF body ... FOR EACH ROW
/// EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject')`.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_dedup_trigger(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    const F: &str = "simhash_dedup_trigger";
    // SAFETY: called by the fmgr with a valid fcinfo; `fired` checks it is a BEFORE ROW
    // INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call.
    unsafe {
        let f = fired(fcinfo, F);
        let td = f.td;
        let rel = (*td).tg_relation;
        let desc = (*rel).rd_att;
        let ext_schema = pg_sys::get_func_namespace((*(*td).tg_trigger).tgfoid);
        let (config, plans) = entry(td, ext_schema, F);
        let tuple = if f.is_update { (*td).tg_newtuple } else { (*td).tg_trigtuple };
        let Some(fp) = fingerprint_of(tuple, desc, &config.text) else {
            // NULL text: no fingerprint, never anyone's near-duplicate; no lock, no check.
            let mut cols = vec![(config.fp.attnum, None)];
            if let Some(link) = &config.link {
                cols.push((link.attnum, None));
            }
            return pg_sys::Datum::from(replace(tuple, desc, &cols));
        };
        let fp_datum = Some(pg_sys::Datum::from(fp));
        let exclude = if f.is_update {
            // An UPDATE that keeps the fingerprint was checked when the row got it.
            let mut null = false;
            let old = pg_sys::heap_getattr((*td).tg_trigtuple, config.fp.attnum as i32, desc, &mut null);
            if !null && old.value() as i64 == fp {
                return pg_sys::Datum::from(replace(tuple, desc, &[(config.fp.attnum, fp_datum)]));
            }
            Some((*(*td).tg_trigtuple).t_self)
        } else {
            None
        };
        let found = check(td, &config, plans, fp, exclude);
        let detail = |m: &Match| {
            format!(
                "Key ({})=({}) is at Hamming distance {} (max_distance {}).",
                config.key_label, m.key, m.distance, config.k
            )
        };
        let trigger_name = CStr::from_ptr((*(*td).tg_trigger).tgname).to_string_lossy();
        match (found, config.action) {
            (Found::Concurrent(m), _) => raise(
                PgSqlErrorCode::ERRCODE_T_R_SERIALIZATION_FAILURE,
                format!(
                    "could not serialize access due to a concurrent near-duplicate in relation \"{}\" (trigger \"{trigger_name}\")",
                    config.relname
                ),
                Some(detail(&m)),
                Some("The transaction might succeed if retried."),
            ),
            (Found::Visible(m), Action::Reject) => raise(
                PgSqlErrorCode::ERRCODE_UNIQUE_VIOLATION,
                format!(
                    "new row for relation \"{}\" is a near-duplicate of an existing row (trigger \"{trigger_name}\")",
                    config.relname
                ),
                Some(detail(&m)),
                None,
            ),
            (Found::Visible(m), Action::Skip) => {
                SKIPPED.fetch_add(1, Ordering::Relaxed);
                // DEBUG1, not NOTICE: a bulk load can skip millions of rows.
                ereport!(
                    DEBUG1,
                    PgSqlErrorCode::ERRCODE_SUCCESSFUL_COMPLETION,
                    format!("{F}: skipped a near-duplicate row of \"{}\"", config.relname),
                    detail(&m)
                );
                pg_sys::Datum::from(0usize)
            }
            (found, _) => {
                let mut cols = vec![(config.fp.attnum, fp_datum)];
                if let Some(link) = &config.link {
                    let value = match found {
                        Found::Visible(m) => m.link_value,
                        _ => None,
                    };
                    cols.push((link.attnum, value));
                }
                pg_sys::Datum::from(replace(tuple, desc, &cols))
            }
        }
    }
}

/// Rows this session's dedup triggers skipped (action `skip`) since it started, including
/// rows of statements or transactions that were later rolled back.
#[pg_extern(volatile, parallel_restricted)]
fn simhash_dedup_skipped() -> i64 {
    SKIPPED.load(Ordering::Relaxed)
}

function_info_v1!(pg_finfo_simhash_dedup_query);
/// `simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) → text`: the check
/// query `simhash_dedup_trigger(trigger_args...)` runs on `tbl` for an INSERT (`$1` is the
/// new fingerprint), after the same validation, e.g. to EXPLAIN it.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_dedup_query(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT (regclass, text[]) in sql/trigger.sql; the relation is opened
    // with AccessShareLock for the duration of the call.
    unsafe {
        let relid = pg_sys::Oid::from(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).value() as u32);
        let args = Vec::<Option<String>>::from_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1), false)
            .expect("STRICT function got no array");
        let args: Vec<String> = args.into_iter().map(Option::unwrap_or_default).collect();
        let ext_schema = pg_sys::get_func_namespace((*(*fcinfo).flinfo).fn_oid);
        let rel = pg_sys::relation_open(relid, pg_sys::AccessShareLock as i32);
        let config = config(rel, &args, ext_schema, "simhash_dedup_query");
        pg_sys::relation_close(rel, pg_sys::AccessShareLock as i32);
        // The pre-check, in a trailing comment: the text stays a query that PREPARE accepts.
        let precheck = match &config.precheck {
            Some(p) => p.describe(),
            None => "no index pre-check".to_owned(),
        };
        format!("{} /* {precheck} */", config.query_insert).into_datum().expect("text datum")
    }
}

pgrx::extension_sql_file!("../sql/trigger.sql", name = "trigger", requires = [simhash_dedup_skipped, "search"]);
