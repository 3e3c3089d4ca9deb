//! The caller's side of a banded run (`super`): rows go out to the workers a chunk at a time
//! and come back sketched, in order; then the groups of identical sets, the bands, and the
//! pairs handed out one at a time (`output.rs`).

use std::collections::BTreeMap;
use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::exchange::{parse, ForeignRow};
use super::output::Output;
use super::plan::{Plan, CODES};
use super::pool::Pool;
use super::sketch::Sketcher;
use super::template_pairs;
use super::templates::{self, Mode, Templates};
use super::{bands, groups, Config, Counters, Found, Msg, Phase, Rows};
use crate::bulk::spill::Spill;
use crate::bulk::Progress;
use crate::similarity::shingles::Version;

/// A chunk is sent when it holds this many rows...
const CHUNK_ROWS: usize = 1024;
/// ... or this many bytes of text.
const CHUNK_BYTES: usize = 1 << 20;

/// A text whose sketch panics (a test of how a worker's panic reaches the caller).
#[cfg(test)]
pub(super) const PANIC_FOR_TEST: &str = "panic for the test";

/// A chunk's rows, sketched (or, in the caller, all rows so far).
#[derive(Default)]
pub(super) struct Sketched {
    sizes: Vec<u32>,
    set_hashes: Vec<u64>,
    offsets: Vec<u64>,
    lens: Vec<u32>,
    keys: Vec<u32>,
    codes: Vec<u64>,
}

impl Sketched {
    fn append(&mut self, c: &Sketched) {
        self.sizes.extend_from_slice(&c.sizes);
        self.set_hashes.extend_from_slice(&c.set_hashes);
        self.offsets.extend_from_slice(&c.offsets);
        self.lens.extend_from_slice(&c.lens);
        self.keys.extend_from_slice(&c.keys);
        self.codes.extend_from_slice(&c.codes);
    }
}

enum Stage {
    Input,
    Bands { left: usize },
    Groups { next_rep: usize },
    Done,
}

pub(super) struct Lsh {
    pub(super) plan: Plan,
    theta: f64,
    version: Version,
    decide: Option<crate::decision::Rule>,
    templates_mode: Mode,
    counters: Arc<Counters>,
    pub(super) pool: Pool<Msg>,
    spill: Arc<Spill>,
    /// The chunk being filled: texts' bytes and where each ends.
    texts: Vec<u8>,
    ends: Vec<usize>,
    /// Chunks sent, chunks appended, and those back before an older one.
    sent: u64,
    got: u64,
    early: BTreeMap<u64, Box<Sketched>>,
    ids: Vec<i64>,
    rows: Sketched,
    foreign: Vec<ForeignRow>,
    stage: Stage,
    out: Output,
    /// The rows, once read (the decision reads their texts), and their templates.
    shared: Option<Arc<Rows>>,
    templates: Arc<Templates>,
    /// Scratch for the decisions.
    scratch: bands::Scratch,
}

impl Lsh {
    pub(super) fn new(config: &Config, plan: Plan, counters: Arc<Counters>) -> std::io::Result<Lsh> {
        let dir = config.spill_dir.clone().unwrap_or_else(std::env::temp_dir);
        let spill = Arc::new(Spill::create(&dir)?);
        let pool = Pool::start(config.threads)?;
        counters.set_phase(Phase::Reading);
        Ok(Lsh {
            plan,
            theta: config.theta,
            version: config.version,
            decide: config.decide,
            templates_mode: config.templates,
            counters,
            pool,
            spill,
            texts: Vec::new(),
            ends: Vec::new(),
            sent: 0,
            got: 0,
            early: BTreeMap::new(),
            ids: Vec::new(),
            rows: Sketched::default(),
            foreign: Vec::new(),
            stage: Stage::Input,
            out: Output::default(),
            shared: None,
            templates: Arc::default(),
            scratch: bands::Scratch::default(),
        })
    }

    pub(super) fn push(&mut self, id: i64, text: &str, cb: &mut dyn FnMut(Progress)) {
        assert!(matches!(self.stage, Stage::Input), "rows come before pairs");
        self.ids.push(id);
        // A long text is copied a megabyte at a time, with a tick between.
        for piece in text.as_bytes().chunks(CHUNK_BYTES) {
            self.texts.extend_from_slice(piece);
            if piece.len() == CHUNK_BYTES {
                cb(Progress::Tick);
            }
        }
        self.ends.push(self.texts.len());
        if self.ends.len() >= CHUNK_ROWS || self.texts.len() >= CHUNK_BYTES {
            self.send_chunk(cb);
        }
    }

    pub(super) fn push_foreign(&mut self, id: i64, bytes: &[u8]) -> Result<(), String> {
        assert!(matches!(self.stage, Stage::Input), "rows come before pairs");
        let row = parse(bytes, &self.plan, self.version)?;
        self.foreign.push(ForeignRow { id, ..row });
        Ok(())
    }

    /// Sends the chunk being filled to the workers, first waiting while too many are out.
    fn send_chunk(&mut self, cb: &mut dyn FnMut(Progress)) {
        while let Some(m) = self.pool.try_recv() {
            self.absorb(m);
        }
        while self.sent - self.got >= 2 * self.pool.workers() as u64 + 2 {
            let m = self.pool.recv(cb);
            self.absorb(m);
        }
        let (texts, ends) = (std::mem::take(&mut self.texts), std::mem::take(&mut self.ends));
        let (plan, version, seq) = (self.plan, self.version, self.sent);
        let (spill, counters) = (Arc::clone(&self.spill), Arc::clone(&self.counters));
        self.pool.submit(Box::new(move |ctx| {
            let mut s = Sketcher::new(plan, version);
            let mut out = Sketched::default();
            let mut kept = Vec::new();
            let mut from = 0;
            for &end in &ends {
                let text = std::str::from_utf8(&texts[from..end]).expect("pushed as a str");
                #[cfg(test)]
                assert!(text != PANIC_FOR_TEST, "poisoned for the test");
                let at = kept.len();
                let sum = s.sketch(text, &mut kept, &mut out.keys, &mut out.codes, &mut || ctx.check());
                out.sizes.push(sum.size);
                out.set_hashes.push(sum.set_hash);
                out.offsets.push(at as u64);
                out.lens.push((kept.len() - at) as u32);
                from = end;
            }
            ctx.check();
            let base = spill.append(&kept).unwrap_or_else(|e| panic!("writing the bulk pairs' spill file: {e}"));
            out.offsets.iter_mut().for_each(|o| *o += base);
            counters.sketched.fetch_add(ends.len() as u64, Ordering::Relaxed);
            counters.spilled.fetch_add(kept.len() as u64, Ordering::Relaxed);
            ctx.send(Msg::Sketched(seq, Box::new(out)));
        }));
        self.sent += 1;
        cb(Progress::Tick);
    }

    /// Takes a worker's result in.
    fn absorb(&mut self, m: Msg) {
        match m {
            Msg::Sketched(seq, c) => {
                self.early.insert(seq, c);
                while let Some(c) = self.early.remove(&self.got) {
                    self.rows.append(&c);
                    self.got += 1;
                }
            }
            Msg::Pairs(p) => self.out.pairs.push_back(p),
            Msg::Foreign(f) => self.out.foreign.push_back(f),
            Msg::BandDone => match &mut self.stage {
                Stage::Bands { left } => *left -= 1,
                _ => unreachable!("a band ends in the bands"),
            },
            Msg::Runs(..) | Msg::Links(_) | Msg::Heavy(_) | Msg::Template(_) | Msg::Members(..) => {
                unreachable!("asked for and awaited in finish_input")
            }
        }
    }

    pub(super) fn next(&mut self, cb: &mut dyn FnMut(Progress)) -> Option<Found> {
        loop {
            let (rows, scratch, counters, tpl) = (&self.shared, &mut self.scratch, &self.counters, &self.templates);
            let mut same = |x: u32, y: u32, cb: &mut dyn FnMut(Progress)| {
                let rows = rows.as_ref().filter(|r| r.decide.is_some());
                let same = rows.is_none_or(|r| r.same_passage(x as usize, y as usize, tpl, scratch, cb));
                if !same {
                    counters.apart.fetch_add(1, Ordering::Relaxed);
                }
                same
            };
            if let Some(f) = self.out.next(&self.ids, self.theta, &mut same, cb) {
                return Some(f);
            }
            match &mut self.stage {
                Stage::Input => self.finish_input(cb),
                Stage::Bands { left: 0 } => {
                    self.counters.set_phase(Phase::Groups);
                    self.stage = Stage::Groups { next_rep: 0 };
                }
                Stage::Bands { .. } => {
                    let m = self.pool.recv(cb);
                    self.absorb(m);
                }
                Stage::Groups { next_rep } => {
                    if !self.out.next_group(next_rep, cb) {
                        self.counters.set_phase(Phase::Done);
                        self.stage = Stage::Done;
                    }
                }
                Stage::Done => return None,
            }
        }
    }

    /// Waits for the last chunks, groups identical sets and starts the bands.
    fn finish_input(&mut self, cb: &mut dyn FnMut(Progress)) {
        if !self.ends.is_empty() {
            self.send_chunk(cb);
        }
        while self.got < self.sent {
            let m = self.pool.recv(cb);
            self.absorb(m);
        }
        let n_local = self.ids.len();
        let w = CODES / 32;
        for (i, f) in std::mem::take(&mut self.foreign).into_iter().enumerate() {
            if i % (1 << 14) == 0 {
                cb(Progress::Tick);
            }
            self.ids.push(f.id);
            let r = &mut self.rows;
            r.sizes.push(f.size);
            r.offsets.push(0);
            r.lens.push(0);
            r.keys.extend_from_slice(&f.keys);
            r.codes.extend_from_slice(&f.codes[..w]);
        }
        let s = std::mem::take(&mut self.rows);
        let rows = Arc::new(Rows {
            plan: self.plan,
            theta: self.theta,
            version: self.version,
            decide: self.decide,
            sizes: s.sizes,
            offsets: s.offsets,
            lens: s.lens,
            keys: s.keys,
            codes: s.codes,
            n_local,
            spill: Arc::clone(&self.spill),
            counters: Arc::clone(&self.counters),
        });
        // Groups of identical sets: candidates by hash on one worker, confirmed on all.
        self.counters.set_phase(Phase::Grouping);
        cb(Progress::Phase(format!(
            "{} rows ({} foreign) read; grouping identical shingle sets",
            self.ids.len(),
            self.ids.len() - n_local
        )));
        let hashes = s.set_hashes;
        let r = Arc::clone(&rows);
        self.pool.submit(Box::new(move |ctx| {
            let (members, ends) = groups::runs(&r, &hashes, ctx);
            ctx.send(Msg::Runs(members, ends));
        }));
        let Msg::Runs(members, ends) = self.pool.recv(cb) else { unreachable!("only the runs are out") };
        let (members, ends) = (Arc::new(members), Arc::new(ends));
        let jobs = split(&ends, 2 * self.pool.workers());
        for &(a, b) in &jobs {
            let (r, members, ends) = (Arc::clone(&rows), Arc::clone(&members), Arc::clone(&ends));
            self.pool.submit(Box::new(move |ctx| {
                let from = if a == 0 { 0 } else { ends[a - 1] };
                ctx.send(Msg::Links(groups::confirm(&r, &members, &ends[a..b], from, ctx)));
            }));
        }
        let mut links = Vec::new();
        for _ in &jobs {
            let Msg::Links(l) = self.pool.recv(cb) else { unreachable!("only the links are out") };
            links.extend(l);
        }
        drop((members, ends));
        self.counters.duplicates.store(links.len() as u64, Ordering::Relaxed);
        let reps = self.out.set_groups(&rows, &links, cb);
        self.shared = Some(Arc::clone(&rows));
        let (rule, mode) = (self.decide, self.templates_mode);
        self.templates =
            Arc::new(templates::phase(&mut self.pool, &self.counters, rule, mode, &rows, &reps, &links, cb));
        // The bands, each a job, and each template's join.
        let b = self.plan.b;
        self.counters.bands.store(b as u64, Ordering::Relaxed);
        self.counters.set_phase(Phase::Bands);
        cb(Progress::Phase(format!(
            "{} distinct sets; {} bands of {} MinHash values, {} of 128 codes needed",
            reps.len(),
            b,
            self.plan.r,
            self.plan.codes_needed
        )));
        // The joins first: each is one job, longer than a band.
        let joins = if self.templates.mode == Mode::Joined { self.templates.list.len() } else { 0 };
        for i in 0..joins {
            let (r, t) = (Arc::clone(&rows), Arc::clone(&self.templates));
            self.pool.submit(Box::new(move |ctx| {
                let mut m = bands::Measurer::new(&r, &t, ctx);
                template_pairs::join(&t.list[i], &mut m);
                m.flush();
                ctx.send(Msg::BandDone);
            }));
        }
        for j in 0..b {
            let (r, reps, t) = (Arc::clone(&rows), Arc::clone(&reps), Arc::clone(&self.templates));
            self.pool.submit(Box::new(move |ctx| {
                bands::band(&r, &reps, &t, j, ctx);
            }));
        }
        self.stage = Stage::Bands { left: b + joins };
    }
}

/// `ends` cut into at most `parts` ranges `(a, b)` of about equal rows; none if it is empty.
fn split(ends: &[u32], parts: usize) -> Vec<(usize, usize)> {
    let total = ends.last().copied().unwrap_or(0) as usize;
    let per = total.div_ceil(parts.max(1)).max(1);
    let mut out = Vec::new();
    let mut a = 0;
    while a < ends.len() {
        let start = if a == 0 { 0 } else { ends[a - 1] as usize };
        let b = a + 1 + ends[a + 1..].iter().take_while(|&&e| (e as usize) - start <= per).count();
        out.push((a, b));
        a = b;
    }
    out
}
