//! The dedup triggers' machinery, which every measure's trigger runs on and which knows no
//! measure: a measure implements [`config::Measure`] (its arguments checked against the table,
//! its check queries) and computes its own lock keys; the machinery does the rest.
//! - mod.rs: the calling protocol ([`fired`], [`firing`]), the table's column values, and
//!   `simhash_*_dedup_query`'s body ([`dedup_query`]); `simhash_dedup_skipped()`.
//! - config.rs: what every dedup trigger's config has ([`config::Config`]), its table's key
//!   and link column (key.rs, column.rs), the checks of the columns it computes or reads, the
//!   [`config::Measure`] and [`config::PreCheck`] traits.
//! - cache.rs: the configs and prepared plans, per backend and trigger, until the table's
//!   relcache entry is invalidated (ALTER TABLE, new indexes, VACUUM, ...), so renamed or
//!   re-added columns are picked up.
//! - lock.rs: the escalating advisory locks. Before the check, an inserter locks its
//!   measure's keys, which any two near-duplicates share, so they always contend; the check
//!   then runs with a fresh snapshot (READ COMMITTED) and sees the row of whoever held the
//!   lock. Under REPEATABLE READ and SERIALIZABLE the transaction snapshot cannot see that
//!   row, so the check is repeated with the latest snapshot, as PostgreSQL's foreign-key
//!   checks do, and a match there is a serialization failure (40001).
//! - check.rs: the check, one SPI query prepared once per backend and trigger, run with the
//!   table owner's user id under a security-restricted operation, as PostgreSQL's
//!   foreign-key checks do, so a role with only INSERT can use every action; the query is
//!   fully schema-qualified, since the inserter's search_path stays in force. Under
//!   [`Decision::Passage`] it reads the candidates best first and asks the dedup decision.
//! - act.rs: reject (23505), skip or link; DETAIL names the matching row's key only when
//!   the inserting user may read it (`may_see_key`, the rule of BuildIndexValueDescription).
//! - indexes.rs: the GIN indexes on a column, for a measure's pre-check or locks.
//!
//! Stored generated columns are computed after BEFORE triggers, so a dedup trigger cannot
//! read a generated value: it computes what it checks from the text itself and writes it.
//! The design, and what each measure adds, is in README.md ("Deduplicating on insert") and
//! each measure's trigger.rs.

pub(crate) mod act;
pub(crate) mod cache;
pub(crate) mod check;
pub(crate) mod column;
pub(crate) mod config;
pub(crate) mod indexes;
pub(crate) mod key;
pub(crate) mod lock;

use pgrx::pg_sys;
use pgrx::prelude::*;

use crate::error::raise;
use cache::entry;
use column::Column;
use config::{trigger_args, Configured, Measure};

/// What decides that a candidate is a near-duplicate (docs/decision.md). Each entry point makes
/// one, which 7.0's triggers let the option `"decision"` change (config.rs, `split_decision`):
/// 5.x's triggers, the `_d1` functions since 6.0.0, decide by the measure alone; 6.0's and
/// 7.0's read the measure's candidates, best first, and take the first the dedup decision
/// calls the same passage (`simhash_core::decision`), by its rule.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Decision {
    /// The measure alone: within the bound is a duplicate (5.x).
    Measure,
    /// The measure's candidates, then the dedup decision on the two texts by this rule.
    Passage(simhash_core::decision::Rule),
}

impl Decision {
    /// 6.0.0's triggers' (`_d2`).
    pub(crate) const D2: Decision = Decision::Passage(simhash_core::decision::Rule::D2);
    /// 7.0.0's triggers', before their option `"decision"`.
    pub(crate) const LATEST: Decision = Decision::Passage(simhash_core::decision::Rule::LATEST);
}

/// The fired trigger, after checking that it was declared the way these functions need.
pub(crate) struct Fired {
    pub(crate) td: *mut pg_sys::TriggerData,
    pub(crate) is_update: bool,
}

/// Checks the calling protocol (SQLSTATE 39P01 on misuse, like tsvector_update_trigger).
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn fired(fcinfo: pg_sys::FunctionCallInfo, func: &str) -> Fired {
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

/// A dedup trigger's firing: checked by [`fired`], with its config and plans (cache.rs).
pub(crate) struct Firing<M> {
    pub(crate) td: *mut pg_sys::TriggerData,
    pub(crate) is_update: bool,
    pub(crate) desc: pg_sys::TupleDesc,
    /// The new row: the inserted one, or the new version of the updated one.
    pub(crate) tuple: pg_sys::HeapTuple,
    pub(crate) config: std::rc::Rc<Configured<M>>,
    pub(crate) plans: [pg_sys::SPIPlanPtr; 2],
}

/// The firing of dedup trigger `func` of measure `M`, entry point `variant`, its config
/// cached or built (`Measure::build`).
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn firing<M: Measure>(
    fcinfo: pg_sys::FunctionCallInfo,
    func: &str,
    variant: M::Variant,
) -> Firing<M> {
    // SAFETY: called by the fmgr with a valid fcinfo (caller); `fired` checks it is a BEFORE
    // ROW INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid for the call.
    unsafe {
        let f = fired(fcinfo, func);
        let td = f.td;
        let rel = (*td).tg_relation;
        if (*(*td).tg_trigger).tgisclone {
            partitioned(td, func);
        }
        let ext_schema = pg_sys::get_func_namespace((*(*td).tg_trigger).tgfoid);
        let (config, plans) =
            entry::<M>(td, variant, || M::build(rel, &trigger_args((*td).tg_trigger), ext_schema, variant, func));
        let tuple = if f.is_update { (*td).tg_newtuple } else { (*td).tg_trigtuple };
        Firing { td, is_update: f.is_update, desc: (*rel).rd_att, tuple, config, plans }
    }
}

/// ERROR 0A000 for a dedup trigger created on a partitioned table (PostgreSQL clones it onto
/// each partition, where it would check only the partition a row goes to, and let a
/// near-duplicate in another partition in: issue 49).
///
/// # Safety
/// `td` must be the TriggerData of a firing trigger.
pub(crate) unsafe fn partitioned(td: *const pg_sys::TriggerData, func: &str) -> ! {
    // SAFETY: the trigger's name and relation are valid for the call (caller).
    let (name, relname) = unsafe {
        (
            std::ffi::CStr::from_ptr((*(*td).tg_trigger).tgname).to_string_lossy().into_owned(),
            column::relation_names((*td).tg_relation).1,
        )
    };
    raise(
        PgSqlErrorCode::ERRCODE_FEATURE_NOT_SUPPORTED,
        format!("{func}: trigger \"{name}\" on partition \"{relname}\" was created on its partitioned table"),
        Some("A dedup trigger checks the rows of the table it fires on: on a partitioned table it would check only the partition each row goes to, and let near-duplicates in other partitions in.".into()),
        Some("To deduplicate within each partition, create the trigger on each partition. To deduplicate the whole table, keep one unpartitioned table of the texts with the trigger, or deduplicate in bulk over the parent (docs/similarity.md, \"Partitioned tables\")."),
    )
}

/// The value of column `col` in `tuple`: None when it is NULL.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`, and `col` a column of it.
pub(crate) unsafe fn value_of(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    col: &Column,
) -> Option<pg_sys::Datum> {
    let mut null = false;
    // SAFETY: forwarded from the caller; the datum lives as long as the tuple.
    let datum = unsafe { pg_sys::heap_getattr(tuple, col.attnum as i32, desc, &mut null) };
    (!null).then_some(datum)
}

/// `tuple` with some columns replaced, palloc'd in the current memory context.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`; each value must be of its column's type.
pub(crate) unsafe fn replace(
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

/// Rows this session's dedup triggers skipped (action `skip`) since it started, including
/// rows of statements or transactions that were later rolled back.
#[pg_extern(volatile, parallel_restricted)]
pub(crate) fn simhash_dedup_skipped() -> i64 {
    act::skipped()
}

/// The body of the `simhash_*_dedup_query(tbl regclass, VARIADIC trigger_args text[])`
/// functions: the insert check query of measure `M`'s trigger (entry point `variant`) with
/// these arguments on `tbl`, after the same validation, with how it finds candidates
/// besides the query (`Measure::describe`) in a trailing comment (the text stays a query
/// that PREPARE accepts).
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
pub(crate) unsafe fn dedup_query<M: Measure>(
    fcinfo: pg_sys::FunctionCallInfo,
    variant: M::Variant,
    func: &str,
) -> pg_sys::Datum {
    // SAFETY: both arguments are non-NULL (STRICT); the relation is opened with
    // AccessShareLock for the duration of `build` (an error there releases it with the
    // transaction).
    unsafe {
        let relid = pg_sys::Oid::from(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).value() as u32);
        let args = Vec::<Option<String>>::from_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1), false)
            .expect("STRICT function got no array");
        let args: Vec<String> = args.into_iter().map(Option::unwrap_or_default).collect();
        let ext_schema = pg_sys::get_func_namespace((*(*fcinfo).flinfo).fn_oid);
        let rel = pg_sys::relation_open(relid, pg_sys::AccessShareLock as i32);
        let config = M::build(rel, &args, ext_schema, variant, func);
        let described = M::describe(&config, ext_schema, variant);
        pg_sys::relation_close(rel, pg_sys::AccessShareLock as i32);
        let described = described.unwrap_or_else(|| "no index pre-check".to_owned());
        format!("{} /* {described} */", config.query_insert).into_datum().expect("text datum")
    }
}
