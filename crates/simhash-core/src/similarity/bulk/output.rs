//! The pairs a banded run hands out (`super`), one at a time, on the caller's thread: a pair
//! of representatives stands for every pair of their groups' members, and each group's
//! members are pairs of similarity 1 among themselves; pairs of one id are passed over.
//!
//! A group is a linked list through `next`: representative first, members in row order.

use std::collections::VecDeque;
use std::sync::Arc;

use super::{Found, Rows};
use crate::bulk::{Progress, Ticker, MEASURED, POSTING};
use crate::similarity::pairs::SimilarityPair;

/// The end of a group's list.
pub(super) const NONE: u32 = u32::MAX;

/// Whether local rows `(x, y)` are a pair to hand out (the dedup decision), with the
/// caller's progress callback.
pub(super) type Same<'a> = dyn FnMut(u32, u32, &mut dyn FnMut(Progress)) -> bool + 'a;

#[derive(Clone, Copy)]
enum Cursor {
    Idle,
    /// Members `mx` of x's group and `my` of y's, `y` the head of y's; `decided` while they
    /// are the measured pair itself: what the workers' dedup decision said of it.
    Cross {
        y: u32,
        mx: u32,
        my: u32,
        similarity: f64,
        decided: Option<bool>,
    },
    /// Members `a < b` of one group.
    Within {
        a: u32,
        b: u32,
    },
    /// Member `mx` of a local group and a foreign row `f`.
    Foreign {
        mx: u32,
        f: u32,
    },
}

#[derive(Default)]
pub(super) struct Output {
    pub pairs: VecDeque<Vec<(u32, u32, f64, bool)>>,
    pub foreign: VecDeque<Vec<(u32, u32)>>,
    /// The batch being expanded and its next entry.
    batch: Vec<(u32, u32, f64, bool)>,
    foreign_batch: Vec<(u32, u32)>,
    at: usize,
    cursor: Option<Cursor>,
    next: Vec<u32>,
    reps: Arc<Vec<u32>>,
    /// Pairs passed over (equal ids) or rows looked at, a measured pair's worth each.
    work: Ticker,
}

impl Output {
    /// Links the groups and lists the representatives: rows with shingles (or foreign) that
    /// are no confirmed member of an earlier row's group.
    pub(super) fn set_groups(
        &mut self,
        rows: &Rows,
        links: &[(u32, u32)],
        cb: &mut dyn FnMut(Progress),
    ) -> Arc<Vec<u32>> {
        let n = rows.sizes.len();
        self.next = vec![NONE; n];
        let (mut rep, mut tail) = (NONE, NONE);
        for &(r, m) in links {
            if r != rep {
                (rep, tail) = (r, r);
            }
            self.next[tail as usize] = m;
            tail = m;
        }
        let mut member = vec![false; n];
        for &(_, m) in links {
            member[m as usize] = true;
        }
        let (mut reps, mut ticker) = (Vec::new(), Ticker::default());
        for (x, &m) in member.iter().enumerate() {
            if rows.sizes[x] > 0 && !m {
                reps.push(x as u32);
            }
            ticker.add(POSTING, cb);
        }
        self.reps = Arc::new(reps);
        Arc::clone(&self.reps)
    }

    fn tick(&mut self, cb: &mut dyn FnMut(Progress)) {
        self.work.add(MEASURED, cb);
    }

    /// Starts the pairs within the next group of two or more, from representative `*from`;
    /// false when there is none left.
    pub(super) fn next_group(&mut self, from: &mut usize, cb: &mut dyn FnMut(Progress)) -> bool {
        while *from < self.reps.len() {
            let r = self.reps[*from];
            *from += 1;
            self.tick(cb);
            if self.next[r as usize] != NONE {
                self.cursor = Some(Cursor::Within { a: r, b: self.next[r as usize] });
                return true;
            }
        }
        false
    }

    /// The next pair out of the batches received and the group being expanded; a group's pair
    /// of local rows `(x, y)` only if `same(x, y)` (the dedup decision, when the run asks it;
    /// the batches' pairs were decided by the workers).
    pub(super) fn next(
        &mut self,
        ids: &[i64],
        theta: f64,
        same: &mut Same,
        cb: &mut dyn FnMut(Progress),
    ) -> Option<Found> {
        loop {
            let cursor = match self.cursor {
                Some(c) => c,
                None => {
                    self.load()?;
                    continue;
                }
            };
            let next = |x: u32| self.next[x as usize];
            let (x, y, found) = match cursor {
                Cursor::Idle => {
                    self.cursor = None;
                    continue;
                }
                Cursor::Cross { y, mx, my, similarity, .. } => {
                    let (nx, ny) = if next(my) == NONE { (next(mx), y) } else { (mx, next(my)) };
                    self.cursor = Some(if nx == NONE {
                        Cursor::Idle
                    } else {
                        Cursor::Cross { y, mx: nx, my: ny, similarity, decided: None }
                    });
                    (mx, my, Some(similarity))
                }
                Cursor::Within { a, b } => {
                    let (na, nb) = match (next(b), next(a)) {
                        (NONE, NONE) => (NONE, NONE),
                        (NONE, na) => (na, next(na)),
                        (nb, _) => (a, nb),
                    };
                    self.cursor = Some(if nb == NONE { Cursor::Idle } else { Cursor::Within { a: na, b: nb } });
                    // Identical sets: similarity 1, if θ allows.
                    (a, b, (1.0 >= theta).then_some(1.0))
                }
                Cursor::Foreign { mx, f } => {
                    self.cursor =
                        Some(if next(mx) == NONE { Cursor::Idle } else { Cursor::Foreign { mx: next(mx), f } });
                    (mx, f, None)
                }
            };
            let (ix, iy) = (ids[x as usize], ids[y as usize]);
            if ix == iy {
                self.tick(cb);
                continue;
            }
            return match (cursor, found) {
                (Cursor::Foreign { .. }, _) => Some(Found::Foreign { local: ix, foreign: iy }),
                // A measured pair was decided where it was measured (bands.rs); its groups'
                // other members, and a group's pairs of identical sets, are decided here.
                (Cursor::Cross { decided: Some(same), .. }, Some(similarity)) => {
                    if !same {
                        self.tick(cb);
                        continue;
                    }
                    Some(Found::Pair(SimilarityPair { id1: ix.min(iy), id2: ix.max(iy), similarity }))
                }
                (_, Some(similarity)) if same(x, y, cb) => {
                    Some(Found::Pair(SimilarityPair { id1: ix.min(iy), id2: ix.max(iy), similarity }))
                }
                _ => {
                    self.tick(cb);
                    continue;
                }
            };
        }
    }

    /// Takes the next received pair (or foreign candidate) as the cursor; None if none is left.
    fn load(&mut self) -> Option<()> {
        loop {
            if let Some(&(x, y, similarity, same)) = self.batch.get(self.at) {
                self.at += 1;
                self.cursor = Some(Cursor::Cross { y, mx: x, my: y, similarity, decided: Some(same) });
                return Some(());
            }
            if let Some(&(x, f)) = self.foreign_batch.get(self.at) {
                self.at += 1;
                self.cursor = Some(Cursor::Foreign { mx: x, f });
                return Some(());
            }
            self.at = 0;
            self.batch.clear();
            self.foreign_batch.clear();
            if let Some(b) = self.pairs.pop_front() {
                self.batch = b;
            } else if let Some(f) = self.foreign.pop_front() {
                self.foreign_batch = f;
            } else {
                return None;
            }
        }
    }
}
