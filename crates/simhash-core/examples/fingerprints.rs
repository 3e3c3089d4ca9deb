//! Every fingerprint of a corpus, one paragraph per line, under several option sets:
//! the regression check for performance work, which must not change a single bit.
//!
//!     cargo run --release -p simhash-core --example fingerprints -- CORPUS.txt > new.txt
//!     diff old.txt new.txt   # old.txt from the same command at the previous commit
//!
//! Each output line: paragraph number, then the hex fingerprints under definition 0 with
//! jieba/tfidf (0.3.0's default), jieba/tf, jieba/binary, ngram(2)/tfidf and ngram(3)/tf
//! (the columns of 0.3.0's version of this example, so its output diffs against these),
//! then the same five under definition 1 (`NULL` for a text it declines), then under
//! definition 2.

use std::io::Write;

use simhash_core::{Definition, Lexicon, Options, Tokenizer, Weighting};

fn main() {
    let path = std::env::args().nth(1).expect("usage: fingerprints CORPUS.txt");
    let text = std::fs::read_to_string(&path).expect("read corpus");
    let lex = Lexicon::global();
    let shapes = [
        (Tokenizer::Jieba, Weighting::Tfidf),
        (Tokenizer::Jieba, Weighting::Tf),
        (Tokenizer::Jieba, Weighting::Binary),
        (Tokenizer::Ngram(2), Weighting::Tfidf),
        (Tokenizer::Ngram(3), Weighting::Tf),
    ];
    let sets: Vec<Options> = [Definition::V0, Definition::V1, Definition::V2]
        .iter()
        .flat_map(|&d| shapes.iter().map(move |&(t, w)| Options::new(d, t, w)))
        .collect();
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (i, doc) in text.lines().enumerate() {
        write!(out, "{i}").unwrap();
        for o in &sets {
            match simhash_core::simhash_text(lex, doc, o) {
                Some(fp) => write!(out, " {fp:016x}").unwrap(),
                None => write!(out, " NULL").unwrap(),
            }
        }
        writeln!(out).unwrap();
    }
}
