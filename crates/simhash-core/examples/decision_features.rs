//! The features decision 3 is fitted on (tests/quality/fit_decision.py): stdin `[a, b [, mates]]`
//! a line (mates: texts of a's table that tell its frame); stdout a JSON object a line: decision 2's verdict, the hunk features summed over the
//! pair's hunks ("hunk", `decision::fitted::HUNK_FEATURES`), the pair's own ("pair"), and the
//! shorter text's weight ("w"). The texts are read as decision 3 reads them.
use std::io::{BufRead, Write};

use simhash_core::decision::{fitted, Rule};

fn main() {
    if std::env::args().any(|a| a == "--names") {
        let names: Vec<&str> = fitted::HUNK_FEATURES.iter().chain(&fitted::PAIR_FEATURES).copied().collect();
        println!("{}", serde_json::to_string(&names).expect("json"));
        return;
    }
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for l in std::io::stdin().lock().lines() {
        let v: serde_json::Value = serde_json::from_str(&l.expect("stdin")).expect("a JSON line");
        let (a, b) = (v[0].as_str().expect("a"), v[1].as_str().expect("b"));
        let d2 = simhash_core::decision::decide(Rule::D2, a, b, None, &mut || ()).duplicate;
        let mates: Vec<&str> =
            v.get(2).and_then(|m| m.as_array()).map_or(Vec::new(), |m| m.iter().filter_map(|x| x.as_str()).collect());
        let o = fitted::features_json(a, b, &mates);
        let mut o: serde_json::Value = serde_json::from_str(&o).expect("json");
        o["d2"] = d2.into();
        writeln!(out, "{o}").expect("stdout");
    }
}
