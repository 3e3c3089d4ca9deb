//! One text's sketch in a bulk run (`super`): its record (spilled: its figures, then its kept
//! characters, [`record`]), the size of its shingle set and a hash of its sets, and a MinHash
//! signature of its shingles made into band keys and two-bit codes.
//!
//! The signature is one-permutation hashing (Li, Owen and Zhang 2012): each distinct shingle
//! hash is remixed, the remix's high 32 bits pick one of [`Plan::bins`] (2,048) bins and the
//! bin keeps its least remix. Only the first [`Plan::used`] bins are read (168 at θ = 0.5):
//! an empty one takes the value of the first non-empty bin on a probe sequence of its own, the
//! same for every text (Shrivastava 2017, "optimal densification"), so that for two texts
//! every bin is equal with probability `J`. One remix per shingle instead of one per bin:
//! 350 shingles cost 350 multiplications and about 900 probes, not 58,800. Band `j`'s key is a 32-bit hash of bins `j·r .. (j+1)·r`; a row's code `i` is
//! the lowest two bits of bin `i`.

use std::sync::OnceLock;

use xxhash_rust::xxh3::xxh3_64;

use super::plan::{Plan, CODES, MIN_BINS};
use crate::similarity::measure::Sets;
use crate::similarity::shingles::{for_each_item_normalized, Item, Version, Window};

/// Fixed seeds: band keys are exchanged between shards, so they are part of the format.
const BIN_SEED: u64 = 0x5348_424B_0001_0001;
const PROBE_SEED: u64 = 0x5348_424B_0002_0002;
const BAND_SEED: u64 = 0x5348_424B_0003_0003;

/// splitmix64's finalizer: a bijection of u64 whose every output bit depends on every input bit.
#[inline]
pub(super) fn mix(mut z: u64) -> u64 {
    z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
    z ^ (z >> 31)
}

/// A deterministic stream of draws (splitmix64's step): a run's guards draw the same pairs for
/// the same rows (`templates.rs`, `template_pairs.rs`).
pub(super) struct Draws(pub u64);

impl Draws {
    /// A draw in `0..n` (`n` > 0).
    #[inline]
    pub(super) fn below(&mut self, n: usize) -> usize {
        self.0 = mix(self.0.wrapping_add(0x9E37_79B9_7F4A_7C15));
        (self.0 % n as u64) as usize
    }
}

/// What a row's sketch is, besides the keys and codes written to the caller's buffers.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) struct Summary {
    /// Distinct shingles.
    pub size: u32,
    /// xxh3_64 of the ascending distinct shingle hashes and then figure hashes (0 when there
    /// is no shingle): rows with equal hashes are confirmed to have equal sets (groups.rs).
    pub set_hash: u64,
}

/// A worker's buffers for sketching texts one after another.
pub(super) struct Sketcher {
    plan: Plan,
    version: Version,
    hashes: Vec<u64>,
    figures: Vec<u64>,
    chars: Vec<u8>,
    bins: Vec<u64>,
    filled: Vec<u64>,
    bytes: Vec<u8>,
}

impl Sketcher {
    pub(super) fn new(plan: Plan, version: Version) -> Sketcher {
        Sketcher {
            plan,
            version,
            hashes: Vec::new(),
            figures: Vec::new(),
            chars: Vec::new(),
            bins: vec![0; plan.bins],
            filled: vec![0; plan.used],
            bytes: Vec::new(),
        }
    }

    /// Sketches `text`: appends its record to `kept` ([`record`]), its `b` band keys to `keys`
    /// and its `CODES / 32` code words to `codes` (zeros for a text without shingles).
    pub(super) fn sketch(
        &mut self,
        text: &str,
        kept: &mut Vec<u8>,
        keys: &mut Vec<u32>,
        codes: &mut Vec<u64>,
        tick: &mut dyn FnMut(),
    ) -> Summary {
        let mut window = Window::default();
        let (hashes, figures, chars) = (&mut self.hashes, &mut self.figures, &mut self.chars);
        hashes.clear();
        figures.clear();
        chars.clear();
        let mut utf8 = [0u8; 4];
        for_each_item_normalized(
            text,
            self.version,
            tick,
            |item| match item {
                Item::Char(c) => {
                    if let Some(h) = window.push(c) {
                        hashes.push(h);
                    }
                }
                Item::Figure(f) => figures.push(f),
            },
            |c| chars.extend_from_slice(c.encode_utf8(&mut utf8).as_bytes()),
        );
        hashes.extend(window.finish());
        for v in [&mut *hashes, &mut *figures] {
            v.sort_unstable();
            v.dedup();
        }
        record(figures, chars, kept);
        if hashes.is_empty() {
            keys.extend(std::iter::repeat_n(0, self.plan.b));
            codes.extend(std::iter::repeat_n(0, CODES / 32));
            return Summary { size: 0, set_hash: 0 };
        }
        self.bytes.clear();
        self.bytes.extend(hashes.iter().flat_map(|h| h.to_le_bytes()));
        self.bytes.extend_from_slice(b"FIGURES:");
        self.bytes.extend(self.figures.iter().flat_map(|h| h.to_le_bytes()));
        let set_hash = xxh3_64(&self.bytes);
        signature(&self.hashes, &mut self.bins, &mut self.filled);
        band_keys(&self.filled, &self.plan, keys);
        codes.extend(
            self.filled[..CODES]
                .chunks(32)
                .map(|bins| bins.iter().enumerate().fold(0u64, |w, (i, &v)| w | ((v & 3) << (2 * i)))),
        );
        Summary { size: self.hashes.len() as u32, set_hash }
    }
}

/// The densified one-permutation signature of a non-empty set (module docs) over
/// `bins.len()` bins (scratch), its first `filled.len()` into `filled`.
pub(super) fn signature(set: &[u64], bins: &mut [u64], filled: &mut [u64]) {
    let k = bins.len() as u64;
    // u64::MAX marks an empty bin (a remix of exactly u64::MAX is read as none, alike in
    // every text).
    bins.fill(u64::MAX);
    // The bins a set of at most FEW shingles fills (repeats are harmless).
    let (mut full, mut n) = ([0usize; FEW], 0);
    for &h in set {
        let (v, bin) = remix(h, k);
        bins[bin] = bins[bin].min(v);
        if n < FEW {
            full[n] = bin;
        }
        n += 1;
    }
    // A set of a few shingles fills a few bins, and probing for them takes about k / n steps
    // an empty bin (a 1-shingle text: 344,000 over 168 bins, 0.25 ms); the table of first hits
    // gives the same bins in n steps.
    if n <= FEW && bins.len() == MIN_BINS && filled.len() <= MAX_USED {
        for (i, f) in filled.iter_mut().enumerate() {
            *f = if bins[i] != u64::MAX {
                bins[i]
            } else {
                let hits = first_hits(i);
                bins[*full[..n].iter().min_by_key(|&&j| hits[j]).expect("a non-empty set")]
            };
        }
        return;
    }
    for (i, f) in filled.iter_mut().enumerate() {
        *f = if bins[i] != u64::MAX {
            bins[i]
        } else {
            // The probe sequence of bin i: the same for every text, so two texts take the
            // same bin's value unless one of them has an earlier non-empty bin.
            let mut t = 1u64;
            loop {
                let j = probe(i, t, k);
                if bins[j] != u64::MAX {
                    break bins[j];
                }
                t += 1;
            }
        };
    }
}

/// Sets of at most this many shingles take their empty bins from [`first_hits`]: its cost
/// (a set's bins a bin) meets probing's (`MIN_BINS` / the set's bins a bin) at about 45.
const FEW: usize = 32;
/// The most bins a plan reads (`plan.rs`: `r·b` is at most 384).
const MAX_USED: usize = 384;

/// A shingle hash's remix and the one of `k` bins it falls in.
#[inline]
fn remix(h: u64, k: u64) -> (u64, usize) {
    let v = mix(h ^ BIN_SEED);
    (v, (((v >> 32) * k) >> 32) as usize)
}

/// Step `t` of bin `i`'s probe sequence over `k` bins.
#[inline]
fn probe(i: usize, t: u64, k: u64) -> usize {
    (((mix(PROBE_SEED ^ ((i as u64) << 32) ^ t) >> 32) * k) >> 32) as usize
}

/// For an empty bin `i < MAX_USED`, the step at which its probe sequence first reaches each of
/// the `MIN_BINS` bins, so that the non-empty bin it takes is the one reached first. Made on
/// first use, 8 kB a bin (1.3 MB for the 168 bins read at θ = 0.5), about 16,000 steps each.
fn first_hits(i: usize) -> &'static [u32] {
    static ROWS: [OnceLock<Box<[u32]>>; MAX_USED] = [const { OnceLock::new() }; MAX_USED];
    ROWS[i].get_or_init(|| {
        let mut hits = vec![0u32; MIN_BINS];
        let (mut seen, mut t) = (0, 0u64);
        while seen < MIN_BINS {
            t += 1;
            let j = probe(i, t, MIN_BINS as u64);
            if hits[j] == 0 {
                // Steps stay far below u32::MAX: the last bin is reached after about
                // 2,048 · ln 2,048 ≈ 16,000 of them.
                hits[j] = t as u32;
                seen += 1;
            }
        }
        hits.into_boxed_slice()
    })
}

/// Appends the `b` band keys of a signature to `keys`.
pub(super) fn band_keys(filled: &[u64], plan: &Plan, keys: &mut Vec<u32>) {
    for (j, band) in filled[..plan.r * plan.b].chunks(plan.r).enumerate() {
        let h = band.iter().fold(mix(BAND_SEED ^ j as u64), |acc, &v| mix(acc ^ v));
        keys.push((h >> 32) as u32);
    }
}

/// Appends a row's record to `out`: the number of its distinct figures (u32, little-endian),
/// their hashes ascending (u64 each), then its normalized text (UTF-8). The normalized text's
/// kept characters make the shingles again, and the dedup decision reads it whole
/// (`crate::decision`: punctuation tells where sentences end); the figures cannot be made of
/// the kept characters (a figure's `.` or `,` is not kept), so they are written (measure 2;
/// none under measure 1). The normalized text is about the text's own size: 1.06 times the
/// kept characters of People's Daily's paragraphs.
pub(super) fn record(figures: &[u64], normalized: &[u8], out: &mut Vec<u8>) {
    out.extend_from_slice(&(figures.len() as u32).to_le_bytes());
    out.extend(figures.iter().flat_map(|h| h.to_le_bytes()));
    out.extend_from_slice(normalized);
}

/// A record's normalized text; None for a record that is not one.
pub(super) fn text_of_record(record: &[u8]) -> Option<&str> {
    let n = u32::from_le_bytes(record.get(..4)?.try_into().ok()?) as usize;
    let figures_end = 4usize.checked_add(n.checked_mul(8)?)?;
    std::str::from_utf8(record.get(figures_end..)?).ok()
}

/// A record's sets under `version` (as `measure::Sets::of` makes them from the text); `tick`
/// every 2^16 characters. None for a record that is not one.
pub(super) fn sets_of_record(record: &[u8], version: Version, tick: &mut dyn FnMut()) -> Option<Sets> {
    let n = u32::from_le_bytes(record.get(..4)?.try_into().ok()?) as usize;
    let figures_end = 4usize.checked_add(n.checked_mul(8)?)?;
    let figures = record
        .get(4..figures_end)?
        .chunks_exact(8)
        .map(|b| u64::from_le_bytes(b.try_into().expect("8 bytes")))
        .collect();
    let normalized = std::str::from_utf8(record.get(figures_end..)?).ok()?;
    let mut window = Window::default();
    let mut shingles = Vec::with_capacity(normalized.len() / 2);
    for (n, c) in normalized.chars().filter_map(|c| version.kept(c)).enumerate() {
        if let Some(h) = window.push(c) {
            shingles.push(h);
        }
        if n & 0xFFFF == 0xFFFF {
            tick();
        }
    }
    shingles.extend(window.finish());
    shingles.sort_unstable();
    shingles.dedup();
    Some(Sets { shingles, figures })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::similarity::bulk::plan::plan;

    #[test]
    fn records_make_the_measures_sets() {
        let p = plan(0.5).expect("a plan");
        for v in [Version::M1, Version::M2] {
            let mut s = Sketcher::new(p, v);
            for text in ["", "，。", "abc", "新华社北京1月1日电 Hello, World! ｶﾞｲﾄﾞ 3.5", "中国经济发展新闻报道"]
            {
                let (mut kept, mut keys, mut codes) = (Vec::new(), Vec::new(), Vec::new());
                let sum = s.sketch(text, &mut kept, &mut keys, &mut codes, &mut || ());
                let want = Sets::of(text, v, &mut || ());
                assert_eq!(sets_of_record(&kept, v, &mut || ()).as_ref(), Some(&want), "{text}");
                assert_eq!(sum.size as usize, want.shingles.len());
                assert_eq!((keys.len(), codes.len()), (p.b, CODES / 32));
            }
        }
    }

    /// The probing of the module docs, bin by bin: what `signature` must give.
    fn probed(set: &[u64], k: usize, used: usize) -> Vec<u64> {
        let mut bins = vec![u64::MAX; k];
        for &h in set {
            let (v, bin) = remix(h, k as u64);
            bins[bin] = bins[bin].min(v);
        }
        let probing = |i| (1..).map(|t| bins[probe(i, t, k as u64)]).find(|&v| v != u64::MAX);
        (0..used).map(|i| if bins[i] != u64::MAX { bins[i] } else { probing(i).expect("a non-empty set") }).collect()
    }

    #[test]
    fn first_hits_give_the_probed_bins() {
        // Sets of 1 to 40 shingles (the table's up to 32, probing's above), as many bins as
        // θ = 0.5 and the most any plan reads, and 1,024 bins (probing only).
        for (k, used) in [(MIN_BINS, 168), (MIN_BINS, MAX_USED), (1024, 159)] {
            let (mut bins, mut filled) = (vec![0; k], vec![0; used]);
            for size in 1..=40u64 {
                for d in 0..20u64 {
                    let set: Vec<u64> = (0..size).map(|i| mix((size << 40) ^ (d << 20) ^ i)).collect();
                    signature(&set, &mut bins, &mut filled);
                    assert_eq!(filled, probed(&set, k, used), "{k} bins, {size} shingles, draw {d}");
                }
            }
        }
    }

    #[test]
    fn bins_are_equal_with_probability_j() {
        // Two sets of 60 sharing 40 (J = 0.5), 400 draws of fresh elements: the share of equal
        // bins over 159 bins and 400 draws is 0.5 within 0.02.
        let bins = 159;
        let (mut eq, mut all) = (0usize, 0usize);
        let (mut ba, mut fa, mut bb, mut fb) = (vec![0; 1024], vec![0; bins], vec![0; 1024], vec![0; bins]);
        for d in 0..400u64 {
            let common: Vec<u64> = (0..40).map(|i| mix((d << 20) + i)).collect();
            let mut a: Vec<u64> = common.iter().copied().chain((0..20).map(|i| mix((d << 20) + 1000 + i))).collect();
            let mut b: Vec<u64> = common.iter().copied().chain((0..20).map(|i| mix((d << 20) + 2000 + i))).collect();
            a.sort_unstable();
            b.sort_unstable();
            signature(&a, &mut ba, &mut fa);
            signature(&b, &mut bb, &mut fb);
            eq += fa.iter().zip(&fb).filter(|(x, y)| x == y).count();
            all += bins;
        }
        let share = eq as f64 / all as f64;
        assert!((share - 0.5).abs() < 0.02, "{share}");
    }
}
