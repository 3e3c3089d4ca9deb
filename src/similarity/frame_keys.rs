//! The frame keys a similarity dedup trigger has learned in this backend
//! (`simhash_core::similarity::frame_keys`): the index keys of its table's template, learned from
//! the candidates of a check that read many and kept none, and the first of those candidates,
//! the frame-mates the dedup decision reads the new text's slots from
//! (`simhash_core::decision::frame`) once the check no longer returns them.
//!
//! The check passes the keys as its lookups' `frame` (query.rs), so that an insert into a table
//! of one template reads the rows that share its filler, not the whole frame. They are kept per
//! trigger for the backend's life. A backend learns them by a probe before its first check
//! ([`probes`], [`learn_probed`]: 1,024 of the rows the check would read), and from any check
//! that reads 64 candidates or more and keeps none ([`Learner`]: a template loaded since, or one
//! of fewer rows). A stale key (the
//! template's rows deleted) costs only what a row that shares nothing else with another would
//! lose.

use std::cell::RefCell;
use std::collections::HashMap;
use std::rc::Rc;

use pgrx::pg_sys;
use simhash_core::decision::frame::MATES;
use simhash_core::decision::{Prepared, Version as DecisionVersion};
use simhash_core::similarity::frame_keys::{learn, LEARN_AT_MOST, LEARN_FROM};
use simhash_core::similarity::{text_keys, Version};

/// The most frame keys a trigger keeps: dozens of templates' worth (issue 55's has 45). Past
/// it a check learns nothing more.
const MOST_KEYS: usize = 4096;

/// The most triggers a backend keeps frames of.
const MOST_TRIGGERS: usize = 64;

/// What a trigger has learned.
pub(crate) struct Learned {
    /// The frame keys of every template learned, ascending.
    pub keys: Vec<i32>,
    /// Each template learned: its keys and frame-mates.
    templates: Vec<Rc<Template>>,
}

/// One template a check learned.
struct Template {
    /// Its frame keys, ascending.
    keys: Vec<i32>,
    /// Its frame-mates, for the decision's slots.
    mates: Vec<Prepared>,
}

impl Learned {
    /// The frame-mates of the template `doc` is a row of: the one that holds the most of its
    /// index keys, half of them or more (issue 55's rows: about 25 of 34; a row of other text,
    /// none or one). None for a row of no learned template, whose slots are read from its own
    /// candidates.
    pub(crate) fn mates(&self, doc: &str, v: Version) -> &[Prepared] {
        let keys = text_keys(doc, v, &mut super::tick);
        let held = |t: &Template| keys.iter().filter(|k| t.keys.binary_search(k).is_ok()).count();
        match self.templates.iter().max_by_key(|t| held(t)) {
            Some(t) if 2 * held(t) >= keys.len().max(1) => &t.mates,
            _ => &[],
        }
    }
}

thread_local! {
    /// By trigger OID. Never borrowed across a call into PostgreSQL.
    static LEARNED: RefCell<HashMap<pg_sys::Oid, Rc<Learned>>> = RefCell::new(HashMap::new());
    /// Triggers this backend has probed (a set bounded as LEARNED is).
    static PROBED: RefCell<std::collections::HashSet<pg_sys::Oid>> = RefCell::new(Default::default());
}

/// Whether the trigger `tgoid` is to probe before this check: once per backend, and only while
/// it has learned nothing. A probe (the similarity trigger's, `probe`) reads up to
/// [`LEARN_AT_MOST`] of the rows the check would read, in no order, and [`learn_probed`] learns
/// their template. A table of one template is then learned from a prefix of its candidates,
/// where a check measures and decides them all: a backend's first insert into 100,000 rows of
/// issue 55's template took 110 ms (64 ms into unrelated rows) where it took 1.53 s
/// (`tests/bench/template_inserts.sh`).
pub(crate) fn probes(tgoid: pg_sys::Oid) -> bool {
    learned(tgoid).is_none()
        && PROBED.with_borrow_mut(|p| {
            if p.len() >= MOST_TRIGGERS {
                p.clear();
            }
            p.insert(tgoid)
        })
}

/// Learns the template of the rows a probe read (`texts`) if it read all it asks for
/// ([`LEARN_AT_MOST`]); `decision` is the version the trigger's decision reads its frame-mates
/// with. Fewer rows cost the check at most as many measures, and it learns from them if the
/// decision keeps none; a probe does not run the decision, so it learns only where a frame is
/// plain (a short text found inside a few hundred rows is none). Learning without the decision
/// is safe even then: a text all of whose keys are frame keys asks a row for every one of them,
/// which its copies hold.
pub(crate) fn learn_probed(tgoid: pg_sys::Oid, v: Version, decision: DecisionVersion, texts: &[String]) {
    if texts.len() < LEARN_AT_MOST {
        return;
    }
    let mates = texts.iter().take(MATES).map(|t| Prepared::of(decision, t, &mut super::tick)).collect();
    add_template(tgoid, v, texts, mates);
}

/// Learns the template of `texts` (rows of the trigger `tgoid`'s table) and adds it to what the
/// trigger knows, with `mates` (the first rows, made ready) as its frame-mates; nothing when
/// their keys hold no frame, or the trigger keeps [`MOST_KEYS`] already.
fn add_template(tgoid: pg_sys::Oid, v: Version, texts: &[String], mut mates: Vec<Prepared>) {
    let old = learned(tgoid);
    if old.as_ref().is_some_and(|l| l.keys.len() >= MOST_KEYS) {
        return;
    }
    let rows: Vec<Vec<i32>> = texts.iter().map(|t| text_keys(t, v, &mut super::tick)).collect();
    let frame = learn(&rows);
    if frame.is_empty() {
        return;
    }
    mates.truncate(MATES);
    let (mut keys, mut templates) = old.map_or_else(Default::default, |o| (o.keys.clone(), o.templates.clone()));
    keys.extend(&frame);
    keys.sort_unstable();
    keys.dedup();
    templates.push(Rc::new(Template { keys: frame, mates }));
    let l = Rc::new(Learned { keys, templates });
    LEARNED.with_borrow_mut(|m| {
        // Dropped triggers' entries are never looked up again: past a few dozen triggers,
        // forget all (each relearns at its next check that reads a frame).
        if m.len() >= MOST_TRIGGERS && !m.contains_key(&tgoid) {
            m.clear();
        }
        m.insert(tgoid, l)
    });
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
    /// adding a template to those the trigger knows; `mates` are the first candidates, made
    /// ready.
    pub(crate) fn learn(self, mates: Vec<Prepared>) {
        if self.read >= LEARN_FROM {
            add_template(self.tgoid, self.version, &self.texts, mates);
        }
    }
}
