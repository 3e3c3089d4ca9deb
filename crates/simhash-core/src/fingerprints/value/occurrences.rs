//! Every feature occurrence of a text with its sentence and bytes ([`Occurrences`]), the
//! one pass of the tokenizer that both kinds of segment read (runs of sentences in
//! `runs`, winnowed shingles in `winnow`), and what each finds ([`Run`]).

use std::borrow::Cow;
use std::ops::Range;

use super::rules::Class;
use super::segment::Sink;
use super::weight::Counts;

/// Every feature occurrence of a text, as an index into `counts.feats`, with the
/// occurrence count at each sentence end.
#[derive(Default)]
pub(super) struct Occurrences {
    pub(super) counts: Counts,
    pub(super) occ: Vec<u32>,
    /// `spans[i]` are the bytes of occurrence `i` in the normalized text (winnowing's
    /// segments cover them).
    pub(super) spans: Vec<(u32, u32)>,
    /// `occ[ends[s - 1]..ends[s]]` are sentence `s`'s occurrences (`ends[-1]` = 0).
    pub(super) ends: Vec<u32>,
    /// `normalized[bytes[s - 1]..bytes[s]]` is sentence `s`'s text (`bytes[-1]` = 0), its end
    /// mark included; a sentence without occurrences is part of the one before it.
    pub(super) bytes: Vec<usize>,
}

impl<'a> Sink<'a> for Occurrences {
    fn reserve(&mut self, n: usize) {
        self.counts.reserve(n);
        self.occ.clear();
        self.occ.reserve(n);
        self.spans.clear();
        self.spans.reserve(n);
        self.ends.clear();
        self.bytes.clear();
    }

    fn grow(&mut self, n: usize) {
        self.counts.grow(n);
        self.occ.reserve(n);
        self.spans.reserve(n);
    }

    #[inline]
    fn add(&mut self, hash: u64, class: Class, at: Range<usize>, _text: impl FnOnce() -> Cow<'a, str>) {
        let (i, _) = self.counts.insert(hash, class);
        self.occ.push(i);
        // A text in PostgreSQL is under 1 GB, so its offsets fit.
        self.spans.push((at.start as u32, at.end as u32));
    }

    #[inline]
    fn sentence_end(&mut self, at: usize) {
        // An empty sentence (two ends in a row) is no sentence: its text joins the one before.
        if self.ends.last().copied().unwrap_or(0) != self.occ.len() as u32 {
            self.ends.push(self.occ.len() as u32);
            self.bytes.push(at);
        } else if let Some(last) = self.bytes.last_mut() {
            *last = at;
        }
    }
}

/// A segment: its fingerprint and the bytes of the normalized text of the first run (or
/// shingle) that has it.
pub(super) struct Run {
    pub(super) fp: u64,
    pub(super) bytes: Range<usize>,
}
