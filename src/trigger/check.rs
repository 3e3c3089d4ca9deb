//! The dedup trigger's check: after the locks and the index pre-check, one SPI query for
//! the nearest existing row within the bound, prepared once per backend and trigger, and
//! under REPEATABLE READ and SERIALIZABLE repeated with the latest snapshot. The query
//! runs with the table owner's rights, as PostgreSQL's foreign-key checks do, so that a
//! role with only INSERT can load a table with the trigger ([`AsOwner`]).

use std::ffi::CStr;

use pgrx::pg_sys;
use pgrx::prelude::*;

use super::cache::keep_plan;
use super::column::cstring;
use super::config::Config;
use super::Decision;
use crate::error::raise;
use crate::similarity::frame_keys::{learned, Learner};
use simhash_core::decision::{decide, Frame, Prepared, Rule, Version};

/// The existing row the check query found: the nearest within the measure's bound, with the
/// measure's figure for it (`T`: the query's third column, e.g. a distance or a share).
pub(crate) struct Match<T> {
    pub key: String,
    /// The key as a datum (link only), copied out of SPI's memory.
    pub link_value: Option<pg_sys::Datum>,
    /// The query's third column.
    pub measure: T,
}

/// What the check found.
pub(crate) enum Found<T> {
    None,
    Visible(Match<T>),
    /// Visible only to the latest snapshot (REPEATABLE READ / SERIALIZABLE).
    Concurrent(Match<T>),
}

/// The table owner's user id, in force from [`AsOwner::switch`] until the value is dropped.
///
/// The check must see every row whatever the inserter may SELECT, as a unique index does:
/// a role with only INSERT must get 23505 for a near-duplicate, not "permission denied"
/// (which would also tell it that a near-duplicate exists). PostgreSQL's foreign-key checks
/// solve the same problem: ri_triggers.c (ri_PlanCheck and ri_PerformCheck) saves the user
/// id and security context with GetUserIdAndSecContext, calls SetUserIdAndSecContext(
/// RelationGetForm(rel)->relowner, save_sec_context | SECURITY_LOCAL_USERID_CHANGE |
/// SECURITY_NOFORCE_RLS) around SPI_prepare and SPI_execute_snapshot, and restores the
/// saved pair afterwards. We do the same, adding SECURITY_RESTRICTED_OPERATION (as
/// PostgreSQL does when it runs index expressions or REFRESH MATERIALIZED VIEW as the
/// owner) so that nothing run as the owner can change session state the inserter keeps
/// (SET ROLE, temporary objects, ...). SECURITY_NOFORCE_RLS: like a unique index, the
/// check sees rows that row-level security hides, even under FORCE ROW LEVEL SECURITY;
/// what DETAIL then says about them is decided for the inserting user (mod.rs).
///
/// On the normal path, `drop` restores the saved user id and context. On ERROR, pgrx turns
/// the longjmp into a Rust unwind through this frame, which drops the guard and restores
/// them too; independently, PostgreSQL's (sub)transaction abort restores the user id and
/// context saved at the (sub)transaction's start (xact.c, AbortTransaction /
/// AbortSubTransaction), which is what ri_triggers.c relies on.
///
/// The query cannot be redirected by the inserter's `search_path`, which stays in force
/// while it runs as the owner: every name in it is schema-qualified
/// (each measure's check query, written through `simhash_core::trigger::QueryTarget`).
struct AsOwner {
    user: pg_sys::Oid,
    sec_context: i32,
}

impl AsOwner {
    /// Switches to `owner`'s user id, with a security-restricted operation.
    fn switch(owner: pg_sys::Oid) -> AsOwner {
        let (mut user, mut sec_context) = (pg_sys::InvalidOid, 0);
        // SAFETY: both functions only read or write the backend's CurrentUserId and
        // SecurityRestrictionContext; `owner` is the pg_class.relowner of the open trigger
        // relation, an existing role (a role owning objects cannot be dropped).
        unsafe {
            pg_sys::GetUserIdAndSecContext(&mut user, &mut sec_context);
            pg_sys::SetUserIdAndSecContext(
                owner,
                sec_context
                    | (pg_sys::SECURITY_LOCAL_USERID_CHANGE
                        | pg_sys::SECURITY_RESTRICTED_OPERATION
                        | pg_sys::SECURITY_NOFORCE_RLS) as i32,
            );
        }
        AsOwner { user, sec_context }
    }
}

impl Drop for AsOwner {
    fn drop(&mut self) {
        // SAFETY: restores the pair GetUserIdAndSecContext returned in `switch`; the call
        // only assigns two globals and cannot raise an ERROR, so it is safe during unwinding.
        unsafe { pg_sys::SetUserIdAndSecContext(self.user, self.sec_context) }
    }
}

/// Sequential scans off and bitmap scans on, from [`IndexPlan::force`] until the value is
/// dropped: the planner settings under which a check query that must read an index is
/// prepared and run (Config's `plan_on_index`), so that its plan, and any re-plan of it
/// inside SPI's plan cache, reads its index, even for a table that its
/// statistics call empty (a VACUUMed empty table got a sequential scan). Set as a function's
/// `SET` clause sets them (fmgr_security_definer): a new GUC nest level whose values are
/// undone on drop, or, on ERROR, by the (sub)transaction abort (AtEOXact_GUC), which pops
/// every level at or above it.
struct IndexPlan {
    level: i32,
}

impl IndexPlan {
    fn force() -> IndexPlan {
        // SAFETY: GUC calls inside a transaction, with NUL-terminated names and values of
        // two boolean planner settings that any user may set; GUC_ACTION_SAVE keeps the
        // previous values on the new nest level.
        unsafe {
            let level = pg_sys::NewGUCNestLevel();
            for (name, value) in [(c"enable_seqscan", c"off"), (c"enable_bitmapscan", c"on")] {
                pg_sys::set_config_option(
                    name.as_ptr(),
                    value.as_ptr(),
                    pg_sys::GucContext::PGC_USERSET,
                    pg_sys::GucSource::PGC_S_SESSION,
                    pg_sys::GucAction::GUC_ACTION_SAVE,
                    true,
                    0,
                    false,
                );
            }
            IndexPlan { level }
        }
    }
}

impl Drop for IndexPlan {
    fn drop(&mut self) {
        // On an ERROR the transaction abort restores the settings (IndexPlan's docs); here,
        // the nest level is ours and the last one opened, and restoring two booleans raises
        // nothing.
        if !std::thread::panicking() {
            // SAFETY: pops the nest level `force` opened.
            unsafe { pg_sys::AtEOXact_GUC(true, self.level) }
        }
    }
}

/// Candidates read at a time when the decision reads the check query's rows (a cursor):
/// bounds the tuples, and texts, held at once; the first batch is also the frame-mates the
/// new text's frame is read from.
const DECIDE_BATCH: i64 = simhash_core::decision::frame::MATES as i64;

/// Runs the check query (under SPI, already connected) and copies out its row: its only one,
/// or, with `doc` (the new row's text, under [`Decision::Passage`]), the first whose text
/// (its fourth column) the dedup decision calls the same passage as `doc`.
///
/// # Safety
/// `td` must be the TriggerData of the firing trigger; SPI must be connected; `plan` must be
/// a valid plan of this trigger's check query and `values`/`nulls` match its parameters.
unsafe fn run_check<T: FromDatum>(
    td: *mut pg_sys::TriggerData,
    config: &Config,
    plan: pg_sys::SPIPlanPtr,
    values: &mut [pg_sys::Datum],
    nulls: &CStr,
    snapshot: Option<pg_sys::Snapshot>,
    doc: Option<(&str, Rule, Option<Frames>)>,
) -> Option<Match<T>> {
    if let Some(doc) = doc {
        // SAFETY: forwarded from the caller.
        return unsafe { first_same_passage(td, config, plan, values, nulls, snapshot, doc) };
    }
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
                format!("{}: the check query failed (SPI code {rc})", function_name(td)),
                None,
                None,
            );
        }
        if pg_sys::SPI_processed == 0 {
            return None;
        }
        let table = pg_sys::SPI_tuptable;
        Some(match_of(config, *(*table).vals, (*table).tupdesc))
    }
}

/// The trigger whose frame keys a check learns (`crate::similarity::frame_keys`), and the
/// version of the measure whose keys they are.
pub(crate) type Frames = (pg_sys::Oid, simhash_core::similarity::Version);

/// The check query's rows through a cursor, best first, until the dedup decision calls one
/// the same passage as `doc` by its rule: that row. A candidate the decision keeps apart is
/// passed over, and so is one with a NULL text (it cannot be the same passage). Decision 3
/// reads the new text's frame (`simhash_core::decision::frame`) in the first batch of
/// candidates, its frame-mates when the table holds a template, before it decides any; with
/// `frames`, for a row of a template the trigger learned, after the frame-mates it kept, which
/// its framed check no longer returns. With `frames`, a check that reads many candidates and
/// keeps none learns their frame.
///
/// # Safety
/// As [`run_check`].
unsafe fn first_same_passage<T: FromDatum>(
    td: *mut pg_sys::TriggerData,
    config: &Config,
    plan: pg_sys::SPIPlanPtr,
    values: &mut [pg_sys::Datum],
    nulls: &CStr,
    snapshot: Option<pg_sys::Snapshot>,
    (doc, rule, frames): (&str, Rule, Option<Frames>),
) -> Option<Match<T>> {
    let tick = &mut crate::error::tick;
    // The new text made ready for the decision at the first candidate (most inserts have none).
    let mut new: Option<Prepared> = None;
    let mut frame: Option<Frame> = None;
    let learned = frames.and_then(|(tgoid, _)| learned(tgoid));
    let mut learner = frames.map(|(tgoid, v)| Learner::new(tgoid, v));
    // The first batch, made ready: the frame-mates a learned frame keeps.
    let mut first: Option<Vec<Prepared>> = None;
    // SAFETY: forwarded from the caller. Without a snapshot, read_only = false: SPI takes a
    // fresh one (READ COMMITTED), as SPI_execute_plan does above. With one, it is made the
    // active snapshot while the portal starts (read_only = true uses the active one, and
    // PortalStart registers its own reference), then popped.
    unsafe {
        if let Some(s) = snapshot {
            pg_sys::PushActiveSnapshot(s);
        }
        let portal =
            pg_sys::SPI_cursor_open(std::ptr::null(), plan, values.as_mut_ptr(), nulls.as_ptr(), snapshot.is_some());
        if snapshot.is_some() {
            pg_sys::PopActiveSnapshot();
        }
        if portal.is_null() {
            let code = pg_sys::SPI_result;
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("{}: could not open the check query (SPI code {code})", function_name(td)),
                None,
                None,
            );
        }
        let mut found = None;
        'fetch: loop {
            pg_sys::SPI_cursor_fetch(portal, true, DECIDE_BATCH);
            let (table, n) = (pg_sys::SPI_tuptable, pg_sys::SPI_processed as usize);
            if n == 0 {
                break;
            }
            let desc = (*table).tupdesc;
            // This batch's candidates, made ready: (row, its text).
            let mut batch = Vec::with_capacity(n);
            for i in 0..n {
                let tuple = *(*table).vals.add(i);
                let mut null = false;
                let datum = pg_sys::SPI_getbinval(tuple, desc, 4, &mut null);
                if !null {
                    let text = crate::text::text_datum_to_utf8(datum);
                    if let Some(l) = learner.as_mut() {
                        l.read(&text);
                    }
                    batch.push((tuple, Prepared::of(rule.version, &text, tick)));
                }
            }
            let new = new.get_or_insert_with(|| Prepared::of(rule.version, doc, tick));
            if frame.is_none() && rule.version != Version::D2 {
                // The frame-mates of the learned template the new text is a row of, if any.
                let known = learned.iter().zip(frames).flat_map(|(l, (_, v))| l.mates(doc, v));
                let mates: Vec<&Prepared> = known.chain(batch.iter().map(|(_, p)| p)).collect();
                frame = Some(new.frame(&mates, tick));
            }
            for (tuple, old) in &batch {
                if decide(rule, &*new, old, frame.as_ref(), tick).duplicate {
                    found = Some(match_of(config, *tuple, desc));
                    break 'fetch;
                }
            }
            if first.is_none() && learner.is_some() {
                first = Some(batch.into_iter().map(|(_, p)| p).collect());
            }
            pg_sys::SPI_freetuptable(table);
        }
        pg_sys::SPI_cursor_close(portal);
        if let (None, Some(l)) = (&found, learner) {
            l.learn(first.unwrap_or_default());
        }
        found
    }
}

/// The match in a check query's row `tuple` of `desc`: key, link value, measure.
///
/// # Safety
/// `tuple` must be a row of the check query, of `desc`, under a connected SPI.
unsafe fn match_of<T: FromDatum>(config: &Config, tuple: pg_sys::HeapTuple, desc: pg_sys::TupleDesc) -> Match<T> {
    // SAFETY: forwarded from the caller; columns 1 to 3 are the key text, the link value
    // and the measure, none of them NULL but the link value without link.
    unsafe {
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
        let measure = T::from_datum(pg_sys::SPI_getbinval(tuple, desc, 3, &mut null), null)
            .expect("the check query's measure is never NULL");
        Match { key, link_value, measure }
    }
}

/// The name of the firing trigger's function, for the messages of failures that should
/// not happen.
///
/// # Safety
/// `td` must be the TriggerData of a firing trigger.
unsafe fn function_name(td: *mut pg_sys::TriggerData) -> String {
    // SAFETY: the firing trigger's function exists; get_func_name returns a palloc'd copy.
    unsafe { CStr::from_ptr(pg_sys::get_func_name((*(*td).tg_trigger).tgfoid)) }.to_string_lossy().into_owned()
}

/// The table owner's rights and the check's planner settings, from [`connect_as_owner`] until
/// dropped (after `SPI_finish`).
struct AsOwnerOnIndex {
    _owner: AsOwner,
    _plan: Option<IndexPlan>,
}

/// Switches to the trigger's table owner (AsOwner), forces the index plan when the check reads
/// one (`plan_on_index`), and connects SPI (which the caller finishes).
///
/// # Safety
/// `td` must be the TriggerData of a firing dedup trigger whose Config is `config`.
unsafe fn connect_as_owner(td: *mut pg_sys::TriggerData, config: &Config) -> AsOwnerOnIndex {
    // SAFETY: the trigger's relation is open for the call, so its pg_class form is valid.
    let owner = unsafe { (*(*(*td).tg_relation).rd_rel).relowner };
    // Prepared and run with the owner's rights (see AsOwner); restored when the value drops,
    // before the caller decides, as the inserting user, what DETAIL may say.
    let guards = AsOwnerOnIndex { _owner: AsOwner::switch(owner), _plan: config.plan_on_index.then(IndexPlan::force) };
    // SAFETY: SPI_connect/SPI_finish bracket every SPI call; on ERROR the transaction abort
    // releases the SPI stack.
    unsafe {
        if pg_sys::SPI_connect() != pg_sys::SPI_OK_CONNECT as i32 {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("{}: SPI_connect failed", function_name(td)),
                None,
                None,
            );
        }
    }
    guards
}

/// The first column, as text, of the rows `query` returns, run once (prepared, not kept) as the
/// table owner and on the index as the check is (`plan_on_index`); NULLs left out. For a
/// trigger's one-off reads beside its check (the similarity trigger's probe for a template).
///
/// # Safety
/// `td` must be the TriggerData of a firing dedup trigger whose Config is `config`; `values`
/// must be datums of `types`, valid until the call returns; `query` reads only what the check may.
pub(crate) unsafe fn texts_as_owner(
    td: *mut pg_sys::TriggerData,
    config: &Config,
    query: &str,
    types: &[pg_sys::Oid],
    values: &[pg_sys::Datum],
) -> Vec<String> {
    // SAFETY: forwarded from the caller.
    let _guards = unsafe { connect_as_owner(td, config) };
    // SAFETY: SPI is connected until SPI_finish; `values` match `types` (caller); the rows'
    // first column is read while SPI's tuple table is alive and copied out.
    unsafe {
        let mut types = types.to_vec();
        let mut values = values.to_vec();
        let nulls = cstring(&" ".repeat(values.len()));
        let rc = pg_sys::SPI_execute_with_args(
            cstring(query).as_ptr(),
            types.len() as i32,
            types.as_mut_ptr(),
            values.as_mut_ptr(),
            nulls.as_ptr(),
            false,
            0,
        );
        if rc != pg_sys::SPI_OK_SELECT as i32 {
            raise(
                PgSqlErrorCode::ERRCODE_INTERNAL_ERROR,
                format!("{}: a read beside the check failed (SPI code {rc})", function_name(td)),
                Some(query.to_owned()),
                None,
            );
        }
        let table = pg_sys::SPI_tuptable;
        let mut texts = Vec::with_capacity(pg_sys::SPI_processed as usize);
        for i in 0..pg_sys::SPI_processed as usize {
            let mut null = false;
            let datum = pg_sys::SPI_getbinval(*(*table).vals.add(i), (*table).tupdesc, 1, &mut null);
            if !null {
                texts.push(crate::text::text_datum_to_utf8(datum).into_owned());
            }
        }
        pg_sys::SPI_finish();
        texts
    }
}

/// Runs the trigger's check query (insert or update, by `exclude`) as the table owner, then,
/// under REPEATABLE READ and SERIALIZABLE if it found nothing, again with the latest
/// snapshot. `types` and `values` are the query's parameters before the excluded row's
/// ctid, which comes last in the update query; `doc` is the new row's text, which the dedup
/// decision compares with each candidate's under [`Decision::Passage`]; `frames`, the trigger
/// whose frame keys the decision's reading learns (the similarity trigger's). The caller has
/// taken the locks.
///
/// # Safety
/// `td` must be the TriggerData of a firing dedup trigger whose Config is `config`; `values`
/// must be datums of `types`, valid until the call returns.
#[allow(clippy::too_many_arguments)]
pub(crate) unsafe fn query_as_owner<T: FromDatum>(
    td: *mut pg_sys::TriggerData,
    config: &Config,
    mut plans: [pg_sys::SPIPlanPtr; 2],
    types: &[pg_sys::Oid],
    mut values: Vec<pg_sys::Datum>,
    exclude: Option<pg_sys::ItemPointerData>,
    doc: Option<&str>,
    frames: Option<Frames>,
) -> Found<T> {
    let doc = match config.decision {
        Decision::Passage(rule) => doc.map(|d| (d, rule, frames)),
        Decision::Measure => None,
    };
    // SAFETY: forwarded from the caller.
    let _guards = unsafe { connect_as_owner(td, config) };
    // SAFETY: SPI is connected until SPI_finish. Plans are prepared in SPI's context and moved
    // to a long-lived one by SPI_keepplan before being cached.
    unsafe {
        let which = exclude.is_some() as usize;
        if plans[which].is_null() {
            let text = if exclude.is_some() { &config.query_update } else { &config.query_insert };
            let mut types = types.to_vec();
            types.push(pg_sys::TIDOID);
            let nargs = types.len() as i32 - 1 + which as i32;
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
                    format!("{}: could not prepare the check query (SPI code {code})", function_name(td)),
                    Some(text.clone()),
                    None,
                );
            }
            pg_sys::SPI_keepplan(plan);
            plans[which] = plan;
            keep_plan((*(*td).tg_trigger).tgoid, which, plan);
        }
        let plan = plans[which];
        let mut tid = exclude.unwrap_or_default();
        values.push(pg_sys::Datum::from(&mut tid as *mut pg_sys::ItemPointerData));
        let nulls = cstring(&" ".repeat(values.len()));
        let mut found = match run_check(td, config, plan, &mut values, &nulls, None, doc) {
            Some(m) => Found::Visible(m),
            None => Found::None,
        };
        // REPEATABLE READ and SERIALIZABLE: the transaction snapshot cannot see a row
        // committed since it was taken, e.g. by the transaction whose locks we waited for.
        if matches!(found, Found::None) && pg_sys::XactIsoLevel >= pg_sys::XACT_REPEATABLE_READ as i32 {
            if let Some(m) = run_check(td, config, plan, &mut values, &nulls, Some(pg_sys::GetLatestSnapshot()), doc) {
                found = Found::Concurrent(m);
            }
        }
        pg_sys::SPI_finish();
        found
    }
}
