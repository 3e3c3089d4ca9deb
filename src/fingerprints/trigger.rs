//! The fingerprint triggers: `simhash_update_trigger(fp_column, text_column [, options])`
//! keeps a fingerprint column current; `simhash_dedup_trigger(fp_column, text_column,
//! max_distance, action [, link_column] [, options])` and `simhash_dedup_fp_trigger` stop
//! near-duplicates at the door, on the shared machinery of `crate::trigger` (cache, config,
//! key, locks, check, actions; its module doc has the design); `simhash_dedup_query` shows the
//! check query. The block-index pre-check is precheck.rs.

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::fingerprints::trigger::{self as fp_trigger, CheckQuery};
use simhash_core::trigger::{self as dedup, QueryTarget};
use simhash_core::{Definition, Options};

use super::options::trigger_options as options;
use super::precheck::BlockPreCheck;
use super::search::{block_sets, covering, Funcs};
use crate::text::text_datum_to_utf8;
use crate::trigger::act::{act, unchecked};
use crate::trigger::check::{query_as_owner, Found, Match};
use crate::trigger::column::Column;
use crate::trigger::config::{
    bad_args, computed_column, split_decision, target, text_column, trigger_args, Config, Configured, Measure, PreCheck,
};
use crate::trigger::lock::lock_keys;
use crate::trigger::{dedup_query, fired, firing, replace, value_of, Decision, Firing};

/// The fingerprint column, checked: ERROR 42804 unless bigint, 428C9 when it is generated
/// (a BEFORE trigger can neither read nor set it). `from_text`: whether the trigger computes
/// it from a text column (else the row brings it), for the HINT.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn fp_column(rel: pg_sys::Relation, fp_name: &str, func: &str, from_text: bool) -> Column {
    let hint = if from_text {
        "Make it a plain bigint column: the trigger computes the fingerprint from the text and stores it there."
    } else {
        "Make it a plain bigint column and insert the fingerprint into it."
    };
    // SAFETY: forwarded from the caller.
    unsafe { computed_column(rel, fp_name, func, "fingerprint", pg_sys::INT8OID, hint) }
}

/// The fingerprint and text columns, checked: as [`fp_column`], and as `text_column`.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn fp_and_text(
    rel: pg_sys::Relation,
    fp_name: &str,
    text_name: &str,
    func: &str,
) -> (Column, Column) {
    // SAFETY: forwarded from the caller.
    unsafe { (fp_column(rel, fp_name, func, true), text_column(rel, text_name, func)) }
}

/// What a fingerprint dedup trigger adds to its config.
pub(crate) struct Fingerprints {
    /// The Hamming bound.
    pub k: u32,
    /// What the trigger fingerprints the text with: its options argument, or the defaults of
    /// the definition its C symbol defaults to.
    pub options: Options,
    /// The block indexes' pre-check, when a set is cheaper to scan than the query is to run.
    pub precheck: Option<BlockPreCheck>,
}

/// Which entry point fired: the definition when the options name none, whether the row
/// brings its fingerprint (`simhash_dedup_fp_trigger`), and what decides.
#[derive(Clone, Copy, PartialEq, Debug)]
pub(crate) struct Entry {
    pub default: Definition,
    pub fp_only: bool,
    pub decision: Decision,
}

impl Measure for Fingerprints {
    type Variant = Entry;

    unsafe fn build(
        rel: pg_sys::Relation,
        args: &[String],
        ext_schema: pg_sys::Oid,
        e: Entry,
        func: &str,
    ) -> Configured<Self> {
        // SAFETY: forwarded from the caller.
        unsafe { config(rel, args, ext_schema, e.default, func, e.fp_only, e.decision) }
    }

    unsafe fn describe(config: &Configured<Self>, _: pg_sys::Oid, _: Entry) -> Option<String> {
        config.measure.precheck.as_ref().map(|p| p.describe())
    }
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
        value_of(tuple, desc, text_col).and_then(|datum| crate::fingerprints::simhash_of_text_datum(datum, options))
    }
}

/// Checks the arguments of a dedup trigger against its table and builds the check queries.
/// `default` is the definition when the options name none; `fp_only` for
/// `simhash_dedup_fp_trigger`'s arguments (no text column, no options).
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
pub(crate) unsafe fn config(
    rel: pg_sys::Relation,
    args: &[String],
    ext_schema: pg_sys::Oid,
    default: Definition,
    func: &str,
    fp_only: bool,
    decision: Decision,
) -> Configured<Fingerprints> {
    let parse = if fp_only { fp_trigger::parse_fp_args } else { fp_trigger::parse_args };
    let (args, decision) = split_decision(args, decision, func);
    let parsed = parse(&args).unwrap_or_else(|e| bad_args(e, func));
    let options = options(parsed.options.as_deref(), default, func);
    // SAFETY: `rel` is open (caller); catalog lookups run inside a transaction. The primary
    // key index is opened and closed with AccessShareLock, as the planner does.
    unsafe {
        let (fp, text) = match &parsed.text_column {
            Some(text) => {
                let (fp, text) = fp_and_text(rel, &parsed.fp_column, text, func);
                (fp, Some(text))
            }
            None => (fp_column(rel, &parsed.fp_column, func, false), None),
        };
        let mut read = vec![("fingerprint", &fp)];
        read.extend(text.as_ref().map(|t| ("text", t)));
        let target = target(rel, parsed.link_column.as_deref(), &read, ext_schema, func);
        let query = |target: QueryTarget<'_>| {
            simhash_core::fingerprints::trigger::check_query(&CheckQuery {
                target,
                fp: &fp.sql,
                max_distance: parsed.max_distance,
            })
        };
        // The table's row count as of its last VACUUM or ANALYZE, which also invalidate this
        // config (relcache), so the choice follows the table's growth.
        let rows = (*(*rel).rd_rel).reltuples as f64;
        let precheck = Funcs::lookup(ext_schema).and_then(|funcs| {
            let var = pg_sys::makeVar(1, fp.attnum, pg_sys::INT8OID, -1, pg_sys::InvalidOid, 0);
            let sets = block_sets(rel, var, &funcs);
            let shapes: Vec<(u32, bool)> = sets.iter().map(|s| (s.n as u32, covering(&s.indexes))).collect();
            let chosen = simhash_core::fingerprints::trigger::choose_precheck(&shapes, parsed.max_distance, rows)?;
            Some(BlockPreCheck {
                nblocks: sets[chosen].n,
                indexes: sets[chosen].indexes.clone(),
                k: parsed.max_distance,
            })
        });
        Configured {
            common: Config::new(rel, target, (fp.clone(), text), parsed.action, decision, query),
            measure: Fingerprints { k: parsed.max_distance, options, precheck },
        }
    }
}

/// The body of both `simhash_update_trigger` symbols: sets fp = simhash(text, options),
/// NULL for a NULL text or one without a fingerprint. `default` is the definition when
/// the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn update_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
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

v1_function!(
    /// `simhash_update_trigger()` since 3.0.0 (definition 3 by default), used as `BEFORE
    /// INSERT OR UPDATE ... FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body'
    /// [, options])`: sets fp = simhash(body [, options]), NULL for NULL.
    pg_finfo_simhash_update_trigger_v3, simhash_update_trigger_v3 => update_trigger, Definition::V3
);

/// The body of the `simhash_dedup_trigger` symbols and of `simhash_dedup_fp_trigger`
/// (`fp_only`: the row brings its fingerprint, and no text the decision could read).
/// `default` is the definition when the options name none.
///
/// # Safety
/// `fcinfo` must be the call info PostgreSQL passed to a V1 function.
pub(crate) unsafe fn dedup_body(
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
        let Firing { td, is_update, desc, tuple, config, plans } =
            firing::<Fingerprints>(fcinfo, func, Entry { default, fp_only, decision });
        let fp = match &config.text {
            Some(text) => fingerprint_of(tuple, desc, text, &config.measure.options),
            None => value_of(tuple, desc, &config.checked).map(|datum| datum.value() as i64),
        };
        let Some(fp) = fp else {
            // NULL text or fingerprint, or a text too short for one: never anyone's
            // near-duplicate; no lock, no check.
            return unchecked(tuple, desc, &config, &[(config.checked.attnum, None)]);
        };
        let fp_datum = Some(pg_sys::Datum::from(fp));
        let exclude = if is_update {
            // An UPDATE that keeps the fingerprint was checked when the row got it.
            if value_of((*td).tg_trigtuple, desc, &config.checked).is_some_and(|old| old.value() as i64 == fp) {
                return pg_sys::Datum::from(replace(tuple, desc, &[(config.checked.attnum, fp_datum)]));
            }
            Some((*(*td).tg_trigtuple).t_self)
        } else {
            None
        };
        // The decision reads the new text (the fingerprint came from it, so it is not NULL).
        let doc = config.text.as_ref().and_then(|t| value_of(tuple, desc, t)).map(|d| text_datum_to_utf8(d));
        let found = check(td, &config, plans, fp, exclude, doc.as_deref());
        let what = |m: &Match<i32>| format!("is at Hamming distance {} (max_distance {})", m.measure, config.measure.k);
        act(td, &config, func, found, tuple, &[(config.checked.attnum, fp_datum)], what)
    }
}

/// `simhash_dedup_trigger`'s body.
///
/// # Safety
/// As [`dedup_body`].
pub(crate) unsafe fn dedup_trigger(fcinfo: pg_sys::FunctionCallInfo, default: Definition) -> pg_sys::Datum {
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

v1_function!(
    /// `simhash_dedup_trigger()` since 7.0.0 (definition 3 by default): the candidates within
    /// `max_distance` bits, nearest first, and the first the dedup decision calls the same
    /// passage as the new text (docs/decision.md), by decision 3 at the strictness its option
    /// `"decision"` names (balanced by default). 6.0's is `simhash_dedup_trigger_d2()`.
    pg_finfo_simhash_dedup_trigger_d3, simhash_dedup_trigger_d3 => dedup_body, Definition::V3, false, Decision::LATEST
);

v1_function!(
    /// `simhash_dedup_fp_trigger()` since 1.1.0, used as `BEFORE INSERT ... FOR EACH ROW
    /// EXECUTE FUNCTION simhash_dedup_fp_trigger('fp', '3', 'reject')`: the dedup trigger
    /// for rows that bring their fingerprint, such as the key rows of a sharded table
    /// (docs/scaling-out.md).
    pg_finfo_simhash_dedup_fp_trigger, simhash_dedup_fp_trigger => dedup_fp_trigger, Definition::V1
);
/// The check query of `simhash_dedup_trigger` deciding by `decision`, for `func`.
///
/// # Safety
/// `fcinfo` must be that of a STRICT (regclass, text[]) function.
pub(crate) unsafe fn fp_dedup_query(fcinfo: pg_sys::FunctionCallInfo, decision: Decision, func: &str) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { dedup_query::<Fingerprints>(fcinfo, Entry { default: Definition::V3, fp_only: false, decision }, func) }
}

v1_function!(
    /// `simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) → text` since 7.0.0: the
    /// check query of `simhash_dedup_trigger(trigger_args...)`, which returns every candidate and
    /// its text for the dedup decision.
    pg_finfo_simhash_dedup_query_d3, simhash_dedup_query_d3 => fp_dedup_query, Decision::LATEST, "simhash_dedup_query"
);

/// Locks, then looks for the nearest existing row within the bound.
///
/// # Safety
/// `td` must be the TriggerData of a firing dedup trigger whose Config is `config`.
pub(crate) unsafe fn check(
    td: *mut pg_sys::TriggerData,
    config: &Configured<Fingerprints>,
    plans: [pg_sys::SPIPlanPtr; 2],
    fp: i64,
    exclude: Option<pg_sys::ItemPointerData>,
    doc: Option<&str>,
) -> Found<i32> {
    lock(config, fp);
    if let Some(precheck) = &config.measure.precheck {
        // SAFETY: the trigger's relation, open for the call; the block set was found on it
        // when the config was built, and any change to its indexes invalidated the config.
        if !unsafe { precheck.may_match((*td).tg_relation, pg_sys::Datum::from(fp)) } {
            return Found::None;
        }
    }
    // SAFETY: forwarded from the caller; the query's parameters are (bigint [, tid]).
    unsafe { query_as_owner(td, config, plans, &[pg_sys::INT8OID], vec![pg_sys::Datum::from(fp)], exclude, doc, None) }
}

/// Takes, until the end of the transaction, the locks that make two inserters of
/// near-duplicates contend: the table key in Share mode, then the block keys of `fp`
/// (`simhash_core::fingerprints::trigger::lock_keys`) in Exclusive mode, ascending.
fn lock(config: &Configured<Fingerprints>, fp: i64) {
    let (relid, attnum, k) = (config.relid.to_u32(), config.checked.attnum, config.measure.k);
    let table = simhash_core::trigger::table_lock_key(relid, attnum, k);
    lock_keys(table, || simhash_core::fingerprints::trigger::lock_keys(relid, attnum, k, fp as u64));
}

pgrx::extension_sql_file!("../../sql/fingerprints/trigger.sql", name = "trigger", requires = ["search"]);
