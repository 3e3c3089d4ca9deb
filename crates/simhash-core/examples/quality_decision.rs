//! The decision on pairs of texts, for `make quality` (tests/quality/decision.py): stdin `[a,
//! b]` a line; stdout a JSON object a line: the verdict ("dup", "reason", "cost", "allowed").
//! By default the latest decision at `strictness=` (balanced: decision 3); with `d2`, 6.0's,
//! and then with `hunks` every hunk (its sides' text and flags, its cost) and with
//! `params={...}` (JSON) other parameters than 6.0's, for measuring them.
use std::io::{BufRead, Write};

use simhash_core::decision::{compare, decide, diff::Side, Params, Rule, Strictness, Version};

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let hunks = args.iter().any(|a| a == "hunks");
    if !args.iter().any(|a| a == "d2" || a.starts_with("params=")) {
        let strictness = args
            .iter()
            .find_map(|a| a.strip_prefix("strictness="))
            .map_or(Strictness::Balanced, |s| Strictness::parse(s).expect("loose, balanced or strict"));
        let rule = Rule { strictness, ..Rule::LATEST };
        let mut out = std::io::BufWriter::new(std::io::stdout().lock());
        for l in std::io::stdin().lock().lines() {
            let v: serde_json::Value = serde_json::from_str(&l.expect("stdin")).expect("a JSON line");
            let (a, b) = (v[0].as_str().expect("a"), v[1].as_str().expect("b"));
            let verdict = decide(rule, a, b, None, &mut || ());
            let o = serde_json::json!({
                "dup": verdict.duplicate, "reason": format!("{:?}", verdict.reason),
                "cost": verdict.cost, "allowed": verdict.allowed,
            });
            writeln!(out, "{o}").expect("stdout");
        }
        return;
    }
    let mut p = Version::D2.params();
    if let Some(j) = args.iter().find_map(|a| a.strip_prefix("params=")) {
        let v: serde_json::Value = serde_json::from_str(j).expect("params JSON");
        let get = |k: &str, d: u64| v.get(k).and_then(|x| x.as_u64()).unwrap_or(d);
        p = Params {
            budget: get("budget", p.budget),
            typo: get("typo", p.typo),
            insertion: get("insertion", p.insertion),
            reworded: get("reworded", p.reworded),
            slot: get("slot", p.slot.into()) as u32,
            slot_floor: get("slot_floor", p.slot_floor.into()) as u32,
            sentences: get("sentences", p.sentences),
            edge_free: get("edge_free", p.edge_free.into()) as u32,
            figure: get("figure", p.figure.into()) as u32,
            passage: get("passage", p.passage),
            agreement: get("agreement", p.agreement.into()) as u32,
        };
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for l in std::io::stdin().lock().lines() {
        let v: serde_json::Value = serde_json::from_str(&l.expect("stdin")).expect("a JSON line");
        let o = compare(v[0].as_str().expect("a"), v[1].as_str().expect("b"), |c| {
            let verdict = p.verdict(c);
            let mut o = serde_json::json!({
                "dup": verdict.duplicate, "reason": format!("{:?}", verdict.reason),
                "cost": verdict.cost, "allowed": verdict.allowed,
                "wa": c.a.weight(), "wb": c.b.weight(), "matched": c.matched(),
            });
            if hunks {
                let side = |s: &Side| serde_json::json!([s.tokens, s.weight, s.sentences, s.clauses, s.moved]);
                let hs: Vec<serde_json::Value> = c
                    .diffs
                    .iter()
                    .zip(&verdict.costs)
                    .map(|(d, cost)| {
                        serde_json::json!({
                            "a": c.side_text(d, true), "b": c.side_text(d, false), "sa": side(&d.a), "sb": side(&d.b),
                            "edge": d.edge, "truncated": d.truncated, "distance": d.distance,
                            "figures": d.figures_changed, "cost": cost,
                        })
                    })
                    .collect();
                o["hunks"] = hs.into();
            }
            o
        });
        writeln!(out, "{o}").expect("stdout");
    }
}
