//! What differs between the PostgreSQL majors that simhash builds for (15, 16, 17, 18), in
//! one place: every other file calls these and needs no `cfg`. The crate's feature `pgNN`
//! (Cargo.toml) selects the major, as it selects pgrx's bindings.

use pgrx::pg_sys;

/// Whether this backend holds `tag` in `mode` itself (not only a stronger mode). PostgreSQL
/// 17 gave `LockHeldByMe` a third argument, `orstronger`; false keeps 15's meaning.
///
/// # Safety
/// In a transaction, with a fully initialized `tag`: the lock manager's local table is
/// this backend's own.
pub(crate) unsafe fn lock_held_by_me(tag: &pg_sys::LOCKTAG, mode: pg_sys::LOCKMODE) -> bool {
    #[cfg(any(feature = "pg15", feature = "pg16"))]
    // SAFETY: the caller's (above).
    let held = unsafe { pg_sys::LockHeldByMe(tag, mode) };
    #[cfg(any(feature = "pg17", feature = "pg18"))]
    // SAFETY: the caller's (above).
    let held = unsafe { pg_sys::LockHeldByMe(tag, mode, false) };
    held
}

/// This backend's local transaction id, which tells one transaction of the backend from the
/// next. PostgreSQL 17 moved `PGPROC.lxid` into `PGPROC.vxid.lxid`.
///
/// # Safety
/// `MyProc` must be set: in any backend that runs SQL, once it has started.
pub(crate) unsafe fn local_transaction_id() -> u32 {
    // SAFETY: MyProc is this backend's own PGPROC (the caller's condition), and only this
    // backend writes its lxid.
    let proc = unsafe { &*pg_sys::MyProc };
    #[cfg(any(feature = "pg15", feature = "pg16"))]
    let lxid = proc.lxid;
    #[cfg(any(feature = "pg17", feature = "pg18"))]
    let lxid = proc.vxid.lxid;
    lxid
}

/// The attributes of a tuple descriptor, `TupleDescAttr(desc, 0..natts)`. PostgreSQL 18
/// put an array of `CompactAttribute`s first (`compact_attrs`) and the full
/// `FormData_pg_attribute`s right after its `natts` entries (tupdesc.h's `TupleDescAttr`).
///
/// # Safety
/// `desc` is a valid tuple descriptor that outlives the returned slice.
pub(crate) unsafe fn tuple_desc_attrs<'a>(desc: *const pg_sys::TupleDescData) -> &'a [pg_sys::FormData_pg_attribute] {
    // SAFETY: a valid descriptor holds natts attributes where its major's layout puts them
    // (above); the caller keeps it alive for 'a.
    unsafe {
        let natts = (*desc).natts as usize;
        #[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17"))]
        let first = (*desc).attrs.as_ptr();
        #[cfg(feature = "pg18")]
        let first = (*desc).compact_attrs.as_ptr().add(natts).cast::<pg_sys::FormData_pg_attribute>();
        std::slice::from_raw_parts(first, natts)
    }
}

/// The OID of `rel`'s primary key index, InvalidOid when it has none or it is DEFERRABLE.
/// PostgreSQL 18's `RelationGetPrimaryKeyIndex` asks whether a deferrable one will do; before
/// 18 the relcache never recorded one (relcache.c skips non-immediate indexes), so false
/// keeps that meaning.
///
/// # Safety
/// `rel` is an open relation.
pub(crate) unsafe fn primary_key_index(rel: pg_sys::Relation) -> pg_sys::Oid {
    #[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17"))]
    // SAFETY: the caller's (above).
    let pk = unsafe { pg_sys::RelationGetPrimaryKeyIndex(rel) };
    #[cfg(feature = "pg18")]
    // SAFETY: the caller's (above).
    let pk = unsafe { pg_sys::RelationGetPrimaryKeyIndex(rel, false) };
    pk
}

/// `index_beginscan`, without instrumentation: PostgreSQL 18 added the argument
/// `instrument` (EXPLAIN ANALYZE's index search counts), which NULL leaves off.
///
/// # Safety
/// As `index_beginscan`'s: open, locked relations and an active snapshot.
pub(crate) unsafe fn index_beginscan(
    heap: pg_sys::Relation,
    index: pg_sys::Relation,
    snapshot: pg_sys::Snapshot,
    nkeys: i32,
    norderbys: i32,
) -> pg_sys::IndexScanDesc {
    #[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17"))]
    // SAFETY: the caller's (above).
    let scan = unsafe { pg_sys::index_beginscan(heap, index, snapshot, nkeys, norderbys) };
    #[cfg(feature = "pg18")]
    // SAFETY: the caller's (above); a NULL instrument is allowed (indexam.c).
    let scan = unsafe { pg_sys::index_beginscan(heap, index, snapshot, std::ptr::null_mut(), nkeys, norderbys) };
    scan
}

/// `index_beginscan_bitmap`, without instrumentation (as [`index_beginscan`]).
///
/// # Safety
/// As `index_beginscan_bitmap`'s: an open, locked index and an active snapshot.
pub(crate) unsafe fn index_beginscan_bitmap(
    index: pg_sys::Relation,
    snapshot: pg_sys::Snapshot,
    nkeys: i32,
) -> pg_sys::IndexScanDesc {
    #[cfg(any(feature = "pg15", feature = "pg16", feature = "pg17"))]
    // SAFETY: the caller's (above).
    let scan = unsafe { pg_sys::index_beginscan_bitmap(index, snapshot, nkeys) };
    #[cfg(feature = "pg18")]
    // SAFETY: the caller's (above); a NULL instrument is allowed (indexam.c).
    let scan = unsafe { pg_sys::index_beginscan_bitmap(index, snapshot, std::ptr::null_mut(), nkeys) };
    scan
}
