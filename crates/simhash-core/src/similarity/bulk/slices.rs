//! Bulk pairs across many shards by band ranges (`super`; docs/scaling-out.md, "Bulk pairs
//! across many shards"), the MapReduce form of LSH (Leskovec, Rajaraman and Ullman, *Mining
//! of Massive Datasets*, ch. 3): shard `s` of `S` owns the bands [`band_range`] gives it, about
//! `b/S` of them. Each document's band keys ([`super::row_keys`]) are cut on its home shard
//! into the slice of each shard ([`slice`]): that shard's bands, the 128 codes and the set
//! size. A shard reads its slice of every document of every shard and finds the collisions
//! of its bands ([`Candidates`]) under one node's filters (codes, length bound), each pair in
//! its first band of the range. A pair colliding in the bands of several shards comes from
//! each; the home shard of its lower id removes the repeats, fetches the other text and
//! measures. Every pair one node's run finds (the same keys, the same filters) is thus a
//! candidate of some shard, and a shard's work falls as `1/S` but for reading the `N`
//! slices: `54 + 4·b/S` bytes each (68 at 16 shards and θ = 0.5, against 270 for all keys).
//! Measured (`tests/bench/sharded_pairs.sh`, 1M texts, θ = 0.5): the slowest of 3 shards took
//! 0.25 of one node's run (2.9 s candidates, 5.6 s measures), where every-two-shards-meet band
//! keys took 0.50; one shard of 16, modelled over a postgres_fdw loopback, 0.09.
//!
//! The bytes of a slice (little-endian), a contract like the band keys:
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | `SMBS` |
//! | 1 | format, 1 |
//! | 1 | the measure's version number |
//! | 1 | `r`, values per band |
//! | 1 | 0 |
//! | 2 | `b`, bands of the plan |
//! | 2 | the slice's first band |
//! | 2 | the slice's bands, `n` |
//! | 4 | the home shard of the document |
//! | 4 | the set size |
//! | 32 | 128 two-bit codes, 4 u64 |
//! | 4·n | band keys |

use super::bands::filters_pass;
use super::exchange;
use super::plan::{plan, Plan, CODES};
use super::radix::sort_high;
use crate::bulk::Ticker;
use crate::similarity::shingles::Version;

const MAGIC: &[u8; 4] = b"SMBS";
const FORMAT: u8 = 1;
const HEAD: usize = 4 + 4 + 2 + 2 + 2 + 4 + 4;
const CODE_BYTES: usize = CODES / 4;
/// The work of one band collision (a candidate looked at), in [`crate::bulk::Ticker`]'s units:
/// the caller's check comes every 2^12 collisions.
const COLLISION: u64 = 1 << 8;

/// The bands shard `shard` of `shards` owns among `b`: `[⌊shard·b/shards⌋, ⌊(shard+1)·b/shards⌋)`,
/// empty for some shards when there are more shards than bands.
pub fn band_range(b: usize, shard: usize, shards: usize) -> std::ops::Range<usize> {
    shard * b / shards..(shard + 1) * b / shards
}

/// Shard `shard`'s slice of a document's band keys `keys` ([`super::row_keys`]), the
/// document living on shard `home`, of `shards` (0 ≤ `shard`, `home` < `shards`).
pub fn slice(keys: &[u8], home: u32, shard: usize, shards: usize) -> Result<Vec<u8>, String> {
    if shard >= shards || home as usize >= shards {
        return Err(format!("shard {shard} and home {home} must be below the shards, {shards}"));
    }
    let f = exchange::fields(keys)?;
    let range = band_range(f.b, shard, shards);
    let mut out = Vec::with_capacity(HEAD + CODE_BYTES + 4 * range.len());
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[FORMAT, f.version, f.r, 0]);
    for v in [f.b, range.start, range.len()] {
        out.extend_from_slice(&(v as u16).to_le_bytes());
    }
    out.extend_from_slice(&home.to_le_bytes());
    out.extend_from_slice(&f.size.to_le_bytes());
    out.extend_from_slice(f.codes);
    out.extend_from_slice(&f.keys[4 * range.start..4 * range.end]);
    Ok(out)
}

/// One shard's collisions over the slices of its bands (module docs): rows pushed, then
/// candidates pulled.
pub struct Candidates {
    plan: Plan,
    theta: f64,
    version: Version,
    /// The first band and the number of bands, from the first row.
    range: Option<(u16, usize)>,
    ids: Vec<i64>,
    homes: Vec<u32>,
    sizes: Vec<u32>,
    /// Row x's codes are `codes[x·4..(x+1)·4]`.
    codes: Vec<u64>,
    /// Row x's keys are `keys[x·n..(x+1)·n]`.
    keys: Vec<u32>,
}

/// A candidate: the home shard of the lower id, the lower id, the higher one.
pub type Candidate = (u32, i64, i64);

impl Candidates {
    /// A run at `theta` under `version`; an error below θ = 0.3 (no band keys).
    pub fn new(theta: f64, version: Version) -> Result<Candidates, String> {
        let plan = plan(theta).ok_or("no band keys below similarity 0.3")?;
        Ok(Candidates {
            plan,
            theta,
            version,
            range: None,
            ids: Vec::new(),
            homes: Vec::new(),
            sizes: Vec::new(),
            codes: Vec::new(),
            keys: Vec::new(),
        })
    }

    /// Bytes held per row: id 8, home 4, size 4, codes 32, keys `4·n`.
    pub fn bytes_per_row(&self) -> usize {
        48 + 4 * self.range.map_or(0, |r| r.1)
    }

    pub fn rows(&self) -> usize {
        self.ids.len()
    }

    /// Adds a document's slice ([`slice`]); an error if the bytes are no slice, or of another
    /// plan, version or band range than this run's and its first row's.
    pub fn push(&mut self, id: i64, bytes: &[u8]) -> Result<(), String> {
        let u16_at = |i: usize| bytes.get(i..i + 2).map(|s| u16::from_le_bytes([s[0], s[1]]));
        let (Some(b), Some(first), Some(n)) = (u16_at(8), u16_at(10), u16_at(12)) else {
            return Err("not a band slice (too short)".into());
        };
        let n = n as usize;
        if bytes.len() != HEAD + CODE_BYTES + 4 * n || &bytes[..4] != MAGIC || bytes[4] != FORMAT {
            return Err(format!("not a band slice (format {FORMAT})"));
        }
        let (p, v) = (&self.plan, self.version.number());
        if bytes[5] != v || bytes[6] as usize != p.r || b as usize != p.b {
            return Err(format!(
                "a slice of measure {} with {b} bands of {}, where this run has measure {v} with {} of {}",
                bytes[5], bytes[6], p.b, p.r
            ));
        }
        match self.range {
            None => self.range = Some((first, n)),
            Some(r) if r != (first, n) => {
                return Err(format!(
                    "a slice of bands {first}..{}, where this run's first row has bands {}..{}",
                    first as usize + n,
                    r.0,
                    r.0 as usize + r.1
                ))
            }
            Some(_) => {}
        }
        let u32_at = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().expect("4 bytes"));
        let size = u32_at(18);
        if size == 0 {
            return Err("a slice of a text without shingles".into());
        }
        self.ids.push(id);
        self.homes.push(u32_at(14));
        self.sizes.push(size);
        let codes = &bytes[HEAD..HEAD + CODE_BYTES];
        self.codes.extend(codes.chunks_exact(8).map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes"))));
        self.keys.extend((0..n).map(|k| u32_at(HEAD + CODE_BYTES + 4 * k)));
        Ok(())
    }

    /// The candidates, band by band; `check` is called every few thousand collisions and
    /// between blocks of a band's sort (to cancel, it unwinds).
    pub fn run(self, check: Box<dyn FnMut()>) -> Run {
        let n = self.range.map_or(0, |r| r.1);
        Run { c: self, n, band: 0, entries: Vec::new(), a: 0, y: 0, e: 0, check, work: Ticker::default() }
    }

    /// Whether a collision of rows `x < y` in band `k` of the slice is a candidate: two ids,
    /// and one node's filters with the slice's earlier bands.
    fn candidate(&self, x: usize, y: usize, k: usize, n: usize) -> bool {
        let w = CODES / 32;
        self.ids[x] != self.ids[y]
            && filters_pass(
                [&self.codes[x * w..x * w + w], &self.codes[y * w..y * w + w]],
                [&self.keys[x * n..x * n + k], &self.keys[y * n..y * n + k]],
                [self.sizes[x], self.sizes[y]],
                &self.plan,
                self.theta,
            )
    }
}

/// The candidates of a [`Candidates`] run, as an iterator.
pub struct Run {
    c: Candidates,
    n: usize,
    /// Bands sorted so far; the current one is `band - 1`.
    band: usize,
    /// The current band's `(key, row)` entries, sorted on the key.
    entries: Vec<u64>,
    /// The current pair `(entries[a], entries[y])` in the run of equal keys ending at `e`.
    a: usize,
    y: usize,
    e: usize,
    check: Box<dyn FnMut()>,
    /// Collisions since the last check.
    work: Ticker,
}

impl Run {
    /// Sorts the next band's entries; false when no band is left.
    fn next_band(&mut self) -> bool {
        if self.band == self.n {
            return false;
        }
        let (n, k) = (self.n, self.band);
        self.entries.clear();
        self.entries.extend((0..self.c.rows()).map(|x| (u64::from(self.c.keys[x * n + k]) << 32) | x as u64));
        let check = &mut self.check;
        sort_high(&mut self.entries, &mut Vec::new(), &mut || check());
        self.band += 1;
        (self.a, self.y, self.e) = (0, 0, 0);
        true
    }

    /// Moves to the next pair of equal keys of the current band; false at its end.
    fn step(&mut self) -> bool {
        if self.y + 1 < self.e {
            self.y += 1;
            return true;
        }
        if self.a + 2 < self.e {
            self.a += 1;
            self.y = self.a + 1;
            return true;
        }
        let v = &self.entries;
        let mut s = self.e;
        while s < v.len() {
            let key = v[s] >> 32;
            let e = s + v[s..].iter().take_while(|&&x| x >> 32 == key).count();
            if e - s >= 2 {
                (self.a, self.y, self.e) = (s, s + 1, e);
                return true;
            }
            s = e;
        }
        (self.a, self.y, self.e) = (v.len(), v.len(), v.len());
        false
    }
}

impl Iterator for Run {
    type Item = Candidate;

    fn next(&mut self) -> Option<Candidate> {
        loop {
            if !self.step() {
                if !self.next_band() {
                    return None;
                }
                continue;
            }
            // Rows ascend within a key (a stable sort of ascending rows): x < y.
            let (x, y) = (self.entries[self.a] as u32 as usize, self.entries[self.y] as u32 as usize);
            let check = &mut self.check;
            self.work.add(COLLISION, &mut |_| check());
            if self.c.candidate(x, y, self.band - 1, self.n) {
                let (ix, iy) = (self.c.ids[x], self.c.ids[y]);
                return Some(if ix < iy { (self.c.homes[x], ix, iy) } else { (self.c.homes[y], iy, ix) });
            }
        }
    }
}
