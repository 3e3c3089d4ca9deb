//! The advisory-lock keys of every dedup trigger: one hash for every key family, so that
//! the families of fingerprints, segments and similarity cannot collide by layout.

/// The keys of `payloads` in family `kind` ([`key_hash`]), ascending and without repeats:
/// the order an inserter locks them in.
pub(crate) fn sorted_keys<P: AsRef<[u8]>>(
    relid: u32,
    attnum: i16,
    kind: [u8; 2],
    payloads: impl IntoIterator<Item = P>,
) -> Vec<u64> {
    let mut keys: Vec<u64> = payloads.into_iter().map(|p| key_hash(relid, attnum, kind, p.as_ref())).collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// An advisory-lock key: xxh3 of `relid`, `attnum` (little-endian), the two `kind` bytes
/// that keep the key families apart, and `payload`. Every dedup trigger's keys are made
/// here, so that the families cannot collide by layout.
pub(crate) fn key_hash(relid: u32, attnum: i16, kind: [u8; 2], payload: &[u8]) -> u64 {
    let mut buf = [0u8; 20];
    buf[0..4].copy_from_slice(&relid.to_le_bytes());
    buf[4..6].copy_from_slice(&attnum.to_le_bytes());
    buf[6..8].copy_from_slice(&kind);
    buf[8..8 + payload.len()].copy_from_slice(payload);
    xxhash_rust::xxh3::xxh3_64(&buf[..8 + payload.len()])
}

/// The table-wide key of the same (table, column, k). Every inserter holds it in a shared
/// mode; a transaction that inserts many rows holds it exclusively instead of one set of
/// block keys per row, so that its lock count stays bounded (see `src/trigger/lock.rs`). Segments and similarity pass a
/// `k` no fingerprint trigger has (0xfe, 0xfd) for keys of their own.
pub fn table_lock_key(relid: u32, attnum: i16, k: u32) -> u64 {
    // 0xff is not a block count (1..=64): never equal to a block key's prefix.
    key_hash(relid, attnum, [k as u8, 0xff], &[])
}
