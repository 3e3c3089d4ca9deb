//! The dedup trigger's index pre-check: before running its check query, the trigger scans
//! the block indexes itself, one btree descent per probe key, and runs the query only if
//! some index entry may be a near-duplicate.
//!
//! Sound because an index holds an entry for every row version, visible to us or not
//! (dead, uncommitted, committed after our snapshot): if no entry of a complete block set
//! is within the bound, no row is, under any snapshot, so the check query would find
//! nothing. The advisory locks are taken first (lock.rs), so the entries of a concurrent
//! inserter of a near-duplicate are already in the index. Under SERIALIZABLE the btree scan
//! takes the same predicate locks on the leaf pages it reads as the query's index scans do.
//!
//! With the fingerprint column in the index (`INCLUDE (fp)`), an entry is tested on the
//! leaf page; without it, any entry at all sends the insert on to the check query.

use pgrx::pg_sys;
use simhash_core::{fingerprints::search as core_blocks, hamming};

use super::search::{covering, BlockIndex};
use crate::trigger::config::PreCheck;

/// The block set the pre-check scans.
pub(crate) struct BlockPreCheck {
    pub nblocks: i32,
    pub indexes: Vec<BlockIndex>,
    /// The trigger's Hamming bound.
    pub k: u32,
}

impl PreCheck for BlockPreCheck {
    fn describe(&self) -> String {
        format!(
            "index pre-check on {} block indexes, {}",
            self.nblocks,
            if covering(&self.indexes) { "fingerprint in the index" } else { "fingerprint not in the index" }
        )
    }

    /// Whether some entry of the block indexes may be a row within `self.k` of the
    /// fingerprint `value`. Beyond the trait's contract, `self.indexes` are valid,
    /// non-partial btree indexes of `heap` whose first column is block `i` of `self.nblocks`
    /// of the fingerprint column (search/block_index.rs) and whose `fp_attno`, if any, is an
    /// int8 column of the index: how the config found them.
    unsafe fn may_match(&self, heap: pg_sys::Relation, value: pg_sys::Datum) -> bool {
        let (fp, k) = (value.value() as i64, self.k as i32);
        for (block, index) in self.indexes.iter().enumerate() {
            let Ok(mut keys) = core_blocks::probes(fp as u64, block as i32, self.nblocks, k, core_blocks::MAX_PROBES)
            else {
                return true;
            };
            // Ascending keys: neighbouring descents share their upper pages in the CPU cache.
            keys.sort_unstable();
            // SAFETY: forwarded from the caller.
            if unsafe { any_entry_within(heap, index, &keys, fp, k) } {
                return true;
            }
        }
        false
    }
}

/// Whether the index holds an entry with a block key in `keys` (and, if it carries the
/// fingerprint, within `k` of `fp`).
///
/// # Safety
/// As for [`BlockPreCheck::may_match`].
unsafe fn any_entry_within(heap: pg_sys::Relation, index: &BlockIndex, keys: &[u32], fp: i64, k: i32) -> bool {
    const LOCK: pg_sys::LOCKMODE = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
    // SAFETY: the index is opened and locked (the executor already holds RowExclusiveLock
    // on it for the insert, so this is a local lock-table hit) and closed before return;
    // the scan lives between index_beginscan and index_endscan, allocated in the current
    // (per-tuple) memory context. The scan key is fully initialized by ScanKeyInit before
    // each rescan. xs_itup/xs_itupdesc are set by btree for the tuple just returned when
    // xs_want_itup is true, and index_deform_tuple writes at most natts <= INDEX_MAX_KEYS
    // values. Errors inside raise through pg_guard'ed calls; the transaction abort then
    // releases the scan and the lock.
    unsafe {
        let rel = pg_sys::index_open(index.oid, LOCK);
        let scan = crate::pg_compat::index_beginscan(heap, rel, pg_sys::GetActiveSnapshot(), 1, 0);
        (*scan).xs_want_itup = index.fp_attno.is_some();
        let mut found = false;
        let mut values = [pg_sys::Datum::from(0usize); pg_sys::INDEX_MAX_KEYS as usize];
        let mut nulls = [false; pg_sys::INDEX_MAX_KEYS as usize];
        'keys: for &key in keys {
            let mut skey: pg_sys::ScanKeyData = std::mem::zeroed();
            pg_sys::ScanKeyInit(
                &mut skey,
                1,
                pg_sys::BTEqualStrategyNumber as pg_sys::StrategyNumber,
                pg_sys::F_INT4EQ.into(),
                pg_sys::Datum::from(key as i32),
            );
            pg_sys::index_rescan(scan, &mut skey, 1, std::ptr::null_mut(), 0);
            while !pg_sys::index_getnext_tid(scan, pg_sys::ScanDirection::ForwardScanDirection).is_null() {
                let Some(attno) = index.fp_attno else {
                    found = true;
                    break 'keys;
                };
                pg_sys::index_deform_tuple(
                    (*scan).xs_itup,
                    (*scan).xs_itupdesc,
                    values.as_mut_ptr(),
                    nulls.as_mut_ptr(),
                );
                let j = attno as usize - 1;
                if !nulls[j] && hamming(values[j].value() as u64, fp as u64) <= k as u32 {
                    found = true;
                    break 'keys;
                }
            }
        }
        pg_sys::index_endscan(scan);
        pg_sys::index_close(rel, LOCK);
        found
    }
}
