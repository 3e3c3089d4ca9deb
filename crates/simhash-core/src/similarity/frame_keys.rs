//! Frame keys: the index keys of a table's template, learned from its rows, and the lookup that
//! does not read a template's rows by them (issue 55).
//!
//! A table full of one template ("… Interface Attribute Value %s() Thread safety MT-Safe", one
//! function name a row) gives every row the frame's shingles, so every row holds most of a new
//! row's keys and passes any lookup: an insert reads the whole frame, and its cost grows with
//! the table. The keys most of those rows hold are the *frame keys*; a row's own content (the
//! slot's filler) makes the others, the *free* keys.
//!
//! A framed lookup asks a row for what the lookup asks ([`Lookup::required`] of its keys), and
//! also for [`FREE_KEYS`] free keys of the query: a frame-mate with another filler shares none
//! (but by an 18-bit collision), while a copy of the row shares the filler's keys. The index is
//! asked for the free keys alone, whose posting lists are short ([`Framed::index_lookup`]), and
//! the recheck tests the rest, so an insert no longer reads the frame.
//!
//! A query none of whose keys is free (its sketch drew none of its filler's shingles: about 1%
//! of the rows) asks a row for *every* key instead: a copy of it has the same sketch,
//! and few frame-mates do (those whose sketches drew no filler either).
//!
//! What this costs is recall on rows that share a text's frame and are near it but hold none
//! of its free keys: measured by `examples/template_lookup` against the unframed lookup.

use super::lookup::Lookup;

/// Candidates a check must read, with none the decision kept, before their frame is learned:
/// fewer are read cheaply whatever they are.
pub const LEARN_FROM: usize = 64;

/// The most candidates a frame is learned from: their keys are made once (about 20 µs each).
pub const LEARN_AT_MOST: usize = 1024;

/// The share of those candidates a key must be held by to be a frame key. Measured on issue
/// 55's template (`examples/template_lookup`, 20,000 rows): 20 keys are held by 10% of the rows
/// or more (frame shingles), 24 by 2.5% to 4% (a frame shingle and a filler's first or last
/// letter: 1/26 of the rows each), then none above 0.5% (two letters: 1/676).
pub const FRAME_SHARE: f64 = 0.02;

/// Free keys a framed lookup asks a row for (fewer when the query has fewer): one is not
/// enough, since an 18-bit key is held by about 13 rows of 100,000 unrelated ones by chance,
/// and a frame-mate holds every other key asked for.
pub const FREE_KEYS: usize = 2;

/// The frame keys of `rows` (each row's index keys, ascending, distinct): the keys at least
/// [`FRAME_SHARE`] of them hold, and two rows at least, ascending; none when fewer than
/// [`LEARN_FROM`] rows are given. A bulk run learns its templates' frame shingles by the same
/// rule (`bulk::templates`).
pub fn learn<K: Ord + Copy>(rows: &[Vec<K>]) -> Vec<K> {
    if rows.len() < LEARN_FROM {
        return Vec::new();
    }
    let mut all: Vec<K> = rows.iter().flatten().copied().collect();
    all.sort_unstable();
    let least = ((FRAME_SHARE * rows.len() as f64).ceil() as usize).max(2);
    all.chunk_by(|a, b| a == b).filter(|run| run.len() >= least).map(|run| run[0]).collect()
}

/// Whether a row passes a lookup of `n` keys of which it must hold `required`, given which it
/// holds (`held(i)` for key `i`), framed (its first `free` keys off the frame): also
/// [`FREE_KEYS`] free ones (fewer if it has fewer, or asks for fewer keys in all), or every key
/// when none is free.
pub fn passes(n: usize, required: usize, free: usize, held: impl Fn(usize) -> bool) -> bool {
    let all = (0..n).filter(|&i| held(i)).count();
    all >= required
        && match free {
            0 => all == n,
            f => (0..f).filter(|&i| held(i)).count() >= FREE_KEYS.min(f).min(required.max(1)),
        }
}

/// A lookup and a frame: its keys with the free ones first.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Framed {
    /// The lookup, its keys reordered: `keys[..free]` are off the frame.
    pub lookup: Lookup,
    /// How many of the keys are free (off the frame).
    pub free: usize,
}

impl Framed {
    /// `l` with the frame `frame` (ascending); a lookup that reads every row stays one.
    pub fn of(l: Lookup, frame: &[i32]) -> Framed {
        let (mut free, bound): (Vec<i32>, Vec<i32>) = l.keys.iter().partition(|k| frame.binary_search(k).is_err());
        let n = free.len();
        free.extend(bound);
        Framed { lookup: Lookup { keys: free, ..l }, free: n }
    }

    /// What the index is asked for: the free keys, of which a row must hold as many as
    /// [`passes`] asks (every key when none is free). Every row that passes holds them; the
    /// recheck ([`Framed::keeps`]) tests the rest. The frame keys' posting lists, which hold most
    /// of the table, are not read at all: asked for as GIN's "additional" entries (skipped but
    /// for a leaf page each), a new row of the frame took 4.5 ms an insert into 100,000 rows of
    /// it, 3.7 times one into unrelated rows; asked for as here, 0.38 ms, 0.28 times
    /// (`tests/bench/template_inserts.sh`).
    pub fn index_lookup(&self) -> Lookup {
        let l = &self.lookup;
        if l.scan_all || self.free == 0 {
            return Lookup { required: l.keys.len().max(1), ..l.clone() };
        }
        let mut keys = l.keys[..self.free].to_vec();
        keys.sort_unstable();
        Lookup { keys, required: FREE_KEYS.min(self.free).min(l.required.max(1)), scan_all: false }
    }

    /// Whether a row whose index keys are `row` (ascending) passes.
    pub fn keeps(&self, row: &[i32]) -> bool {
        let l = &self.lookup;
        l.scan_all || passes(l.keys.len(), l.required, self.free, |i| row.binary_search(&l.keys[i]).is_ok())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn rng(seed: &mut u64) -> u64 {
        *seed ^= *seed << 13;
        *seed ^= *seed >> 7;
        *seed ^= *seed << 17;
        *seed
    }

    #[test]
    fn learns_the_keys_most_rows_hold() {
        let frame: Vec<i32> = (100..120).collect();
        let mut seed = 7u64;
        let rows: Vec<Vec<i32>> = (0..LEARN_FROM)
            .map(|row| {
                // Every frame key but a few, and three fillers of its own.
                let mut r: Vec<i32> = frame.iter().copied().filter(|_| !rng(&mut seed).is_multiple_of(5)).collect();
                r.extend((0..3).map(|j| 1000 + 10 * row as i32 + j));
                r.sort_unstable();
                r.dedup();
                r
            })
            .collect();
        assert_eq!(learn(&rows), frame);
        // A filler two rows share (an 18-bit collision) is learned too: a key of 262,144.
        let mut two = rows.clone();
        two[1].push(1000);
        two[1].sort_unstable();
        let mut with: Vec<i32> = frame.clone();
        with.push(1000);
        assert_eq!(learn(&two), with);
        assert!(learn(&rows[..LEARN_FROM - 1]).is_empty());
    }

    /// The rule, by brute force over random rows: `required` keys, and a free one, or all.
    #[test]
    fn passes_is_the_rule() {
        let mut seed = 11u64;
        for case in 0..200 {
            let n = 1 + (case % 12);
            let keys: Vec<i32> = (0..n as i32).map(|k| k * 3).collect();
            let frame: Vec<i32> = keys.iter().copied().filter(|_| rng(&mut seed).is_multiple_of(2)).collect();
            let required = 1 + (rng(&mut seed) as usize % n);
            let f = Framed::of(Lookup { keys: keys.clone(), required, scan_all: false }, &frame);
            let mut sorted = f.lookup.keys.clone();
            sorted.sort_unstable();
            assert_eq!(sorted, keys, "the same keys");
            assert!(f.lookup.keys[..f.free].iter().all(|k| !frame.contains(k)));
            assert!(f.lookup.keys[f.free..].iter().all(|k| frame.contains(k)));
            for _ in 0..50 {
                let mut row: Vec<i32> = keys.iter().copied().filter(|_| !rng(&mut seed).is_multiple_of(3)).collect();
                row.push(1_000_001);
                let held = keys.iter().filter(|k| row.contains(k)).count();
                let free_held = keys.iter().filter(|k| row.contains(k) && !frame.contains(k)).count();
                let free = keys.iter().filter(|k| !frame.contains(k)).count();
                let want = held >= required
                    && if free > 0 { free_held >= free.min(2).min(required) } else { held == keys.len() };
                assert_eq!(f.keeps(&row), want, "{keys:?} {frame:?} {required} {row:?}");
                // The index's lookup keeps every row that passes.
                let i = f.index_lookup();
                if want {
                    assert!(i.keys.iter().filter(|k| row.contains(k)).count() >= i.required, "{i:?} {row:?}");
                }
            }
        }
        // No frame: the lookup's own rule.
        let l = Lookup { keys: vec![1, 2, 3], required: 2, scan_all: false };
        let f = Framed::of(l, &[]);
        assert_eq!(f.free, 3);
        assert!(f.keeps(&[1, 3]) && !f.keeps(&[3]));
        // One free key: one is enough; and one when the lookup asks for one key.
        let f = Framed::of(Lookup { keys: vec![1, 2, 3], required: 2, scan_all: false }, &[2, 3]);
        assert!(f.keeps(&[1, 2]) && !f.keeps(&[2, 3]));
        let f = Framed::of(Lookup { keys: vec![1, 2, 3], required: 1, scan_all: false }, &[3]);
        assert!(f.keeps(&[1]) && !f.keeps(&[3]));
        assert!(Framed::of(Lookup::all(), &[1]).keeps(&[]));
    }
}
