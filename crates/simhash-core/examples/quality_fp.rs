//! Fingerprints for `make quality` (tests/quality): one JSON string (a text) per line on
//! stdin, one fingerprint per line on stdout, as a signed 64-bit decimal (SQL's bigint)
//! or `NULL` when the definition gives the text none.
//!
//!     quality_fp --options '{"definition": "0"}'   # exactly as simhash(doc, options)
//!     quality_fp --rules 'tf=log,num=drop,single=0.5,min=0'   # a candidate definition
//!
//! `--rules` starts from definition 1's rules and sets: `tf=raw|log|sqrt|bm25|powP`, `idfp=P`
//! (IDF power),
//! `num=keep|drop|shape`, `numw=F` (factor on kept numbers), `single=F|keep|drop`
//! (factor on single Han characters; `w:F` too), `unk=median|F` (IDF of unknown words),
//! `hmm=0|1`, `fold=0|1` (definition 2's fold of traditional characters), `min=N` (fewest
//! features for a fingerprint), `w=tfidf|tf|binary`, `sum=f64|exact` (exact integer
//! sums, order-independent: issue 29's prototype, in no definition),
//! `tok=jieba|ngramN`, `ntf=raw|log|sqrt` (non-Han words' TF), `eng=0|1` (English IDFs), `kana=0|1` (hiragana runs dropped),
//! `seg=runs|winnowK:W[:PER[:1]]` (what a segment is; `:1` keeps shingles within sentences), `def=3` (definition 3's rules; later keys
//! change them).
//!
//!     quality_fp --segments [--options JSON | --rules SPEC]   # segment fingerprints, as simhash_segments
//!
//! `--segments` prints, per text, its distinct segment fingerprints in text order as a JSON
//! array of signed 64-bit integers (`[]` for a text with fewer than 6 features).

use std::io::{BufRead, Write};

use simhash_core::fingerprints::{Definition, Numbers, SegmentUnit, Tf};
use simhash_core::RawOptions;
use simhash_core::{Lexicon, Options, Rules, Tokenizer, Weighting};

fn parse_rules(spec: &str) -> Rules {
    let mut r = Rules::from(&Options::v1());
    let num = |v: &str| v.trim_start_matches("w:").parse::<f64>().unwrap_or_else(|_| panic!("not a number: {v}"));
    for kv in spec.split(',').filter(|s| !s.is_empty()) {
        let (k, v) = kv.split_once('=').unwrap_or_else(|| panic!("expected key=value, got {kv}"));
        match (k, v) {
            ("tf", "raw") => r.tf = Tf::Raw,
            ("tf", "log") => r.tf = Tf::Log,
            ("tf", "sqrt") => r.tf = Tf::Sqrt,
            ("tf", "bm25") => r.tf = Tf::Bm25,
            ("tf", v) if v.starts_with("pow") => r.tf = Tf::Pow(num(&v[3..])),
            ("ntf", "raw") => r.non_han_tf = Tf::Raw,
            ("ntf", "log") => r.non_han_tf = Tf::Log,
            ("ntf", "sqrt") => r.non_han_tf = Tf::Sqrt,
            ("idfp", v) => r.idf_power = num(v),
            ("num", "keep") => r.numbers = Numbers::Keep,
            ("num", "drop") => r.numbers = Numbers::Drop,
            ("num", "shape") => r.numbers = Numbers::Shape,
            ("numw", v) => r.number_weight = num(v),
            ("single", "keep") => r.single_han = 1.0,
            ("single", "drop") => r.single_han = 0.0,
            ("single", v) => r.single_han = num(v),
            ("unk", "median") => r.unknown_idf = None,
            ("unk", v) => r.unknown_idf = Some(num(v)),
            ("hmm", v) => r.hmm = v == "1",
            ("fold", v) => r.fold_traditional = v == "1",
            ("sum", "f64") => r.exact_sums = false,
            ("sum", "exact") => r.exact_sums = true,
            ("eng", v) => r.english_idf = v == "1",
            ("kana", v) => r.kana = v == "1",
            ("seg", "runs") => r.segments = SegmentUnit::Runs,
            ("seg", v) if v.starts_with("winnow") => {
                let p: Vec<&str> = v[6..].split(':').collect();
                let n = |i: usize| p.get(i).map_or(0, |x| x.parse::<u16>().expect("winnowK:W[:PER]"));
                r.segments = SegmentUnit::Winnow { k: n(0) as u8, w: n(1) as u8, per: n(2), sentences: n(3) == 1 };
            }
            ("def", "3") => r = Rules::from(&Options::new(Definition::V3, Tokenizer::Jieba, Weighting::Tfidf)),
            ("min", v) => r.min_features = v.parse().expect("min=N"),
            ("w", "tfidf") => r.weighting = Weighting::Tfidf,
            ("w", "tf") => r.weighting = Weighting::Tf,
            ("w", "binary") => r.weighting = Weighting::Binary,
            ("tok", "jieba") => r.tokenizer = Tokenizer::Jieba,
            ("tok", v) if v.starts_with("ngram") => r.tokenizer = Tokenizer::Ngram(v[5..].parse().expect("ngramN")),
            _ => panic!("unknown rule {kv}"),
        }
    }
    r
}

/// What the run prints per text: one fingerprint under these rules, or the segments.
enum Mode {
    Fingerprint(Rules),
    Segments(Rules),
}

fn options(json: &str) -> Options {
    let raw: RawOptions = serde_json::from_str(json).expect("options JSON");
    Options::try_from(raw).expect("valid options")
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mode = match args.iter().map(String::as_str).collect::<Vec<_>>().as_slice() {
        ["--options", json] => Mode::Fingerprint(Rules::from(&options(json))),
        ["--rules", spec] => Mode::Fingerprint(parse_rules(spec)),
        ["--segments"] => Mode::Segments(Rules::from(&Options::default())),
        ["--segments", "--options", json] => Mode::Segments(Rules::from(&options(json))),
        ["--segments", "--rules", spec] => Mode::Segments(parse_rules(spec)),
        _ => panic!("usage: quality_fp --options JSON | --rules SPEC | --segments [--options JSON]"),
    };
    let lex = Lexicon::global();
    let mut out = std::io::BufWriter::new(std::io::stdout().lock());
    for line in std::io::stdin().lock().lines() {
        let doc: String = serde_json::from_str(&line.expect("stdin")).expect("one JSON string per line");
        match &mode {
            Mode::Fingerprint(rules) => match simhash_core::simhash_rules(lex, &doc, rules) {
                Some(fp) => writeln!(out, "{}", fp as i64),
                None => writeln!(out, "NULL"),
            },
            Mode::Segments(rules) => {
                // Signed, as SQL's bigint[] holds them.
                let signed: Vec<i64> = simhash_core::fingerprints::segments_with(lex, &doc, rules, &mut || ())
                    .into_iter()
                    .map(|fp| fp as i64)
                    .collect();
                writeln!(out, "{}", serde_json::to_string(&signed).expect("JSON"))
            }
        }
        .expect("stdout");
    }
}
