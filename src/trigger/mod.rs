//! Insert triggers: `simhash_update_trigger(fp_column, text_column [, options])` keeps a
//! fingerprint column current, `simhash_dedup_trigger(fp_column, text_column, max_distance,
//! action [, link_column] [, options])` also stops near-duplicates at the door (reject /
//! skip / link), safely under concurrency. `simhash_dedup_skipped()` counts skipped rows,
//! and `simhash_dedup_query(tbl, VARIADIC args)` shows the check query a trigger runs.
//! `simhash_segments_dedup_trigger` (segments_dedup.rs) does what the dedup trigger does by
//! resemblance of segment fingerprints, with the same locks, check, privileges and actions
//! (lock.rs, check.rs, act.rs), and `simhash_similarity_dedup_trigger` (similarity_dedup.rs)
//! by exact text similarity or containment, through a `simhash_ops` GIN index.
//!
//! The fingerprint is `simhash(text, options)`: the options argument, always the last and
//! recognized by beginning with `{`, is JSON text read as `simhash`'s jsonb (fingerprint/options.rs).
//! Each trigger has two C symbols sharing one body, which differ in the definition used
//! when the options name none, as in fingerprint/simhash.rs: `simhash_update_trigger` and
//! `simhash_dedup_trigger` (definition 0), the symbols of 0.x's functions, which a
//! database at 0.3.0 calls until `ALTER EXTENSION simhash UPDATE` and 1.0.0 keeps as
//! `simhash_update_trigger_v0()` / `simhash_dedup_trigger_v0()` (sql/fingerprint/definition0.sql), so
//! triggers created under 0.x keep definition 0; and their `_v1`, `_v2` and `_v3` twins
//! (definitions 1, 2 and 3), declared by the trigger.sql of 1.0.0, 2.0.0 and 3.0.0, each
//! kept by the next major as the `_vN` functions. A text the definition gives no fingerprint
//! (fewer features than its minimum) is treated like a NULL text.
//!
//! Design (README.md, "Deduplicating on insert", has the user-facing version):
//! - Stored generated columns are computed after BEFORE triggers, so the dedup trigger
//!   cannot read a generated fingerprint: it fingerprints the text itself and writes the
//!   (plain) fingerprint column, which the block columns are then generated from.
//! - Concurrency (lock.rs): before the check, the inserter takes transaction-level advisory
//!   locks on `simhash_core::trigger::lock_keys` (k + 1 pigeonhole blocks, ascending), so two
//!   near-duplicates always contend; the check then runs with a fresh snapshot (READ
//!   COMMITTED) and sees the row of whoever held the lock. Under REPEATABLE READ and
//!   SERIALIZABLE the transaction snapshot cannot see that row, so the check is repeated
//!   with the latest snapshot, as PostgreSQL's foreign-key checks do, and a match there is
//!   a serialization failure (40001).
//! - The check (check.rs) is one SPI query, `simhash_near(fp, $1, k)` on the table, which
//!   the planner support function (search/support.rs) turns into block-index probes. It is
//!   prepared once per backend and trigger, and forgotten when the table's relcache entry
//!   is invalidated (ALTER TABLE, new indexes, VACUUM, ...), so renamed or re-added columns
//!   are picked up (config.rs, cache.rs).
//! - Privileges (check.rs, `AsOwner`): the check query runs with the table owner's user id
//!   under a security-restricted operation, as PostgreSQL's foreign-key checks do, so a
//!   role with only INSERT can use every action; the query is fully schema-qualified,
//!   since the inserter's search_path stays in force. DETAIL and skip's DEBUG1 message
//!   name the matching row's key only when the inserting user may read it
//!   (`may_see_key`, the rule of BuildIndexValueDescription).
//! - Before it, the index pre-check (precheck.rs) scans the block indexes directly and skips
//!   the query when no index entry can be a match, which is nearly every insert: with
//!   covering block indexes at 1M rows it took insert throughput from 0.44 to about 0.8 of
//!   fingerprint maintenance alone (docs/performance.md, "Insert triggers").

mod act;
mod cache;
mod check;
mod column;
mod config;
mod key;
mod lock;
mod precheck;
mod segments;
mod segments_dedup;
mod segments_precheck;
mod similarity_dedup;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::trigger as dedup;
use simhash_core::{Definition, Options};

use crate::error::raise;
use crate::fingerprint::text_datum_to_utf8;
use act::{act, unchecked};
use cache::{entry, Kind};
use check::{check, Match};
use column::Column;
use config::{bad_args, fp_and_text, options, trigger_args, Config};

/// What decides that a candidate is a near-duplicate (docs/decision.md). Each C symbol makes
/// one, as each makes one fingerprint definition: 5.x's triggers, the `_d1` functions since
/// 6.0.0, decide by the measure alone; 6.0's read the measure's candidates, best first, and
/// take the first the dedup decision calls the same passage (`simhash_core::decision`).
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(super) enum Decision {
    /// The measure alone: within the bound is a duplicate (5.x).
    Measure,
    /// The measure's candidates, then the dedup decision on the two texts (6.0).
    Passage,
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

/// A dedup trigger's firing: checked by [`fired`], with its config and plans (cache.rs).
struct Firing {
    td: *mut pg_sys::TriggerData,
    is_update: bool,
    desc: pg_sys::TupleDesc,
    /// The new row: the inserted one, or the new version of the updated one.
    tuple: pg_sys::HeapTuple,
    config: std::rc::Rc<Config>,
    plans: [pg_sys::SPIPlanPtr; 2],
}

/// The firing of dedup trigger `func` of kind `kind`, deciding by `decision`, its config
/// cached or made by `build(relation, trigger arguments, extension schema)`; `default` is the
/// definition when the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
unsafe fn firing(
    fcinfo: pg_sys::FunctionCallInfo,
    func: &str,
    default: Definition,
    kind: Kind,
    decision: Decision,
    build: impl FnOnce(pg_sys::Relation, &[String], pg_sys::Oid) -> Config,
) -> Firing {
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
            entry(td, default, kind, decision, || build(rel, &trigger_args((*td).tg_trigger), ext_schema));
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
unsafe fn partitioned(td: *const pg_sys::TriggerData, func: &str) -> ! {
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
unsafe fn value_of(tuple: pg_sys::HeapTuple, desc: pg_sys::TupleDesc, col: &Column) -> Option<pg_sys::Datum> {
    let mut null = false;
    // SAFETY: forwarded from the caller; the datum lives as long as the tuple.
    let datum = unsafe { pg_sys::heap_getattr(tuple, col.attnum as i32, desc, &mut null) };
    (!null).then_some(datum)
}

/// The fingerprint of the text in `text_col` of `tuple` under `options`: None when the
/// text is NULL or the definition gives it no fingerprint (too few features).
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`, and `text_col` a text/varchar column of it.
unsafe fn fingerprint_of(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    text_col: &Column,
    options: &Options,
) -> Option<i64> {
    // SAFETY: forwarded from the caller; a non-NULL text or varchar datum (checked by
    // `fp_and_text`).
    unsafe {
        value_of(tuple, desc, text_col).and_then(|datum| crate::fingerprint::simhash_of_text_datum(datum, options))
    }
}

/// The segments of the text in `text_col` of `tuple` under `options`: None when the text
/// is NULL.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`, and `text_col` a text/varchar column of it.
unsafe fn segments_of(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    text_col: &Column,
    options: &Options,
) -> Option<Vec<i64>> {
    // SAFETY: forwarded from the caller; a non-NULL text or varchar datum (checked by
    // `segments_and_text`).
    unsafe { value_of(tuple, desc, text_col).map(|datum| crate::segments::segments_of_text_datum(datum, options)) }
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

/// The body of both `simhash_update_trigger` symbols: sets fp = simhash(text, options),
/// NULL for a NULL text or one without a fingerprint. `default` is the definition when
/// the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
unsafe fn update_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
    const F: &str = "simhash_update_trigger";
    // SAFETY: called by the fmgr with a valid fcinfo (caller); `fired` checks it is a
    // BEFORE ROW INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid
    // for the call.
    unsafe {
        let f = fired(fcinfo, F);
        let td = f.td;
        let args = trigger_args((*td).tg_trigger);
        let parsed = dedup::parse_update_args(&args).unwrap_or_else(|e| bad_args(e, F));
        let options = options(parsed.options.as_deref(), default, F);
        let rel = (*td).tg_relation;
        let (fp, text) = fp_and_text(rel, &parsed.fp_column, &parsed.text_column, F);
        let tuple = if f.is_update { (*td).tg_newtuple } else { (*td).tg_trigtuple };
        let value = fingerprint_of(tuple, (*rel).rd_att, &text, &options).map(pg_sys::Datum::from);
        pg_sys::Datum::from(replace(tuple, (*rel).rd_att, &[(fp.attnum, value)]))
    }
}

with_definition! {
    /// `simhash_update_trigger()` since 3.0.0 (definition 3 by default), used as `BEFORE
    /// INSERT OR UPDATE ... FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body'
    /// [, options])`: sets fp = simhash(body [, options]), NULL for NULL.
    pg_finfo_simhash_update_trigger_v3, simhash_update_trigger_v3 => update_trigger, Definition::V3
}
with_definition! {
    /// `simhash_update_trigger()` of 2.x, `simhash_update_trigger_v2()` since 3.0.0
    /// (definition 2 by default).
    pg_finfo_simhash_update_trigger_v2, simhash_update_trigger_v2 => update_trigger, Definition::V2
}
with_definition! {
    /// `simhash_update_trigger()` of 1.x, `simhash_update_trigger_v1()` since 2.0.0
    /// (definition 1 by default), used as `BEFORE
    /// INSERT OR UPDATE ... FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body'
    /// [, options])`: sets fp = simhash(body [, options]), NULL for NULL.
    pg_finfo_simhash_update_trigger_v1, simhash_update_trigger_v1 => update_trigger, Definition::V1
}
with_definition! {
    /// `simhash_update_trigger()` of 0.2.0 to 0.3.0, `simhash_update_trigger_v0()` since
    /// 1.0.0: definition 0 by default.
    pg_finfo_simhash_update_trigger, simhash_update_trigger => update_trigger, Definition::V0
}

/// The body of the `simhash_dedup_trigger` symbols and of `simhash_dedup_fp_trigger`
/// (`fp_only`: the row brings its fingerprint, and no text the decision could read).
/// `default` is the definition when the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
unsafe fn dedup_body(
    fcinfo: pg_sys::FunctionCallInfo,
    default: Definition,
    fp_only: bool,
    decision: Decision,
) -> pg_sys::Datum {
    let func = if fp_only { "simhash_dedup_fp_trigger" } else { "simhash_dedup_trigger" };
    // SAFETY: called by the fmgr with a valid fcinfo (caller); `firing` checks it is a
    // BEFORE ROW INSERT/UPDATE trigger, whose TriggerData, relation and tuples are valid
    // for the call.
    unsafe {
        let kind = if fp_only { Kind::FpOnly } else { Kind::Text };
        let Firing { td, is_update, desc, tuple, config, plans } =
            firing(fcinfo, func, default, kind, decision, |rel, args, schema| {
                config::config(rel, args, schema, default, func, fp_only, decision)
            });
        let fp = match &config.text {
            Some(text) => fingerprint_of(tuple, desc, text, &config.options),
            None => value_of(tuple, desc, &config.fp).map(|datum| datum.value() as i64),
        };
        let Some(fp) = fp else {
            // NULL text or fingerprint, or a text too short for one: never anyone's
            // near-duplicate; no lock, no check.
            return unchecked(tuple, desc, &config, &[(config.fp.attnum, None)]);
        };
        let fp_datum = Some(pg_sys::Datum::from(fp));
        let exclude = if is_update {
            // An UPDATE that keeps the fingerprint was checked when the row got it.
            if value_of((*td).tg_trigtuple, desc, &config.fp).is_some_and(|old| old.value() as i64 == fp) {
                return pg_sys::Datum::from(replace(tuple, desc, &[(config.fp.attnum, fp_datum)]));
            }
            Some((*(*td).tg_trigtuple).t_self)
        } else {
            None
        };
        // The decision reads the new text (the fingerprint came from it, so it is not NULL).
        let doc = config.text.as_ref().and_then(|t| value_of(tuple, desc, t)).map(|d| text_datum_to_utf8(d));
        let found = check(td, &config, plans, fp, exclude, doc.as_deref());
        let what = |m: &Match<i32>| format!("is at Hamming distance {} (max_distance {})", m.measure, config.k);
        act(td, &config, func, found, tuple, &[(config.fp.attnum, fp_datum)], what)
    }
}

/// `simhash_dedup_trigger`'s body.
///
/// # Safety
/// As [`dedup_body`].
unsafe fn dedup_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { dedup_body(fcinfo, default, false, Decision::Measure) }
}

/// `simhash_dedup_fp_trigger`'s body; the definition is unused (nothing is fingerprinted).
///
/// # Safety
/// As [`dedup_body`].
unsafe fn dedup_fp_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { dedup_body(fcinfo, default, true, Decision::Measure) }
}

function_info_v1!(pg_finfo_simhash_dedup_trigger_d2);
/// `simhash_dedup_trigger()` since 6.0.0 (definition 3 by default): the candidates within
/// `max_distance` bits, nearest first, and the first the dedup decision calls the same
/// passage as the new text (docs/decision.md). 5.x's is `simhash_dedup_trigger_d1()`, on the
/// symbol `simhash_dedup_trigger_v3`.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_dedup_trigger_d2(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: the fmgr calls it with a valid fcinfo, as the trigger function that
    // sql/trigger/trigger.sql declares.
    unsafe { dedup_body(fcinfo, Definition::V3, false, Decision::Passage) }
}

with_definition! {
    /// `simhash_dedup_fp_trigger()` since 1.1.0, used as `BEFORE INSERT ... FOR EACH ROW
    /// EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'reject')`: the dedup trigger
    /// for rows that bring their fingerprint, such as the key rows of a sharded table
    /// (docs/scaling-out.md).
    pg_finfo_simhash_dedup_fp_trigger, simhash_dedup_fp_trigger => dedup_fp_trigger, Definition::V1
}
with_definition! {
    /// `simhash_dedup_trigger()` since 3.0.0 (definition 3 by default).
    pg_finfo_simhash_dedup_trigger_v3, simhash_dedup_trigger_v3 => dedup_trigger, Definition::V3
}
with_definition! {
    /// `simhash_dedup_trigger()` of 2.x, `simhash_dedup_trigger_v2()` since 3.0.0
    /// (definition 2 by default).
    pg_finfo_simhash_dedup_trigger_v2, simhash_dedup_trigger_v2 => dedup_trigger, Definition::V2
}
with_definition! {
    /// `simhash_dedup_trigger()` of 1.x, `simhash_dedup_trigger_v1()` since 2.0.0
    /// (definition 1 by default), used as `BEFORE
    /// INSERT OR UPDATE OF body ... FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp',
    /// 'body', '3', 'reject' [, options])`.
    pg_finfo_simhash_dedup_trigger_v1, simhash_dedup_trigger_v1 => dedup_trigger, Definition::V1
}
with_definition! {
    /// `simhash_dedup_trigger()` of 0.2.0 to 0.3.0, `simhash_dedup_trigger_v0()` since
    /// 1.0.0: definition 0 by default.
    pg_finfo_simhash_dedup_trigger, simhash_dedup_trigger => dedup_trigger, Definition::V0
}

/// Rows this session's dedup triggers skipped (action `skip`) since it started, including
/// rows of statements or transactions that were later rolled back.
#[pg_extern(volatile, parallel_restricted)]
fn simhash_dedup_skipped() -> i64 {
    act::skipped()
}

/// The check query of `simhash_dedup_trigger` deciding by `decision`, for `func`.
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
unsafe fn fp_dedup_query(fcinfo: pg_sys::FunctionCallInfo, decision: Decision, func: &str) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe {
        dedup_query(fcinfo, |rel, args, ext_schema| {
            let config = config::config(rel, args, ext_schema, Definition::V3, func, false, decision);
            (config.query_insert, config.precheck.as_ref().map(|p| p.describe()))
        })
    }
}

function_info_v1!(pg_finfo_simhash_dedup_query);
/// `simhash_dedup_query_d1(tbl regclass, VARIADIC trigger_args text[]) → text` (5.x's
/// `simhash_dedup_query`): the check query `simhash_dedup_trigger_d1(trigger_args...)` runs
/// on `tbl` for an INSERT (`$1` is the new fingerprint), after the same validation, e.g. to
/// EXPLAIN it. Options in the arguments are validated as the current trigger does
/// (definition 3 unless they name one; definitions 1 to 3 take the same options); the query
/// does not depend on them.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_dedup_query(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: called by the fmgr as the STRICT (regclass, text[]) function of sql/trigger/trigger.sql.
    unsafe { fp_dedup_query(fcinfo, Decision::Measure, "simhash_dedup_query_d1") }
}

function_info_v1!(pg_finfo_simhash_dedup_query_d2);
/// `simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) → text` since 6.0.0: the
/// check query of `simhash_dedup_trigger(trigger_args...)`, which returns every candidate and
/// its text for the dedup decision.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_dedup_query_d2(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: called by the fmgr as the STRICT (regclass, text[]) function of sql/trigger/trigger.sql.
    unsafe { fp_dedup_query(fcinfo, Decision::Passage, "simhash_dedup_query") }
}

/// The body of `simhash_dedup_query`, `simhash_segments_dedup_query` and
/// `simhash_similarity_dedup_query`: `build(relation,
/// trigger_args, extension schema)` checks the arguments against the table and returns its
/// insert check query and a description of its pre-check, if any, which goes in a trailing
/// comment (the text stays a query that PREPARE accepts).
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
unsafe fn dedup_query(
    fcinfo: pg_sys::FunctionCallInfo,
    build: impl FnOnce(pg_sys::Relation, &[String], pg_sys::Oid) -> (String, Option<String>),
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
        let (query, precheck) = build(rel, &args, ext_schema);
        pg_sys::relation_close(rel, pg_sys::AccessShareLock as i32);
        let precheck = precheck.unwrap_or_else(|| "no index pre-check".to_owned());
        format!("{query} /* {precheck} */").into_datum().expect("text datum")
    }
}

pgrx::extension_sql_file!(
    "../../sql/trigger/trigger.sql",
    name = "trigger",
    requires = [simhash_dedup_skipped, "search"]
);
