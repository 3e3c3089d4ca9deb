//! The texts of a bulk fingerprint run's rows, for the dedup decision (`crate::decision`):
//! `simhash_duplicates` and `simhash_clusters` over `(id, fp, body)` hand out only the pairs
//! within `k` bits whose texts the decision calls the same passage. The texts go to a
//! temporary file ([`crate::bulk::spill`]), not to memory; memory is 20 bytes a row (its id and
//! where its text is), sorted by id for the lookups of the pairs, and a write buffer of 1 MB
//! (one write a row took 1 µs–10 µs more a row than the read of the text itself).

use std::io;
use std::path::Path;

use crate::bulk::spill::{Loc, Spill};
use crate::decision::{decide, Rule};

/// Bytes of texts gathered before a write.
const WRITE_BUFFER: usize = 1 << 20;

/// Texts by id, in a temporary file.
pub struct Texts {
    spill: Spill,
    /// Texts pushed and not yet written, from offset `written` of the file on.
    pending: Vec<u8>,
    written: u64,
    /// `(id, where its text is)`, sorted by id once the rows are in (the first of equal ids
    /// is the one looked up).
    at: Vec<(i64, Loc)>,
    sorted: bool,
    buf: (Vec<u8>, Vec<u8>),
    /// How pairs are decided (the latest rule unless [`Texts::deciding`] says another; None:
    /// the measure alone, every pair is one).
    rule: Option<Rule>,
}

impl Texts {
    /// An empty store, its file in `dir` (already unlinked).
    pub fn new(dir: &Path) -> io::Result<Texts> {
        Ok(Texts {
            spill: Spill::create(dir)?,
            pending: Vec::new(),
            written: 0,
            at: Vec::new(),
            sorted: true,
            buf: (Vec::new(), Vec::new()),
            rule: Some(Rule::LATEST),
        })
    }

    /// The same store, deciding by `rule` (None: the measure alone).
    pub fn deciding(mut self, rule: Option<Rule>) -> Texts {
        self.rule = rule;
        self
    }

    /// Adds row `id`'s text.
    pub fn push(&mut self, id: i64, text: &str) -> io::Result<()> {
        let offset = self.written + self.pending.len() as u64;
        self.pending.extend_from_slice(text.as_bytes());
        self.at.push((id, Loc { offset, len: text.len() as u32 }));
        self.sorted = false;
        if self.pending.len() >= WRITE_BUFFER {
            self.flush()?;
        }
        Ok(())
    }

    /// Writes the pending texts (at `written`: the store is the file's only writer).
    fn flush(&mut self) -> io::Result<()> {
        if !self.pending.is_empty() {
            let at = self.spill.append(&self.pending)?;
            debug_assert_eq!(at, self.written);
            self.written += self.pending.len() as u64;
            self.pending.clear();
        }
        Ok(())
    }

    pub fn len(&self) -> usize {
        self.at.len()
    }

    pub fn is_empty(&self) -> bool {
        self.at.is_empty()
    }

    /// Where row `id`'s text is.
    fn loc(&mut self, id: i64) -> io::Result<Option<Loc>> {
        self.flush()?;
        if !self.sorted {
            self.at.sort_by_key(|&(id, loc)| (id, loc.offset));
            self.sorted = true;
        }
        let i = self.at.partition_point(|&(x, _)| x < id);
        Ok(self.at.get(i).filter(|&&(x, _)| x == id).map(|&(_, loc)| loc))
    }

    /// Whether the dedup decision calls rows `a` and `b` the same passage; false when either
    /// has no text here.
    pub fn same_passage(&mut self, a: i64, b: i64, tick: &mut dyn FnMut()) -> io::Result<bool> {
        let Some(rule) = self.rule else { return Ok(true) };
        let (Some(la), Some(lb)) = (self.loc(a)?, self.loc(b)?) else { return Ok(false) };
        let mut bufs = std::mem::take(&mut self.buf);
        let same = decide(
            rule,
            text_of(self.spill.read(la, &mut bufs.0)?),
            text_of(self.spill.read(lb, &mut bufs.1)?),
            None,
            tick,
        );
        self.buf = bufs;
        Ok(same.duplicate)
    }

    /// Whether the decision calls row `a`'s text and `text` the same passage; false when `a`
    /// has no text here.
    pub fn same_passage_as(&mut self, a: i64, text: &str, tick: &mut dyn FnMut()) -> io::Result<bool> {
        let Some(rule) = self.rule else { return Ok(true) };
        let Some(la) = self.loc(a)? else { return Ok(false) };
        let mut buf = std::mem::take(&mut self.buf.0);
        let same = decide(rule, text_of(self.spill.read(la, &mut buf)?), text, None, tick);
        self.buf.0 = buf;
        Ok(same.duplicate)
    }
}

/// Bytes this store wrote, as a text (they were one).
fn text_of(bytes: &[u8]) -> &str {
    std::str::from_utf8(bytes).expect("a text the store wrote")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn texts_by_id_decide() {
        let dir = std::env::temp_dir().join(format!("simhash-texts-test-{}", std::process::id()));
        std::fs::create_dir_all(&dir).expect("dir");
        let mut t = Texts::new(&dir).expect("a store");
        t.push(7, "Leather case for Apple iPhone 13, black").expect("write");
        t.push(3, "Leather case for Apple iPhone 13, brown").expect("write");
        t.push(5, "LEATHER CASE FOR APPLE IPHONE 13 / BLACK").expect("write");
        assert!(!t.same_passage(7, 3, &mut || ()).expect("read"));
        assert!(t.same_passage(5, 7, &mut || ()).expect("read"));
        assert!(!t.same_passage(5, 99, &mut || ()).expect("read"), "no text, no passage");
        assert!(t.same_passage_as(3, "leather case for apple iphone 13 - brown", &mut || ()).expect("read"));
        assert_eq!(std::fs::read_dir(&dir).expect("list").count(), 0, "the file is unlinked");
        std::fs::remove_dir(&dir).expect("empty dir");
    }
}
