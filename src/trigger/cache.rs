//! The dedup trigger's per-backend cache: the config built from a trigger's arguments and
//! its prepared check plans, by trigger OID, until the table's relcache entry is invalidated.

use std::any::{Any, TypeId};
use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use pgrx::pg_sys;
use pgrx::prelude::*;

use super::config::{Configured, Measure};

/// A backend's cached state of one dedup trigger.
struct Entry {
    /// The measure and the entry point (`Measure::Variant`) it was built for: another one
    /// builds it again (`Measure::Variant` says why).
    measure: TypeId,
    variant: Box<dyn Any>,
    relid: pg_sys::Oid,
    /// An `Rc<Configured<M>>` of that measure.
    config: Rc<dyn Any>,
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

/// Syscache invalidation callback on functions: forget every trigger. A check query may name
/// functions, which `ALTER EXTENSION simhash UPDATE` renames (5.0.0 gave one version's
/// objects a suffix: docs/development.md, "Version suffixes"): the query
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
/// for another measure or entry point.
///
/// # Safety
/// `td` must be the TriggerData of a firing trigger.
pub(crate) unsafe fn entry<M: Measure>(
    td: *mut pg_sys::TriggerData,
    variant: M::Variant,
    build: impl FnOnce() -> Configured<M>,
) -> (Rc<Configured<M>>, [pg_sys::SPIPlanPtr; 2]) {
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
                let keep = !stale.iter().any(|&r| r == pg_sys::InvalidOid || r == e.relid);
                if !keep {
                    dropped.extend(e.plans.iter().copied().filter(|p| !p.is_null()));
                }
                keep
            });
        }
        let same =
            |e: &Entry| e.measure == TypeId::of::<M>() && e.variant.downcast_ref::<M::Variant>() == Some(&variant);
        if c.get(&tgoid).is_some_and(|e| !same(e)) {
            let e = c.remove(&tgoid).expect("the entry just looked up");
            dropped.extend(e.plans.iter().copied().filter(|p| !p.is_null()));
        }
        c.get(&tgoid).map(|e| {
            let config = e.config.clone().downcast::<Configured<M>>().expect("an entry of this measure");
            (config, e.plans)
        })
    });
    for plan in dropped {
        // SAFETY: a plan we kept with SPI_keepplan and no longer reference.
        unsafe { pg_sys::SPI_freeplan(plan) };
    }
    if let Some(found) = found {
        return found;
    }
    let config = Rc::new(build());
    let plans = [std::ptr::null_mut(); 2];
    let e = Entry {
        measure: TypeId::of::<M>(),
        variant: Box::new(variant),
        relid: config.relid,
        config: config.clone(),
        plans,
    };
    CACHE.with(|c| c.borrow_mut().insert(tgoid, e));
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
