//! PostgreSQL's pglz format, decompressed with a tick every `TICK_BYTES` of output, so that
//! a long stored text can be cancelled while it is read (issue 55, item 4).
//!
//! Hand-written because no crate reads pglz, and PostgreSQL's own `pglz_decompress` runs
//! to the end without a check for interrupts: 0.2–1.2 s for the 31 MB of a 47 MB text here,
//! by the machine's load (docs/fingerprints.md, "Memory and cancellation").
//!
//! The format (PostgreSQL's `src/common/pg_lzcompress.c` describes it; written here from that
//! description): a control byte, then eight items that its bits describe from the lowest.
//! A clear bit is one literal byte. A set bit is a tag of two or three bytes: the first
//! byte's low nibble plus 3 is the length (18 means a third byte follows, added to it), and
//! its high nibble with the second byte is the offset back into the output (1–4095). A
//! copy may overlap the bytes it writes, which repeats them.

/// Output between two ticks: a few milliseconds of decompressing (PostgreSQL's detoast and
/// `md5` of the 47 MB text take 0.3 s here).
pub const TICK_BYTES: usize = 1 << 20;

/// The compressed data does not describe `raw_size` bytes: PostgreSQL says "compressed pglz
/// data is corrupt" (XX001) for the same input.
#[derive(Debug, PartialEq, Eq)]
pub struct Corrupt;

/// The `raw_size` bytes that `src` decompresses to. As PostgreSQL's full detoast does, the
/// input must end exactly where the output is complete. `tick` runs every `TICK_BYTES` of
/// output, to check for cancellation.
pub fn decompress(src: &[u8], raw_size: usize, tick: &mut dyn FnMut()) -> Result<Vec<u8>, Corrupt> {
    let mut out = vec![0u8; raw_size];
    let (mut sp, mut dp) = (0usize, 0usize);
    let mut next_tick = TICK_BYTES;
    while sp < src.len() && dp < raw_size {
        if dp >= next_tick {
            tick();
            next_tick += TICK_BYTES;
        }
        let mut control = src[sp];
        sp += 1;
        for _ in 0..8 {
            if sp >= src.len() || dp >= raw_size {
                break;
            }
            if control & 1 == 0 {
                out[dp] = src[sp];
                (sp, dp) = (sp + 1, dp + 1);
            } else {
                let (first, second) = (src[sp] as usize, *src.get(sp + 1).ok_or(Corrupt)? as usize);
                sp += 2;
                let mut len = (first & 0x0f) + 3;
                let off = ((first & 0xf0) << 4) | second;
                if len == 18 {
                    len += *src.get(sp).ok_or(Corrupt)? as usize;
                    sp += 1;
                }
                if off == 0 || off > dp {
                    return Err(Corrupt);
                }
                let len = len.min(raw_size - dp);
                if off >= len {
                    out.copy_within(dp - off..dp - off + len, dp);
                } else {
                    // Overlapping: each byte copied may be one this copy wrote.
                    for i in dp..dp + len {
                        out[i] = out[i - off];
                    }
                }
                dp += len;
            }
            control >>= 1;
        }
    }
    if dp != raw_size || sp != src.len() {
        return Err(Corrupt);
    }
    Ok(out)
}

#[cfg(test)]
#[path = "pglz_tests.rs"]
mod tests;
