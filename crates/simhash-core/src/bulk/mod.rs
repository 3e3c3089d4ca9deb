//! What every bulk search shares, whatever its measure: what a run reports to its caller
//! ([`Progress`], with the one cadence of its ticks, [`Ticker`]), the check that a query's ids are distinct ([`first_repeated`]), the
//! crate's one union-find (`union_find`) with the connected components built on it
//! ([`Components`]), star clusters ([`Stars`]), and the temporary file of a run's texts
//! ([`spill`]). The measures' bulk searches are `fingerprints::pairs`, `segments::pairs` and
//! `similarity::pairs` / `similarity::bulk`.

mod components;
pub mod spill;
mod star;
#[cfg(test)]
pub(crate) mod test_support;
pub(crate) mod union_find;

pub use components::Components;
pub use star::Stars;
pub(crate) use union_find::UnionFind;

/// An id that two of `ids` share, if any (`ids` left sorted). Every bulk function refuses a
/// query whose rows repeat an id: its pairs name rows by id, so two rows of one id would make
/// a pair twice or one row's pair another's (`21000`, docs/reference.md, "Errors").
pub fn first_repeated(ids: &mut [i64]) -> Option<i64> {
    ids.sort_unstable();
    ids.windows(2).find(|w| w[0] == w[1]).map(|w| w[0])
}

/// What the searches report to their caller while they run.
#[derive(Debug, Clone, PartialEq)]
pub enum Progress {
    /// A phase starts; the message is human-readable and deterministic (no timings).
    Phase(String),
    /// A unit of bounded work (≤ about a millisecond) is done: a place to check for cancellation.
    Tick,
}

/// Work between two ticks of a [`Ticker`], in units of about a nanosecond of work: a
/// fingerprint probe or comparison is 1, a posting sorted or visited [`POSTING`], a pair of
/// texts measured [`MEASURED`]. A tick then comes within about a millisecond.
pub const TICK_WORK: u64 = 1 << 20;
/// The units of a posting sorted or visited (segments' bulk pairs).
pub const POSTING: u64 = 16;
/// The units of a pair of texts measured or decided (similarity's bulk pairs).
pub const MEASURED: u64 = 64;

/// Counts a run's work and says [`Progress::Tick`] every [`TICK_WORK`] units: every bulk
/// search's cancellation checks, at one cadence.
#[derive(Debug, Default, Clone)]
pub struct Ticker {
    work: u64,
}

impl Ticker {
    /// `units` more work done; a tick when a period is full.
    #[inline]
    pub fn add(&mut self, units: u64, cb: &mut dyn FnMut(Progress)) {
        self.work += units;
        if self.work >= TICK_WORK {
            self.work = 0;
            cb(Progress::Tick);
        }
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn ticks_every_period() {
        let (mut t, mut ticks) = (super::Ticker::default(), 0);
        for _ in 0..3 * super::TICK_WORK / super::MEASURED {
            t.add(super::MEASURED, &mut |p| ticks += (p == super::Progress::Tick) as u32);
        }
        assert_eq!(ticks, 3);
    }

    #[test]
    fn repeated_ids() {
        assert_eq!(super::first_repeated(&mut []), None);
        assert_eq!(super::first_repeated(&mut [3, 1, 2]), None);
        assert_eq!(super::first_repeated(&mut [5, 1, 9, 1, 5]), Some(1));
        assert_eq!(super::first_repeated(&mut [i64::MAX, i64::MIN, i64::MAX]), Some(i64::MAX));
    }
}
