//! The frame keys a similarity dedup trigger has learned in this backend
//! (`simhash_core::similarity::frame_keys`): the index keys of its table's template, learned from
//! the candidates of a check that read many and kept none, and the first of those candidates,
//! the frame-mates the dedup decision reads the new text's slots from
//! (`simhash_core::decision::frame`) once the check no longer returns them.
//!
//! The check passes the keys as its lookups' `frame` (query.rs), so that an insert into a table
//! of one template reads the rows that share its filler, not the whole frame. They are kept per
//! trigger for the backend's life: learning costs one check that reads the frame, and a stale key
//! (the template's rows deleted) costs only what a row that shares nothing else with another would
//! lose.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use pgrx::pg_sys;
use simhash_core::decision::frame::MATES;
use simhash_core::decision::Prepared;
use simhash_core::similarity::frame_keys::{learn, LEARN_AT_MOST, LEARN_FROM};
use simhash_core::similarity::{text_keys, Version};

/// The most frame keys a trigger keeps: a few templates' worth (issue 55's has 45). Past it a
/// check learns nothing more.
const MOST_KEYS: usize = 4096;

/// The most triggers a backend keeps frames of.
const MOST_TRIGGERS: usize = 64;

/// What a trigger has learned.
pub(crate) struct Learned {
    /// The frame keys, ascending.
    pub keys: Vec<i32>,
    /// Frame-mates, for the decision's slots.
    pub mates: Vec<Prepared>,
}

impl Learned {
    /// Whether `doc` is a row of the learned frame: half its index keys or more are frame keys
    /// (issue 55's rows: about 25 of 34; a row of other text, none or one). Only such a row's
    /// slots are read from the learned frame-mates.
    pub(crate) fn frames(&self, doc: &str, v: Version) -> bool {
        let keys = text_keys(doc, v, &mut super::tick);
        2 * keys.iter().filter(|k| self.keys.binary_search(k).is_ok()).count() >= keys.len().max(1)
    }
}

thread_local! {
    /// By trigger OID. Never borrowed across a call into PostgreSQL.
    static LEARNED: RefCell<HashMap<pg_sys::Oid, Rc<Learned>>> = RefCell::new(HashMap::new());
}

/// What the trigger `tgoid` has learned, if anything.
pub(crate) fn learned(tgoid: pg_sys::Oid) -> Option<Rc<Learned>> {
    LEARNED.with_borrow(|l| l.get(&tgoid).cloned())
}

/// A check's candidates, kept while it reads them, to learn from if it keeps none.
pub(crate) struct Learner {
    tgoid: pg_sys::Oid,
    version: Version,
    /// The texts of the first [`LEARN_AT_MOST`] candidates.
    texts: Vec<String>,
    read: usize,
}

impl Learner {
    pub(crate) fn new(tgoid: pg_sys::Oid, version: Version) -> Learner {
        Learner { tgoid, version, texts: Vec::new(), read: 0 }
    }

    /// A candidate the check read.
    pub(crate) fn read(&mut self, text: &str) {
        self.read += 1;
        if self.texts.len() < LEARN_AT_MOST {
            self.texts.push(text.to_owned());
        }
    }

    /// The check kept none of what it read: learn their frame if it read [`LEARN_FROM`] or more,
    /// adding to the keys the trigger knows; `mates` are the first candidates, made ready, and
    /// replace the mates it had (a table of two templates gives the decision the latest one's).
    pub(crate) fn learn(self, mates: Vec<Prepared>) {
        if self.read < LEARN_FROM {
            return;
        }
        let old = learned(self.tgoid);
        if old.as_ref().is_some_and(|l| l.keys.len() >= MOST_KEYS) {
            return;
        }
        let rows: Vec<Vec<i32>> = self.texts.iter().map(|t| text_keys(t, self.version, &mut super::tick)).collect();
        let mut keys = learn(&rows);
        if keys.is_empty() {
            return;
        }
        if let Some(old) = &old {
            keys.extend(&old.keys);
            keys.sort_unstable();
            keys.dedup();
        }
        let mut mates = mates;
        mates.truncate(MATES);
        let l = Rc::new(Learned { keys, mates });
        LEARNED.with_borrow_mut(|m| {
            // Dropped triggers' entries are never looked up again: past a few dozen triggers,
            // forget all (each relearns at its next check that reads a frame).
            if m.len() >= MOST_TRIGGERS && !m.contains_key(&self.tgoid) {
                m.clear();
            }
            m.insert(self.tgoid, l)
        });
    }
}
