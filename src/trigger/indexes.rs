//! The GIN indexes of a trigger's column, by the operator they serve: which a measure's
//! pre-check scans, or which its trigger locks and checks through.

use pgrx::pg_sys;

use crate::nodes::list_oids;

pub(crate) const ACCESS_SHARE_LOCK: pg_sys::LOCKMODE = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
const NO_LOCK: pg_sys::LOCKMODE = pg_sys::NoLock as pg_sys::LOCKMODE;

/// The first GIN index of `rel` that is valid, not partial, on column `attnum` alone, with
/// operator `op` in its operator family: its OID and `op`'s strategy number there.
///
/// # Safety
/// `rel` must be an open relation, locked by the caller.
pub(crate) unsafe fn gin_index(
    rel: pg_sys::Relation,
    attnum: i16,
    op: pg_sys::Oid,
) -> Option<(pg_sys::Oid, pg_sys::StrategyNumber)> {
    // SAFETY: forwarded from the caller.
    unsafe { gin_indexes(rel, attnum, op) }.first().map(|g| (g.oid, g.strategy))
}

/// A GIN index [`gin_indexes`] finds.
#[derive(Clone, Copy, Debug)]
pub(crate) struct GinIndex {
    pub oid: pg_sys::Oid,
    pub strategy: pg_sys::StrategyNumber,
    pub opfamily: pg_sys::Oid,
}

/// Every GIN index of `rel` that is valid, not partial, on column `attnum` alone, with
/// operator `op` in its operator family, in the relcache's order.
///
/// # Safety
/// `rel` must be an open relation, locked by the caller.
pub(crate) unsafe fn gin_indexes(rel: pg_sys::Relation, attnum: i16, op: pg_sys::Oid) -> Vec<GinIndex> {
    // SAFETY: `rel` is open and locked, so its index list and the index relations (opened
    // with AccessShareLock and kept locked to the end of the transaction, as the planner
    // does) are valid while read; `indkey` has `indnatts` entries.
    unsafe {
        let mut found = Vec::new();
        for oid in list_oids(pg_sys::RelationGetIndexList(rel)) {
            let index = pg_sys::index_open(oid, ACCESS_SHARE_LOCK);
            let form = (*index).rd_index;
            if (*(*index).rd_rel).relam == pg_sys::GIN_AM_OID
                && (*form).indisvalid
                && (*form).indnatts == 1
                && (*form).indkey.values.as_slice(1)[0] == attnum
                && pg_sys::RelationGetIndexPredicate(index).is_null()
            {
                let opfamily = *(*index).rd_opfamily;
                let strategy = pg_sys::get_op_opfamily_strategy(op, opfamily);
                if strategy > 0 {
                    found.push(GinIndex { oid, strategy: strategy as pg_sys::StrategyNumber, opfamily });
                }
            }
            pg_sys::index_close(index, NO_LOCK);
        }
        found
    }
}

/// The name of relation `oid`, for messages: "?" for one dropped since.
pub(crate) fn relation_name(oid: pg_sys::Oid) -> String {
    // SAFETY: get_rel_name returns a palloc'd copy of the name, or NULL for a relation
    // dropped since (the caller may hold no lock on it).
    unsafe {
        let p = pg_sys::get_rel_name(oid);
        if p.is_null() {
            "?".to_owned()
        } else {
            std::ffi::CStr::from_ptr(p).to_string_lossy().into_owned()
        }
    }
}
