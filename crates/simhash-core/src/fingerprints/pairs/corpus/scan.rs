//! How a run of candidates is compared with a corpus fingerprint: AVX-512 (16 filters per
//! popcount), scalar POPCNT, or plain Rust, whichever is fastest on this CPU.

/// How a run of candidates is compared with a corpus fingerprint: the fastest the CPU
/// can do, detected once per batch: AVX-512 (16 filters per popcount, 8-byte packed chunk
/// rows), else scalar POPCNT, else plain `count_ones`, which on the default x86-64 target
/// (no POPCNT) is a dozen operations. The example `bench_corpus_plans` times each.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scan {
    #[cfg(target_arch = "x86_64")]
    Avx512,
    #[cfg(target_arch = "x86_64")]
    Popcnt,
    Plain,
}

impl Scan {
    /// Every scan this CPU can run, the fastest first.
    pub fn available() -> Vec<Scan> {
        let mut v = Vec::new();
        #[cfg(target_arch = "x86_64")]
        {
            if std::arch::is_x86_feature_detected!("avx512f") && std::arch::is_x86_feature_detected!("avx512vpopcntdq")
            {
                v.push(Scan::Avx512);
            }
            if std::arch::is_x86_feature_detected!("popcnt") {
                v.push(Scan::Popcnt);
            }
        }
        v.push(Scan::Plain);
        v
    }

    pub(super) fn detect() -> Scan {
        Scan::available()[0]
    }
}

/// Calls `hit(x)` for every `x` of `run` within `k` bits of `p`, in order.
#[inline(always)]
pub(super) fn scan_plain(run: &[u64], p: u64, k: u32, hit: &mut dyn FnMut(u64)) {
    for &x in run {
        if (x ^ p).count_ones() <= k {
            hit(x);
        }
    }
}

/// Calls `pass(i)` for every `i` with `sub[i] >> drop` within `k` bits of `ps`, 16 at a
/// time: one XOR, one popcount per lane (VPOPCNTD) and one compare. The filter of
/// [`scan_avx512`] and [`BatchTables::probe_packed`].
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
#[inline]
pub(super) fn filter_avx512(sub: &[u32], ps: u32, drop: u32, k: u32, pass: &mut impl FnMut(usize)) {
    use std::arch::x86_64::*;
    let pv = _mm512_set1_epi32(ps as i32);
    let kv = _mm512_set1_epi32(k as i32);
    let dv = _mm512_set1_epi32(drop as i32);
    for (i, c) in sub.chunks(16).enumerate() {
        let lanes = if c.len() == 16 { 0xFFFF } else { (1u16 << c.len()) - 1 };
        // SAFETY: the mask enables exactly the lanes `0..c.len()`, all inside `c`; masked-off
        // lanes are not read (a masked load does not fault on them), and unaligned loads are
        // allowed.
        let x = unsafe { _mm512_maskz_loadu_epi32(lanes, c.as_ptr().cast::<i32>()) };
        let x = _mm512_srlv_epi32(x, dv);
        let mut near = _mm512_mask_cmple_epu32_mask(lanes, _mm512_popcnt_epi32(_mm512_xor_si512(x, pv)), kv);
        while near != 0 {
            pass(i * 16 + near.trailing_zeros() as usize);
            near &= near - 1;
        }
    }
}

/// [`scan_plain`] with a filter: [`filter_avx512`] on `sub` (32 bits of each entry, see
/// [`Indexed::sub_of`]) gives the entries within `k` there, and only those are compared
/// whole: faster than comparing the whole entries 8 at a time.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f,avx512vpopcntdq,popcnt")]
#[inline]
pub(super) fn scan_avx512(run: &[u64], sub: &[u32], p: u64, ps: u32, k: u32, hit: &mut dyn FnMut(u64)) {
    debug_assert_eq!(run.len(), sub.len());
    filter_avx512(sub, ps, 0, k, &mut |i| {
        let x = run[i];
        if (x ^ p).count_ones() <= k {
            hit(x);
        }
    });
}
