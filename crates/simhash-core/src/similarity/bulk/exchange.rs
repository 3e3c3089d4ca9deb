//! A row's band keys as bytes, for bulk runs over shards (`super`): a shard sends a text's
//! keys, codes and set size instead of the text, another shard's run takes it as a foreign
//! row ([`super::BulkPairs::push_foreign`]) and hands back its candidates with local rows
//! unmeasured; the caller fetches the foreign text and measures those few.
//!
//! The bytes (all little-endian), a contract like the keys themselves (seeds in `sketch.rs`):
//!
//! | bytes | what |
//! | --- | --- |
//! | 4 | `SMBK` |
//! | 1 | format, 1 |
//! | 1 | the measure's version number (1 or 2) |
//! | 1 | `r`, values per band |
//! | 1 | 0 |
//! | 2 | `b`, bands |
//! | 4 | the set size (distinct shingles, at least 1) |
//! | 4·b | band keys |
//! | 32 | 128 two-bit codes, 4 u64 |
//!
//! (46 + 4·b bytes: 270 at θ = 0.5.) Two runs exchange rows only under the same plan (θ
//! gives it) and version.

use super::plan::{plan, Plan, CODES};
use super::sketch::Sketcher;
use crate::similarity::shingles::Version;

const MAGIC: &[u8; 4] = b"SMBK";
const FORMAT: u8 = 1;
const HEAD: usize = 4 + 4 + 2 + 4;

/// A foreign row as a run holds it until the bands.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct ForeignRow {
    pub id: i64,
    pub size: u32,
    pub keys: Vec<u32>,
    pub codes: [u64; CODES / 32],
}

/// The bytes of `text`'s band keys for a run at `theta` under `version` (module docs); None
/// below θ = 0.3 (no banding) or for a text without shingles (in no pair).
pub fn row_keys(text: &str, version: Version, theta: f64) -> Option<Vec<u8>> {
    let p = plan(theta)?;
    let (mut kept, mut keys, mut codes) = (Vec::new(), Vec::new(), Vec::new());
    let sum = Sketcher::new(p, version).sketch(text, &mut kept, &mut keys, &mut codes, &mut || ());
    if sum.size == 0 {
        return None;
    }
    let mut out = Vec::with_capacity(HEAD + 4 * p.b + CODES / 4);
    out.extend_from_slice(MAGIC);
    out.extend_from_slice(&[FORMAT, version.number(), p.r as u8, 0]);
    out.extend_from_slice(&(p.b as u16).to_le_bytes());
    out.extend_from_slice(&sum.size.to_le_bytes());
    keys.iter().for_each(|k| out.extend_from_slice(&k.to_le_bytes()));
    codes.iter().for_each(|c| out.extend_from_slice(&c.to_le_bytes()));
    Some(out)
}

/// `text`'s `b` band keys under `plan` and `version`, or None for a text without shingles
/// (no band; a measure of 0 with every text). `tick` runs as the shingles are read.
pub fn band_keys_of(text: &str, version: Version, plan: Plan, tick: &mut dyn FnMut()) -> Option<Vec<u32>> {
    let (mut kept, mut keys, mut codes) = (Vec::new(), Vec::new(), Vec::new());
    let sum = Sketcher::new(plan, version).sketch(text, &mut kept, &mut keys, &mut codes, tick);
    (sum.size > 0).then_some(keys)
}

/// The fields of a row's band keys, as they are, checked against no plan.
pub(super) struct Fields<'a> {
    pub version: u8,
    pub r: u8,
    pub b: usize,
    pub size: u32,
    /// `4·b` bytes.
    pub keys: &'a [u8],
    /// `CODES / 4` bytes.
    pub codes: &'a [u8],
}

/// The fields of `bytes`; an error if they are no row's band keys.
pub(super) fn fields(bytes: &[u8]) -> Result<Fields<'_>, String> {
    let no = || format!("not a row's band keys (format {FORMAT})");
    if bytes.len() < HEAD || &bytes[..4] != MAGIC || bytes[4] != FORMAT {
        return Err(no());
    }
    let b = u16::from_le_bytes([bytes[8], bytes[9]]) as usize;
    if bytes.len() != HEAD + 4 * b + CODES / 4 {
        return Err(no());
    }
    let size = u32::from_le_bytes(bytes[10..14].try_into().expect("4 bytes"));
    if size == 0 {
        return Err("band keys of a text without shingles".into());
    }
    let (keys, codes) = bytes[HEAD..].split_at(4 * b);
    Ok(Fields { version: bytes[5], r: bytes[6], b, size, keys, codes })
}

/// A foreign row from `bytes`, checked against the run's plan and version (id 0).
pub(super) fn parse(bytes: &[u8], p: &Plan, version: Version) -> Result<ForeignRow, String> {
    let f = fields(bytes)?;
    if f.version != version.number() || f.r as usize != p.r || f.b != p.b {
        return Err(format!(
            "band keys of measure {} with {} bands of {}, where this run has measure {} with {} of {}",
            f.version,
            f.b,
            f.r,
            version.number(),
            p.b,
            p.r
        ));
    }
    let keys = f.keys.chunks_exact(4).map(|k| u32::from_le_bytes(k.try_into().expect("4 bytes"))).collect();
    let codes = std::array::from_fn(|i| u64::from_le_bytes(f.codes[8 * i..8 * i + 8].try_into().expect("8 bytes")));
    Ok(ForeignRow { id: 0, size: f.size, keys, codes })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bytes_round_trip_and_are_checked() {
        let p = plan(0.5).expect("a plan");
        let bytes = row_keys("新华社北京一月一日电，今天是新年第一天。", Version::M2, 0.5).expect("keys");
        assert_eq!(bytes.len(), 46 + 4 * p.b);
        let row = parse(&bytes, &p, Version::M2).expect("parsed");
        assert_eq!(row.keys.len(), p.b);
        assert!(parse(&bytes, &p, Version::M1).is_err());
        assert!(parse(&bytes, &plan(0.8).expect("a plan"), Version::M2).is_err());
        assert!(parse(&bytes[1..], &p, Version::M2).is_err());
        assert_eq!(row_keys("，。", Version::M2, 0.5), None);
        assert_eq!(row_keys("abc", Version::M2, 0.2), None);
    }
}
