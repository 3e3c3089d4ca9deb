//! Templates in a bulk run (issue 55): rows of one frame ("… Value %s() Thread safety MT-Safe",
//! a function name a row) agree on most of their MinHash values, so every band has one run of
//! equal keys that holds most of them, and the bands would measure and decide every pair of
//! the frame: 2,000 rows took 16 s, 20,000 did not end in 300 s. A run takes its templates up
//! first, when the dedup decision is asked (`super`; docs/similarity.md, "Templates"):
//!
//! 1. **Where.** A run of [`HEAVY`] equal keys or more in a band joins its rows into one
//!    template (union-find over every band's such runs): `heavy.rs`.
//! 2. **The frame** of each, learned as a dedup trigger learns it ([`frame_keys::learn`]): the
//!    shingles [`frame_keys::FRAME_SHARE`] of a sample of up to [`SAMPLE`] of its rows hold. A
//!    row's other shingles are its own ("free"): its filler, or a sentence it adds.
//! 3. **Whether the frame-mates are pairs** (`guard`): a cloud of reposts of one text also has
//!    a frame (the text), and there two rows with other edits are the same passage, though they
//!    share no free shingle. Pairs of sampled rows that the join would not find are measured and
//!    decided; one kept makes it no template, and the bands take its rows as they take any.
//! 4. **Members**: its rows with 1 to [`CAP`] free shingles. Every pair of two members is
//!    found by the join instead of the bands (`join.rs`, `template_pairs.rs`): the pairs whose
//!    free shingles overlap, then the pairs of two rows both kept with a third (two reposts of one row, each
//!    with its own edit). Rows with no free shingle, too many, or foreign stay in the bands,
//!    paired with every row they collide with.
//! 5. **The decision** reads a member's frame among 16 of its template's rows, as a trigger
//!    reads a new row's among its first 16 candidates (`decision::frame`): a slot filled
//!    otherwise is other content.

use std::sync::atomic::Ordering;
use std::sync::Arc;

use super::join;
use super::output::NONE;
use super::pool::{Ctx, Pool};
use super::{Counters, Msg, Phase, Rows};
use crate::bulk::Progress;
use crate::decision::frame::MATES;
use crate::decision::{Frame, Prepared, Rule};
use crate::similarity::frame_keys;
use crate::similarity::measure::{similarity, Sets};

pub use super::heavy::HEAVY;
/// The most free shingles a member has: it holds them while the run lasts, 12 bytes each
/// (issue 55's template: 14 on average). A row with more is mostly its own text.
pub const CAP: usize = 256;
/// The rows a template's frame is learned from, evenly spread over it, and the most shingles
/// they hold (32 MB: rows of long texts are fewer; under [`frame_keys::LEARN_FROM`], none is).
pub const SAMPLE: usize = frame_keys::LEARN_AT_MOST;
const SAMPLE_SHINGLES: usize = 1 << 22;
/// Pairs of sampled rows the guard draws, and the most it measures at θ and decides.
const GUARD_DRAWN: usize = 4096;
const GUARD_DECIDED: usize = 256;
/// The rows a job finds a template's members among ([`members`]).
const MEMBERS_CHUNK: usize = 8192;

/// How a run treats its templates ([`super::Config::templates`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Mode {
    /// 6.0's: none found; every pair from the bands, decided without a frame.
    #[default]
    Off,
    /// Found and framed, every pair from the bands: what `Joined` is measured against.
    Enumerated,
    /// Found, framed, and their members' pairs from the join (the default).
    Joined,
}

/// One template: its frame, its members (rows, ascending) and their free shingles, and the rows
/// whose texts its decisions read frames from.
pub(super) struct Template {
    frame: Vec<u64>,
    pub members: Vec<u32>,
    free: Vec<u32>,
    ends: Vec<u32>,
    mates: Vec<(u32, Prepared)>,
}

impl Template {
    /// Its members' free shingles.
    pub(super) fn lists(&self) -> join::Lists<'_> {
        join::Lists { free: &self.free, ends: &self.ends }
    }

    /// Adds the members of the chunk of its rows after the last one added.
    pub(super) fn add(&mut self, m: Members) {
        let base = self.free.len() as u32;
        self.members.extend(m.rows);
        self.free.extend(m.free);
        self.ends.extend(m.ends.iter().map(|e| e + base));
    }

    /// The frame of member `x` (its tokens `tokens`) among up to [`MATES`] other rows.
    fn frame_of(&self, x: u32, tokens: &Prepared, tick: &mut dyn FnMut()) -> Frame {
        let mates: Vec<&Prepared> = self.mates.iter().filter(|m| m.0 != x).take(MATES).map(|m| &m.1).collect();
        tokens.frame(&mates, tick)
    }

    /// Whether `rule` keeps member `x` (its tokens `a`) and a row of its template (`b`) with `x`'s
    /// frame, read into `frame` if it is not there yet and only if it can matter
    /// ([`crate::decision::decide_framed`]).
    pub(super) fn decide(
        &self,
        rule: Rule,
        x: u32,
        a: &Prepared,
        b: &Prepared,
        frame: &mut Option<Frame>,
        tick: &mut dyn FnMut(),
    ) -> bool {
        crate::decision::decide_framed(rule, a, b, frame, |tick| self.frame_of(x, a, tick), tick)
    }
}

/// A run's templates: each row's (its group's representative's), [`NONE`] for none.
#[derive(Default)]
pub(super) struct Templates {
    pub mode: Mode,
    of_row: Vec<u32>,
    pub list: Vec<Arc<Template>>,
}

impl Templates {
    /// The template rows `x` and `y` are both members of, if one.
    #[inline]
    pub(super) fn shared(&self, x: u32, y: u32) -> Option<&Template> {
        let t = *self.of_row.get(x as usize)?;
        (t != NONE && self.of_row[y as usize] == t).then(|| &*self.list[t as usize])
    }

    /// Whether the bands leave the pair of `x` and `y` to the join.
    #[inline]
    pub(super) fn joined(&self, x: u32, y: u32) -> bool {
        self.mode == Mode::Joined && self.shared(x, y).is_some()
    }

    /// Whether row `x` is a member of a template whose pairs are joined.
    #[inline]
    pub(super) fn joins(&self, x: u32) -> bool {
        self.mode == Mode::Joined && self.of_row.get(x as usize).is_some_and(|&t| t != NONE)
    }

    /// The templates of `list` over `n` rows: each member's, and its group's members'
    /// (`links`: representative, member).
    pub(super) fn of(mode: Mode, n: usize, list: Vec<Template>, links: &[(u32, u32)]) -> Templates {
        let mut of_row = vec![NONE; n];
        for (t, tpl) in list.iter().enumerate() {
            for &x in &tpl.members {
                of_row[x as usize] = t as u32;
            }
        }
        for &(rep, m) in links {
            of_row[m as usize] = of_row[rep as usize];
        }
        Templates { mode, of_row, list: list.into_iter().map(Arc::new).collect() }
    }
}

/// Learns the template of `rows_of` (a candidate of `heavy::find`, local and foreign rows) under
/// `rule`: its frame, whether its frame-mates are pairs ([`guard`]). None when it is no
/// template; else the template, without members yet ([`Template::add`]), and its local rows.
pub(super) fn learn(rows: &Rows, rows_of: &[u32], rule: Rule, ctx: &Ctx<Msg>) -> Option<(Template, Vec<u32>)> {
    let local: Vec<u32> = rows_of.iter().copied().filter(|&x| (x as usize) < rows.n_local).collect();
    let step = local.len().div_ceil(SAMPLE).max(1);
    let (mut sample, mut sets, mut held) = (Vec::new(), Vec::new(), 0);
    let mut buf = Vec::new();
    for &x in local.iter().step_by(step) {
        let s = rows.set(x as usize, &mut buf, ctx);
        held += s.shingles.len() + s.figures.len();
        sample.push(x);
        sets.push(s);
        if held > SAMPLE_SHINGLES {
            break;
        }
    }
    let mut shingles: Vec<Vec<u64>> = sets.iter_mut().map(|s| std::mem::take(&mut s.shingles)).collect();
    let frame = frame_keys::learn(&shingles);
    sets.iter_mut().zip(&mut shingles).for_each(|(s, h)| s.shingles = std::mem::take(h));
    if frame.is_empty() {
        return None;
    }
    let mut tick = || ctx.check();
    let mates: Vec<(u32, Prepared)> =
        sample.iter().take(MATES + 1).map(|&x| (x, rows.tokens(x as usize, rule, &mut buf, &mut tick))).collect();
    let template = Template { frame, members: Vec::new(), free: Vec::new(), ends: Vec::new(), mates };
    let free: Vec<Vec<u32>> = sets.iter().map(|s| free_of(&template.frame, s)).collect();
    // A template's rows are mostly its frame: rows that share a common phrase (a run of 246 rows
    // of 1M Markov paragraphs, most of whose shingles none of the others hold) are none.
    let framed = sets.iter().zip(&free).filter(|(s, f)| 2 * f.len() <= s.shingles.len()).count();
    if 2 * framed < sets.len() {
        return None;
    }
    if guard(rows, &template, &sample, &sets, &free, rule, ctx) {
        return None;
    }
    Some((template, local))
}

/// The free shingles of a row whose sets are `s`, off `frame`: the low 32 bits of their hashes,
/// ascending, distinct.
fn free_of(frame: &[u64], s: &Sets) -> Vec<u32> {
    let mut f: Vec<u32> = s.shingles.iter().filter(|h| frame.binary_search(h).is_err()).map(|&h| h as u32).collect();
    f.sort_unstable();
    f.dedup();
    f
}

/// The members among `chunk` (local rows of a template whose frame is `frame`, ascending): their
/// rows, and their free shingles as [`Template`] holds them. On a worker, beside the other chunks.
pub(super) fn members(rows: &Rows, frame: &[u64], chunk: &[u32], ctx: &Ctx<Msg>) -> Members {
    let (mut m, mut buf) = (Members::default(), Vec::new());
    for (i, &x) in chunk.iter().enumerate() {
        let f = free_of(frame, &rows.set(x as usize, &mut buf, ctx));
        if (1..=CAP).contains(&f.len()) {
            m.rows.push(x);
            m.free.extend(f);
            m.ends.push(m.free.len() as u32);
        }
        if i & 0xFF == 0 {
            ctx.check();
        }
    }
    m
}

/// Some of a template's members ([`members`]); `ends` from the chunk's own start.
#[derive(Default)]
pub(super) struct Members {
    rows: Vec<u32>,
    free: Vec<u32>,
    ends: Vec<u32>,
}

/// Whether the decision keeps a pair of sampled rows (`sample`, their `sets` and `free`
/// shingles) that the join would not find: two rows at θ sharing too few free shingles, drawn
/// at random (the same draws for the same rows), [`GUARD_DRAWN`] drawn and up to
/// [`GUARD_DECIDED`] of those decided. Where a share `p` of such pairs are the same passage, 256
/// decided miss them all with probability `(1 − p)^256` (0.08 at 1%). A cloud of reposts is
/// seen at its first pair; a template costs 256 decisions, where the bands decided every pair.
fn guard(
    rows: &Rows,
    template: &Template,
    sample: &[u32],
    sets: &[Sets],
    free: &[Vec<u32>],
    rule: Rule,
    ctx: &Ctx<Msg>,
) -> bool {
    let n = sample.len();
    let mut draws = super::sketch::Draws(super::sketch::mix(u64::from(sample[0]) ^ 0x5445_4D50));
    let (mut buf, mut decided) = (Vec::new(), 0);
    let mut tick = || ctx.check();
    for _ in 0..GUARD_DRAWN {
        let (a, b) = (draws.below(n), draws.below(n));
        let (fa, fb) = (&free[a], &free[b]);
        if a == b || fa.is_empty() || fb.is_empty() || fa.len() > CAP || fb.len() > CAP {
            continue;
        }
        if join::shared(fa, fb) >= join::required(fa.len().min(fb.len())) {
            continue;
        }
        let (x, y) = (sample[a].min(sample[b]), sample[a].max(sample[b]));
        if !rows.sizes_allow(x, y) || similarity(&sets[a], &sets[b]) < rows.theta {
            continue;
        }
        let tx = rows.tokens(x as usize, rule, &mut buf, &mut tick);
        let ty = rows.tokens(y as usize, rule, &mut buf, &mut tick);
        if template.decide(rule, x, &tx, &ty, &mut None, &mut tick) {
            return true;
        }
        decided += 1;
        if decided == GUARD_DECIDED {
            break;
        }
    }
    false
}

/// The templates of a run that decides under `rule` (none with [`Mode::Off`] or without a
/// rule), on `pool`'s workers: every band's heavy runs, a few bands at a time (each band's
/// joined and dropped as it comes), each candidate learned, then its members a chunk at a time.
#[allow(clippy::too_many_arguments)]
pub(super) fn phase(
    pool: &mut Pool<Msg>,
    counters: &Counters,
    rule: Option<Rule>,
    mode: Mode,
    rows: &Arc<Rows>,
    reps: &Arc<Vec<u32>>,
    links: &[(u32, u32)],
    cb: &mut dyn FnMut(Progress),
) -> Templates {
    let Some(rule) = rule.filter(|_| mode != Mode::Off) else { return Templates::default() };
    counters.set_phase(Phase::Templates);
    let n = rows.sizes.len();
    let learning = super::heavy::find(pool, rows, reps, cb).into_iter().map(|c| -> super::pool::Job<Msg> {
        let r = Arc::clone(rows);
        Box::new(move |ctx| ctx.send(Msg::Template(learn(&r, &c, rule, ctx).map(Box::new))))
    });
    let mut list = Vec::new();
    pool.run_each(learning.collect(), cb, |m| match m {
        Msg::Template(t) => list.extend(t.map(|t| *t)),
        _ => unreachable!("only templates are out"),
    });
    // In the rows' order, whichever worker learned each first; then their members.
    list.sort_unstable_by_key(|t| t.1.first().copied());
    let (mut list, locals): (Vec<Template>, Vec<Vec<u32>>) = list.into_iter().unzip();
    let frames = Arc::new(list.iter().map(|t| t.frame.clone()).collect::<Vec<_>>());
    let locals = Arc::new(locals);
    let mut jobs: Vec<super::pool::Job<Msg>> = Vec::new();
    for (i, local) in locals.iter().enumerate() {
        for c in 0..local.len().div_ceil(MEMBERS_CHUNK) {
            let (r, frames, locals) = (Arc::clone(rows), Arc::clone(&frames), Arc::clone(&locals));
            jobs.push(Box::new(move |ctx| {
                let chunk = &locals[i][c * MEMBERS_CHUNK..((c + 1) * MEMBERS_CHUNK).min(locals[i].len())];
                ctx.send(Msg::Members(i, c, Box::new(members(&r, &frames[i], chunk, ctx))));
            }));
        }
    }
    let mut chunks = Vec::new();
    pool.run_each(jobs, cb, |m| match m {
        Msg::Members(i, c, m) => chunks.push((i, c, m)),
        _ => unreachable!("only members are out"),
    });
    chunks.sort_unstable_by_key(|m| (m.0, m.1));
    for (i, _, m) in chunks {
        list[i].add(*m);
    }
    let members: usize = list.iter().map(|t| t.members.len()).sum();
    counters.templated.store(members as u64, Ordering::Relaxed);
    if !list.is_empty() {
        cb(Progress::Phase(format!(
            "{} template{}, {members} rows: their pairs {} by their shingles off the frame",
            list.len(),
            if list.len() == 1 { "" } else { "s" },
            if mode == Mode::Joined { "joined" } else { "framed, every pair banded," }
        )));
    }
    Templates::of(mode, n, list, links)
}
