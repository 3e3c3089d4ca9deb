//! The dedup triggers' advisory locks: before its check, an inserter locks keys its measure
//! computes from the new row, which any two near-duplicates share, so two inserters of
//! near-duplicates always contend ([`lock_keys`]); a transaction that locks many keys
//! escalates to the table's key (its retry at once, if the escalation deadlocked), and a
//! trigger whose candidates no keys cover locks the table's key alone ([`lock_table`]).

use pgrx::pg_sys;

use crate::pg_compat;

/// `locktag_field4` of our advisory locks. `pg_advisory_lock(bigint)` uses 1 and
/// `pg_advisory_lock(int, int)` 2, so an application's own advisory locks never collide
/// with these; in `pg_locks` they are `locktype = 'advisory'` with `objsubid = 21320`.
const LOCK_FIELD4: u16 = 0x5348; // "SH"

/// Bounds on the block keys one transaction locks. Transaction locks stay in PostgreSQL's
/// shared lock table until commit, and that table holds max_locks_per_transaction x
/// (max_connections + workers) entries for the whole server (about 7,800 by default): at
/// k = 3 (4 keys a row) one INSERT of 2,000 rows would fill it and fail with "out of shared
/// memory". Past ESCALATE_TRY_AFTER keys a transaction tries, without waiting, to hold the
/// table key exclusively instead; past ESCALATE_WAIT_AFTER it waits for it, which can
/// deadlock (40P01) with a concurrent inserter but keeps 8 concurrent bulk writers within
/// the default lock table (8 x 512 keys). Such a deadlock makes the retry escalate first
/// (ESCALATE_FIRST).
const ESCALATE_TRY_AFTER: usize = 128;
const ESCALATE_WAIT_AFTER: usize = 512;

thread_local! {
    /// (local transaction id, block keys locked in it so far).
    static XACT_LOCKS: std::cell::Cell<(u32, usize)> = const { std::cell::Cell::new((0, 0)) };
    /// Table keys that this session's next transaction takes exclusively at its first row,
    /// before any other lock of the family. Set before a transaction waits to escalate and
    /// forgotten when one that held the key exclusively commits, so a transaction that did
    /// not get to commit (the wait deadlocked with inserters waiting for its keys while
    /// holding the table key in Share mode, a serialization failure...) is retried holding
    /// none of these locks while it waits, which cannot deadlock. Without it the escalating
    /// transaction was the deadlock's victim every time (it waits last, so its deadlock
    /// check is the one that finds the cycle): 8 writers of 50-row transactions of reposts
    /// and excerpts, about 50 index keys a row, deadlocked 2,756 times in 5 minutes without
    /// a commit; with it they finish, 20 transactions retried (similarity_dedup_concurrency.sh,
    /// containment round, REPEATABLE READ).
    static ESCALATE_FIRST: std::cell::RefCell<std::collections::HashSet<u64>> =
        std::cell::RefCell::new(std::collections::HashSet::new());
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

/// Takes the table key `key` exclusively, at once rather than after Share as lock_keys
/// escalates (two inserters upgrading from Share deadlock), and forgets it in
/// ESCALATE_FIRST when the transaction commits.
pub(crate) fn lock_table(key: u64) {
    let table = lock_tag(key);
    let exclusive = pg_sys::ExclusiveLock as i32;
    // SAFETY: a fully initialized advisory LOCKTAG; a transaction lock; a waiting LockAcquire
    // returns only once the lock is held (a deadlock or cancellation raises an ERROR).
    unsafe {
        if !pg_compat::lock_held_by_me(&table, exclusive) {
            pg_sys::LockAcquire(&table, exclusive, false, false);
        }
    }
    forget_at_commit(key);
}

/// Removes the table key `key` from ESCALATE_FIRST when the current transaction, which
/// holds it exclusively, commits (an abort keeps it, for the retry).
fn forget_at_commit(key: u64) {
    if ESCALATE_FIRST.with(|f| f.borrow().contains(&key)) {
        pgrx::register_xact_callback(pgrx::PgXactCallbackEvent::Commit, move || {
            // A callback must not panic: a busy RefCell (never, after commit) keeps the key.
            let _ = ESCALATE_FIRST.with(|f| f.try_borrow_mut().map(|mut f| f.remove(&key)));
        });
    }
}

/// Takes, until the end of the transaction, the table key `key` in Share mode, then `keys()`
/// (ascending, so single-row inserters never deadlock) in Exclusive mode. A
/// transaction with many keys upgrades the table key to Exclusive (see ESCALATE_TRY_AFTER);
/// once it holds it no other dedup inserter of this trigger's kind on this table can run,
/// so it needs no more keys. The retry of a transaction that did not commit after waiting
/// to upgrade takes it exclusively at once (ESCALATE_FIRST).
pub(crate) fn lock_keys(key: u64, keys: impl FnOnce() -> Vec<u64>) {
    let table = lock_tag(key);
    let (share, exclusive) = (pg_sys::ShareLock as i32, pg_sys::ExclusiveLock as i32);
    // SAFETY: fully initialized advisory LOCKTAGs; transaction locks (sessionLock = false).
    // A waiting LockAcquire returns only once the lock is held (a deadlock or cancellation
    // raises an ERROR instead); MyProc is this backend's PGPROC, valid in a transaction.
    unsafe {
        if pg_compat::lock_held_by_me(&table, exclusive) {
            return;
        }
        if !pg_compat::lock_held_by_me(&table, share) && ESCALATE_FIRST.with(|f| f.borrow().contains(&key)) {
            lock_table(key);
            return;
        }
        pg_sys::LockAcquire(&table, share, false, false);
        let keys = keys();
        let lxid = pg_compat::local_transaction_id();
        let (xact, taken) = XACT_LOCKS.get();
        let taken = if xact == lxid { taken } else { 0 };
        let after = taken + keys.len();
        if after > ESCALATE_TRY_AFTER {
            let wait = after > ESCALATE_WAIT_AFTER;
            if wait {
                ESCALATE_FIRST.with(|f| f.borrow_mut().insert(key));
            }
            if pg_sys::LockAcquire(&table, exclusive, false, !wait) != pg_sys::LockAcquireResult::LOCKACQUIRE_NOT_AVAIL
            {
                forget_at_commit(key);
                return;
            }
        }
        XACT_LOCKS.set((lxid, taken + keys.len()));
        for key in keys {
            pg_sys::LockAcquire(&lock_tag(key), exclusive, false, false);
        }
    }
}
