//! The pairs of one template's members (`templates.rs`), on a worker: the join of their free
//! shingles (`join.rs`), each pair it finds measured and decided with the first member's frame,
//! then the pairs of two members both kept with a third (two reposts of one row, each with an
//! edit of its own, share less than the join asks: `join::required`).

use super::bands::Measurer;
use super::join::{self, Lists, Postings};
use super::pool::Ctx;
use super::radix::sort_high;
use super::templates::{Template, HEAVY};
use super::{Msg, Rows};
use crate::decision::Rule;
use crate::similarity::measure::similarity;

/// Pairs drawn from the holders of a shingle [`HEAVY`] members hold ([`sub_frame`]).
const SUB_DRAWN: usize = 8;
/// The most pairs a row's own kept pairs are joined into (two reposts of it): past that, its
/// pairs are the decision's to find through the others.
const HOP_AT_MOST: usize = 256;

/// The members' free shingles without those of a template inside the template: a shingle
/// [`HEAVY`] members or more hold is frame too unless pairs drawn from its holders are the
/// join's candidates and the decision keeps one (a row reposted hundreds of times). So are the
/// shingles where the names meet the frame ("value" and a name's first letters, held by 1/676
/// of the rows: 1M rows of issue 55's template made 440,000 candidates of names that begin
/// alike with them, 37,850 without) and a sentence a hundredth of the rows append. A member
/// keeps its own if it would have none left. None when no shingle is frame.
fn sub_frame(t: &Template, postings: &Postings, m: &mut Measurer<'_>) -> Option<(Vec<u32>, Vec<u32>)> {
    let (rows, ctx) = (m.rows, m.ctx);
    let rule = rows.decide.expect("templates are found when the run decides");
    let mut frame = Vec::new();
    for (k, &h) in postings.keys().iter().enumerate() {
        if postings.holders(k).len() >= HEAVY && !holders_kept(rows, t, postings, k, h, rule, ctx) {
            frame.push(h);
        }
    }
    if frame.is_empty() {
        return None;
    }
    let lists = t.lists();
    let (mut free, mut ends) = (Vec::with_capacity(lists.free.len()), Vec::with_capacity(lists.len()));
    for i in 0..lists.len() {
        let own = lists.of(i);
        let from = free.len();
        free.extend(own.iter().copied().filter(|h| frame.binary_search(h).is_err()));
        if free.len() == from {
            free.extend_from_slice(own);
        }
        ends.push(free.len() as u32);
    }
    Some((free, ends))
}

/// Whether the decision (without a frame, which keeps more) keeps one of [`SUB_DRAWN`] pairs
/// drawn from the holders of shingle `h` (the `k`th of `postings`) that are the join's
/// candidates and at θ.
fn holders_kept(rows: &Rows, t: &Template, postings: &Postings, k: usize, h: u32, rule: Rule, ctx: &Ctx<Msg>) -> bool {
    let (lists, n, mut draws) = (t.lists(), postings.holders(k).len(), super::sketch::Draws(u64::from(h)));
    let mut next = || postings.holder(k, draws.below(n)) as usize;
    let (mut buf, mut tick) = (Vec::new(), || ctx.check());
    for _ in 0..SUB_DRAWN {
        let (i, j) = (next(), next());
        let (a, b) = (lists.of(i), lists.of(j));
        if i == j || join::shared(a, b) < join::required(a.len().min(b.len())) {
            continue;
        }
        let (x, y) = (t.members[i.min(j)], t.members[i.max(j)]);
        if !rows.sizes_allow(x, y)
            || similarity(&rows.set(x as usize, &mut buf, ctx), &rows.set(y as usize, &mut buf, ctx)) < rows.theta
        {
            continue;
        }
        let (tx, ty) =
            (rows.tokens(x as usize, rule, &mut buf, &mut tick), rows.tokens(y as usize, rule, &mut buf, &mut tick));
        if crate::decision::decide(rule, &tx, &ty, None, &mut tick).duplicate {
            return true;
        }
    }
    false
}

/// The join of template `t` (`join.rs`), on a worker: its members' pairs measured and decided
/// (`m`), then the pairs of two rows a third is kept with; [`Msg::BandDone`] at the end.
pub(super) fn join(t: &Template, m: &mut Measurer<'_>) {
    let rows = m.rows;
    let ctx = m.ctx;
    let all = t.lists();
    let postings = Postings::of(&all, &mut || ctx.check());
    let own = sub_frame(t, &postings, m);
    let lists = own.as_ref().map_or(t.lists(), |(f, e)| Lists { free: f, ends: e });
    let direct = join::pairs(&lists, &all, &postings, &mut || ctx.check());
    drop(postings);
    let row = |i: u32| t.members[i as usize];
    rows.counters.candidates.fetch_add(direct.len() as u64, std::sync::atomic::Ordering::Relaxed);
    let mut kept = Vec::new();
    for &(i, j) in &direct {
        if m.take_joined(row(i), row(j)) == Some(true) {
            kept.push((i, j));
        }
    }
    // Two rows kept with a third: each member's kept neighbours, pairs of them not yet measured.
    let mut by_row: Vec<u64> = kept
        .iter()
        .flat_map(|&(i, j)| [(u64::from(i) << 32) | u64::from(j), (u64::from(j) << 32) | u64::from(i)])
        .collect();
    sort_high(&mut by_row, &mut Vec::new(), &mut || ctx.check());
    let mut hops = Vec::new();
    for nb in by_row.chunk_by(|a, b| a >> 32 == b >> 32) {
        if nb.len() < 2 || nb.len() > HOP_AT_MOST {
            continue;
        }
        let mut near: Vec<u32> = nb.iter().map(|&v| v as u32).collect();
        near.sort_unstable();
        for (a, &i) in near.iter().enumerate() {
            hops.extend(near[a + 1..].iter().map(|&j| (i, j)).filter(|p| direct.binary_search(p).is_err()));
        }
        ctx.check();
    }
    hops.sort_unstable();
    hops.dedup();
    rows.counters.candidates.fetch_add(hops.len() as u64, std::sync::atomic::Ordering::Relaxed);
    for &(i, j) in &hops {
        m.take_joined(row(i), row(j));
    }
}
