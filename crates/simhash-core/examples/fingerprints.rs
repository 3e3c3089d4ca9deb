//! Every fingerprint of a corpus, one paragraph per line, under several option sets:
//! the regression check for performance work, which must not change a single bit.
//!
//!     cargo run --release -p simhash-core --example fingerprints -- CORPUS.txt > new.txt
//!     diff old.txt new.txt   # old.txt from the same command at the previous commit
//!
//! Each output line: paragraph number, then the hex fingerprints under jieba/tfidf
//! (the default), jieba/tf, jieba/binary, ngram(2)/tfidf and ngram(3)/tf.

use std::io::Write;

use simhash_core::{Lexicon, Options, Tokenizer, Weighting};

fn main() {
    let path = std::env::args().nth(1).expect("usage: fingerprints CORPUS.txt");
    let text = std::fs::read_to_string(&path).expect("read corpus");
    let lex = Lexicon::global();
    let sets = [
        Options::default(),
        Options { tokenizer: Tokenizer::Jieba, weighting: Weighting::Tf },
        Options { tokenizer: Tokenizer::Jieba, weighting: Weighting::Binary },
        Options { tokenizer: Tokenizer::Ngram(2), weighting: Weighting::Tfidf },
        Options { tokenizer: Tokenizer::Ngram(3), weighting: Weighting::Tf },
    ];
    let out = std::io::stdout();
    let mut out = std::io::BufWriter::new(out.lock());
    for (i, doc) in text.lines().enumerate() {
        write!(out, "{i}").unwrap();
        for o in &sets {
            write!(out, " {:016x}", simhash_core::simhash_text(lex, doc, o)).unwrap();
        }
        writeln!(out).unwrap();
    }
}
