//! Rows with identical shingle sets, as one (`super`): found by the 64-bit hash of their
//! sets, each confirmed against its group's first row exactly (the sets re-made from the
//! spill file and compared whole), so that a hash collision costs a re-shingling and never a
//! wrong pair. A row that fails stays a group of its own.
//!
//! Only a group's first row (its representative) takes part in the bands; a pair of
//! representatives found there stands for every pair of their members (the sets, hence the
//! measure, are the same), and the members of a group are pairs of similarity 1 among
//! themselves. Ten thousand copies of a text cost ten thousand confirmations, not fifty
//! million candidates.

use super::pool::Ctx;
use super::radix::sort_high;
use super::{Msg, Rows};

/// Groups of rows (local, with shingles) whose set hashes are equal: rows of each group
/// ascending, concatenated, and where each group ends. Groups of one are left out.
pub(super) fn runs(rows: &Rows, hashes: &[u64], ctx: &Ctx<Msg>) -> (Vec<u32>, Vec<u32>) {
    let mut v: Vec<u64> = Vec::new();
    for (x, &h) in hashes.iter().enumerate() {
        if rows.sizes[x] > 0 {
            v.push((h >> 32 << 32) | x as u64);
        }
        if x & 0xFFFF == 0 {
            ctx.check();
        }
    }
    sort_high(&mut v, &mut Vec::new(), &mut || ctx.check());
    let (mut members, mut ends) = (Vec::new(), Vec::new());
    let mut s = 0;
    while s < v.len() {
        let high = v[s] >> 32;
        let e = s + v[s..].iter().take_while(|&&w| w >> 32 == high).count();
        if e - s >= 2 {
            // Equal upper halves: grouped by the whole hash, rows ascending within.
            let mut run: Vec<(u64, u32)> = v[s..e].iter().map(|&w| (hashes[w as u32 as usize], w as u32)).collect();
            run.sort_unstable();
            let mut a = 0;
            while a < run.len() {
                let n = run[a..].iter().take_while(|r| r.0 == run[a].0).count();
                if n >= 2 {
                    members.extend(run[a..a + n].iter().map(|r| r.1));
                    ends.push(members.len() as u32);
                }
                a += n;
            }
            ctx.check();
        }
        s = e;
    }
    (members, ends)
}

/// The `(representative, member)` links of the groups of `members` from `from` on, ending at
/// `ends` (indices into `members`), whose sets are confirmed equal to their first row's.
pub(super) fn confirm(rows: &Rows, members: &[u32], ends: &[u32], from: u32, ctx: &Ctx<Msg>) -> Vec<(u32, u32)> {
    let mut links = Vec::new();
    let mut buf = Vec::new();
    let mut s = from as usize;
    for &e in ends {
        let group = &members[s..e as usize];
        let rep = group[0];
        let set = rows.set(rep as usize, &mut buf, ctx);
        for &m in &group[1..] {
            ctx.check();
            if rows.sizes[m as usize] == rows.sizes[rep as usize] && rows.set(m as usize, &mut buf, ctx) == set {
                links.push((rep, m));
            }
        }
        s = e as usize;
    }
    links
}
