//! The one sort of a bulk run's keys (`super`): entries `(key << 32) | row` by key, rows kept in
//! their order within a key, a least-significant-digit radix sort. Bands, groups of identical
//! sets, band slices and templates' postings sort millions of such entries.

/// Sorts `v` on its upper 32 bits, stably, with `scratch` of the same length; `check` between
/// blocks of 2^16 entries.
pub(super) fn sort_high(v: &mut Vec<u64>, scratch: &mut Vec<u64>, check: &mut dyn FnMut()) {
    const BITS: [(u32, u32); 3] = [(32, 11), (43, 11), (54, 10)];
    scratch.clear();
    scratch.resize(v.len(), 0);
    for (shift, bits) in BITS {
        let mask = (1u64 << bits) - 1;
        let mut count = vec![0usize; 1 << bits];
        for &x in v.iter() {
            count[((x >> shift) & mask) as usize] += 1;
        }
        let mut sum = 0;
        for c in count.iter_mut() {
            let n = *c;
            *c = sum;
            sum += n;
        }
        for block in v.chunks(1 << 16) {
            for &x in block {
                let d = ((x >> shift) & mask) as usize;
                scratch[count[d]] = x;
                count[d] += 1;
            }
            check();
        }
        std::mem::swap(v, scratch);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn radix_sort_is_stable_on_the_key() {
        let mut v: Vec<u64> =
            (0..100_000u64).map(|i| (crate::similarity::bulk::sketch::mix(i % 997) >> 32 << 32) | i).collect();
        let mut want = v.clone();
        want.sort_by_key(|x| x >> 32);
        sort_high(&mut v, &mut Vec::new(), &mut || ());
        assert_eq!(v, want);
    }
}
