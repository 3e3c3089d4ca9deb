//! What a framed lookup (`similarity::frame_keys`) reads and finds on a table of one template,
//! against the unframed lookup (issue 55):
//!
//!   template_lookup [rows=20000] [queries=1000] [seed=1]
//!
//! The table is issue 55's: rows of "For an explanation of the terms used in this section, see
//! attributes(7). Interface Attribute Value <name>() Thread safety MT-Safe", <name> 10 to 20
//! random letters. The frame keys are learned from the index keys of `learn` (1,024) of its rows (as the
//! dedup trigger learns them from a check's candidates). Each query is the dedup trigger's pair
//! of lookups (similarity 0.5, containment 0.8 either way), or-ed:
//! - a new row of the frame: how many rows each lookup keeps, and how many posting entries GIN
//!   must read in full (the lists of the keys it cannot skip: every list unframed, the free
//!   keys' framed, the rarest key's when no key is free);
//! - a repost of a row (a full stop added, and, harder, one frame word changed): whether each
//!   lookup keeps the row (`SHOW=1` in the environment prints the framed lookup's misses).
//!
//! It also prints the table's longest posting lists, which say what the frame keys are.

mod common;
use common::{named, template_row, Names};

use std::collections::HashMap;

use simhash_core::similarity::frame_keys::{learn, Framed, LEARN_AT_MOST};
use simhash_core::similarity::lookup::{lookup, lookup_either_way, Lookup};
use simhash_core::similarity::{index_keys, sample, KeyParams, Measure, Version};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let rows: usize = named(&args, "rows", 20_000);
    let queries: usize = named(&args, "queries", 1000);
    let mut names_from = Names::new(named(&args, "seed", 1));
    let mut name = || names_from.next_name();
    let frame = template_row;
    let v = Version::M2;
    let p = KeyParams::of(v);
    let keys = |t: &str| index_keys(&sample(t, &p, &mut || ()), &p);
    let names: Vec<String> = (0..rows).map(|_| name()).collect();
    let row_keys: Vec<Vec<i32>> = names.iter().map(|n| keys(&frame(n, "terms"))).collect();
    let mut post: HashMap<i32, Vec<u32>> = HashMap::new();
    for (i, ks) in row_keys.iter().enumerate() {
        for &k in ks {
            post.entry(k).or_default().push(i as u32);
        }
    }
    let from: usize = named(&args, "learn", LEARN_AT_MOST);
    let learned = learn(&row_keys[..from.min(rows)]);
    let mut sizes: Vec<usize> = post.values().map(Vec::len).collect();
    sizes.sort_unstable_by(|a, b| b.cmp(a));
    println!("largest lists: {:?}", &sizes[..80.min(sizes.len())]);
    println!("rows {rows}; frame keys learned from {from} rows: {}", learned.len());
    let lookups = |q: &str| -> [Lookup; 2] {
        [lookup(q, v, Measure::Similarity, 0.5, &mut || ()), lookup_either_way(q, v, 0.8, &mut || ())]
    };
    let list = |k: &i32| post.get(k).map_or(0, Vec::len);
    // The rows a lookup keeps, unframed and framed (rows holding one of its keys, tested).
    let kept = |l: &Lookup, framed: bool| -> Vec<u32> {
        let f = Framed::of(l.clone(), if framed { &learned } else { &[] });
        let mut touched: Vec<u32> = l.keys.iter().flat_map(|k| post.get(k).into_iter().flatten().copied()).collect();
        touched.sort_unstable();
        touched.dedup();
        touched.into_iter().filter(|&r| f.keeps(&row_keys[r as usize])).collect()
    };
    // Posting entries GIN reads in full: all lists unframed; framed, the free keys' (or the
    // rarest key's when none is free).
    let read = |l: &Lookup, framed: bool| -> usize {
        let f = Framed::of(l.clone(), if framed { &learned } else { &[] });
        match f.free {
            0 => f.lookup.keys.iter().map(list).min().unwrap_or(0),
            n => f.lookup.keys[..n].iter().map(list).sum(),
        }
    };
    let (mut cands, mut entries, mut no_free) = ([0usize; 2], [0usize; 2], 0usize);
    for _ in 0..queries {
        let q = frame(&name(), "terms");
        let ls = lookups(&q);
        for framed in [false, true] {
            let mut all: Vec<u32> = ls.iter().flat_map(|l| kept(l, framed)).collect();
            all.sort_unstable();
            all.dedup();
            cands[framed as usize] += all.len();
            entries[framed as usize] += ls.iter().map(|l| read(l, framed)).sum::<usize>();
        }
        no_free += usize::from(ls.iter().any(|l| Framed::of(l.clone(), &learned).free == 0));
    }
    let per = |x: usize| x as f64 / queries as f64;
    println!("new rows of the frame, {queries}: candidates unframed {:.1}, framed {:.1}", per(cands[0]), per(cands[1]));
    println!("  posting entries read in full: unframed {:.0}, framed {:.0}", per(entries[0]), per(entries[1]));
    println!("  queries with a lookup of no free key: {no_free}");
    for (what, word) in [("a full stop added", "terms"), ("a frame word changed", "words")] {
        let mut found = [0usize; 2];
        for i in 0..queries {
            let r = (i * rows / queries) as u32;
            let q = frame(&names[r as usize], word) + if word == "terms" { "." } else { "" };
            let ls = lookups(&q);
            for framed in [false, true] {
                found[framed as usize] += usize::from(ls.iter().any(|l| kept(l, framed).contains(&r)));
            }
            if std::env::var("SHOW").is_ok() && !ls.iter().any(|l| kept(l, true).contains(&r)) {
                for l in &ls {
                    let f = Framed::of(l.clone(), &learned);
                    let row = &row_keys[r as usize];
                    let held: Vec<bool> = f.lookup.keys.iter().map(|k| row.binary_search(k).is_ok()).collect();
                    eprintln!(
                        "miss {q}: keys {} required {} free {} held {:?}",
                        f.lookup.keys.len(),
                        f.lookup.required,
                        f.free,
                        held
                    );
                }
            }
        }
        println!("reposts, {what}: found unframed {}/{queries}, framed {}/{queries}", found[0], found[1]);
    }
}
