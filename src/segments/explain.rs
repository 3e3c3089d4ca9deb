//! `simhash_explain(a text, b text, options jsonb DEFAULT '{}')` (sql/segments/explain.sql):
//! one row per segment of either text, with the text it covers (its sentences under
//! definitions 1 and 2, the span of its shingle's words under definition 3) and its partner
//! in the other text (the core's `explain`), and the resemblance and containment the rows add
//! up to, which are `simhash_resemblance` and `simhash_containment` of the two texts' segments.
//!
//! `simhash_explain_utf8` defaults to definition 2, as in 2.2.0, whose `simhash_explain` (the
//! `simhash_explain_v2` of 3.0.0) passes the options as they are; 3.0.0's `simhash_explain`
//! passes `{"definition": "3"} || options`, as `simhash_features` does.

use pgrx::prelude::*;
use simhash_core::{Definition, Partner, Rules, SegmentText};

use super::options_within;
use crate::fingerprints::options::{jsonb_value, JsonbArg};

const F: &str = "simhash_explain";

/// The segments of a UTF-8 text, with the text each covers, cancellable as `simhash_segments`.
fn segment_texts(doc: &[u8], rules: &Rules) -> Vec<SegmentText> {
    // convert_to(doc, 'UTF8') in the SQL wrapper has converted to UTF-8 already; in a
    // SQL_ASCII database the bytes are taken as UTF-8, and refused if they are not.
    let doc = std::str::from_utf8(doc).unwrap_or_else(|e| {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_CHARACTER_NOT_IN_REPERTOIRE,
            format!("{F}: invalid byte sequence for encoding \"UTF8\" at byte {}", e.valid_up_to())
        );
    });
    simhash_core::segment_texts_with(crate::lexicon::lexicon(), doc, rules, &mut || {
        check_for_interrupts!();
    })
}

/// The rows of `simhash_explain`, the text each segment covers as UTF-8 (the SQL wrapper
/// converts it to the server encoding). Options: those of `simhash_segments`, plus
/// `"max_distance"` (0 under definition 3); definition 2 unless they name one (module docs).
// pgrx reads the column names from the signature itself: no type alias can stand for them.
#[allow(clippy::type_complexity)]
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_explain_utf8(
    a: &[u8],
    b: &[u8],
    options: JsonbArg,
) -> TableIterator<
    'static,
    (
        name!(side, &'static str),
        name!(segment, i32),
        name!(sentences, Vec<u8>),
        name!(fingerprint, i64),
        name!(matched, &'static str),
        name!(partner, Option<i32>),
        name!(distance, Option<i32>),
        name!(credit, f64),
        name!(resemblance, f64),
        name!(a_in_b, f64),
        name!(b_in_a, f64),
    ),
> {
    let (options, k) = options_within(jsonb_value(&options, F), Definition::V2, F);
    let rules = Rules::from(&options);
    let (ta, tb) = (segment_texts(a, &rules), segment_texts(b, &rules));
    let fps = |t: &[SegmentText]| t.iter().map(|s| s.fp).collect::<Vec<u64>>();
    let e = simhash_core::explain(&fps(&ta), &fps(&tb), k, &mut || {
        check_for_interrupts!();
    });
    let (resemblance, a_in_b, b_in_a) = (e.near.resemblance(), e.near.containment(), e.near.flip().containment());
    let rows = |side: &'static str, texts: Vec<SegmentText>, partners: Vec<Partner>| {
        texts.into_iter().zip(partners).enumerate().map(move |(i, (t, p))| {
            let (matched, partner, distance) = match p {
                Partner::Exact(j) => ("exact", Some(j), Some(0)),
                Partner::Within(j, d) => ("near", Some(j), Some(d as i32)),
                Partner::None => ("none", None, None),
            };
            let position = |j: usize| j as i32 + 1;
            (
                side,
                position(i),
                t.text.into_bytes(),
                t.fp as i64,
                matched,
                partner.map(position),
                distance,
                p.credit(),
                resemblance,
                a_in_b,
                b_in_a,
            )
        })
    };
    TableIterator::new(rows("a", ta, e.a).chain(rows("b", tb, e.b)).collect::<Vec<_>>())
}

pgrx::extension_sql_file!("../../sql/segments/explain.sql", name = "explain", requires = [simhash_explain_utf8]);
