//! The dedup trigger's per-backend cache: the `Config` built from a trigger's arguments and
//! its prepared check plans, by trigger OID, until the table's relcache entry is invalidated.

use std::cell::RefCell;
use std::collections::HashMap;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::Definition;

use super::config::Config;
use super::Decision;

/// The dedup trigger a Config is for.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum Kind {
    /// `simhash_dedup_trigger`: fingerprints a text column.
    Text,
    /// `simhash_dedup_fp_trigger`: the row brings its fingerprint.
    FpOnly,
    /// `simhash_segments_dedup_trigger`: segments, by resemblance.
    Segments,
    /// `simhash_similarity_dedup_trigger` (`_m1`): texts, by similarity or containment under
    /// a version of the measure.
    Similarity(simhash_core::similarity::Version),
}

/// A backend's cached state of one dedup trigger.
struct Entry {
    /// The definition the Config was built for when its options name none, that of the
    /// C symbol that fired (`simhash_dedup_trigger` or `_v1`): `CREATE OR REPLACE
    /// FUNCTION` can point a trigger's function at the other one without invalidating
    /// the table's relcache entry.
    default: Definition,
    /// Which trigger's arguments it was built for, and what decides (the same `CREATE OR
    /// REPLACE FUNCTION` caveat).
    kind: Kind,
    decision: Decision,
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

/// Syscache invalidation callback on functions: forget every trigger. A similarity trigger's
/// check query names functions, which `ALTER EXTENSION simhash UPDATE` renames (5.0.0 gives
/// measure 1's objects their `_m1` names, src/similarity/support.rs `sql_suffix`): the query
/// is written again, and no kept plan re-resolves an old name to another function.
#[pg_guard]
unsafe extern "C-unwind" fn functions_invalidated(_arg: pg_sys::Datum, _cacheid: i32, _hash: u32) {
    STALE.with(|s| {
        let mut s = s.borrow_mut();
        s.clear();
        s.push(pg_sys::InvalidOid);
    });
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

/// The trigger's cached state, built (and validated) by `build` if missing, stale, or built
/// for another default definition or kind.
///
/// # Safety
/// `td` must be the TriggerData of a firing trigger.
pub(crate) unsafe fn entry(
    td: *mut pg_sys::TriggerData,
    default: Definition,
    kind: Kind,
    decision: Decision,
    build: impl FnOnce() -> Config,
) -> (std::rc::Rc<Config>, [pg_sys::SPIPlanPtr; 2]) {
    if !CALLBACK_REGISTERED.get() {
        // SAFETY: registers plain functions once per backend (PostgreSQL allows 10 relcache
        // and 64 syscache callbacks).
        unsafe {
            pg_sys::CacheRegisterRelcacheCallback(Some(relcache_invalidated), pg_sys::Datum::from(0usize));
            pg_sys::CacheRegisterSyscacheCallback(
                pg_sys::SysCacheIdentifier::PROCOID as i32,
                Some(functions_invalidated),
                pg_sys::Datum::from(0usize),
            );
        }
        CALLBACK_REGISTERED.set(true);
    }
    // SAFETY: `td` is valid for the call (caller).
    let tgoid = unsafe { (*(*td).tg_trigger).tgoid };
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
        if c.get(&tgoid).is_some_and(|e| e.default != default || e.kind != kind || e.decision != decision) {
            let e = c.remove(&tgoid).expect("the entry just looked up");
            dropped.extend(e.plans.iter().copied().filter(|p| !p.is_null()));
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
    let config = std::rc::Rc::new(build());
    let plans = [std::ptr::null_mut(); 2];
    CACHE.with(|c| c.borrow_mut().insert(tgoid, Entry { default, kind, decision, config: config.clone(), plans }));
    (config, plans)
}

/// Remembers a plan the check prepared (and kept with SPI_keepplan) for the trigger:
/// `which` is 0 for the insert query, 1 for the update query.
pub(crate) fn keep_plan(tgoid: pg_sys::Oid, which: usize, plan: pg_sys::SPIPlanPtr) {
    CACHE.with(|c| {
        if let Some(e) = c.borrow_mut().get_mut(&tgoid) {
            e.plans[which] = plan;
        }
    });
}
