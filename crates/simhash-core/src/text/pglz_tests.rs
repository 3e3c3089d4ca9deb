use super::*;
use proptest::prelude::*;

/// A plain encoder of the format, for the round trip: at each position the longest match
/// in the last 4,095 bytes (3–273 bytes, overlapping allowed), else a literal. Brute force;
/// PostgreSQL's own encoder is checked against `decompress` on a server
/// (tests/pg_regress/sql/fingerprints/stored.sql).
fn encode(raw: &[u8]) -> Vec<u8> {
    let mut out = Vec::new();
    let (mut i, mut control_at, mut bit) = (0usize, 0usize, 8u32);
    while i < raw.len() {
        if bit == 8 {
            control_at = out.len();
            out.push(0);
            bit = 0;
        }
        let (mut best_len, mut best_off) = (0usize, 0usize);
        for off in 1..=i.min(4095) {
            let mut len = 0;
            while len < 273 && i + len < raw.len() && raw[i + len] == raw[i + len - off] {
                len += 1;
            }
            if len > best_len {
                (best_len, best_off) = (len, off);
            }
        }
        if best_len >= 3 {
            out[control_at] |= 1 << bit;
            if best_len >= 18 {
                out.push((((best_off >> 8) << 4) | 0x0f) as u8);
                out.push((best_off & 0xff) as u8);
                out.push((best_len - 18) as u8);
            } else {
                out.push((((best_off >> 8) << 4) | (best_len - 3)) as u8);
                out.push((best_off & 0xff) as u8);
            }
            i += best_len;
        } else {
            out.push(raw[i]);
            i += 1;
        }
        bit += 1;
    }
    out
}

fn plain(src: &[u8], raw_size: usize) -> Result<Vec<u8>, Corrupt> {
    decompress(src, raw_size, &mut || {})
}

#[test]
fn literals_and_an_overlapping_copy() {
    // 'a' 'b', then a tag: offset 2, length 7 ("abababa"), then 'c'.
    let src = [0b0000_0100, b'a', b'b', 0x04, 0x02, b'c'];
    assert_eq!(plain(&src, 10).unwrap(), b"ababababac");
}

#[test]
fn a_long_tag_reads_its_third_byte() {
    // 'x', then offset 1 with length 18 + 200.
    let src = [0b0000_0010, b'x', 0x0f, 0x01, 200];
    assert_eq!(plain(&src, 219).unwrap(), vec![b'x'; 219]);
}

#[test]
fn corrupt_inputs_are_refused() {
    // An offset of 0, and one further back than the output.
    assert_eq!(plain(&[0b0000_0010, b'a', 0x00, 0x00], 4), Err(Corrupt));
    assert_eq!(plain(&[0b0000_0010, b'a', 0x00, 0x02], 4), Err(Corrupt));
    // A tag cut short, and a long tag without its third byte.
    assert_eq!(plain(&[0b0000_0010, b'a', 0x00], 4), Err(Corrupt));
    assert_eq!(plain(&[0b0000_0010, b'a', 0x0f, 0x01], 30), Err(Corrupt));
    // Too little output for the raw size, and input left over once it is complete.
    assert_eq!(plain(&[0, b'a', b'b'], 3), Err(Corrupt));
    assert_eq!(plain(&[0, b'a', b'b', b'c'], 2), Err(Corrupt));
    // A copy longer than the raw size is cut to it, as PostgreSQL does.
    assert_eq!(plain(&[0b0000_0010, b'a', 0x0f, 0x01, 100], 5).unwrap(), b"aaaaa");
}

#[test]
fn ticks_once_a_tick_of_output() {
    let raw: Vec<u8> = (0..5 * TICK_BYTES + 3000).map(|i| (i % 251) as u8).collect();
    let src = encode(&raw[..]);
    let mut ticks = 0;
    assert_eq!(decompress(&src, raw.len(), &mut || ticks += 1).unwrap(), raw);
    // A tick after each full TICK_BYTES written.
    assert_eq!(ticks, 5);
}

proptest! {
    #[test]
    fn round_trip(words in proptest::collection::vec(0usize..12, 0..400), seed in any::<u8>()) {
        // Texts with repeats near and far, some past the 273-byte longest copy.
        let vocab = ["中共中央", "新年", "the ", "、", "aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", "1998",
            "讲话。", "x", "\n", "——", "zz", "国家主席江泽民"];
        let mut raw = vec![seed];
        for w in words {
            raw.extend_from_slice(vocab[w].as_bytes());
        }
        let src = encode(&raw);
        prop_assert_eq!(plain(&src, raw.len()).unwrap(), raw);
    }
}
