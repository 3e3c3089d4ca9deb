//! `simhash_explain(a text, b text)` (sql/similarity/explain.sql, since 4.0.0): every distinct
//! shingle and figure of either text, as the measure reads it, and which text has it; the
//! similarity and both containments they add up to are given on every row, and equal
//! `simhash_similarity` and `simhash_containment` of the two texts (the core's `explain`). The segments' explanation of
//! 3.x is `simhash_segments_explain` (sql/segments/explain.sql). Measure 1's is
//! `simhash_explain_m1` (4.0.0's `simhash_explain`), on 4.x's symbol.

use pgrx::prelude::*;
use simhash_core::decision::Rule;
use simhash_core::similarity::explain::explain;
use simhash_core::similarity::Version;

use super::tick;

const F: &str = "simhash_explain";

/// UTF-8 bytes as a str (the SQL wrapper converted them with `convert_to(doc, 'UTF8')`; in a
/// SQL_ASCII database the bytes are taken as UTF-8), else ERROR 22021.
pub(crate) fn utf8(doc: &[u8]) -> &str {
    std::str::from_utf8(doc).unwrap_or_else(|e| {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_CHARACTER_NOT_IN_REPERTOIRE,
            format!("{F}: invalid byte sequence for encoding \"UTF8\" at byte {}", e.valid_up_to())
        );
    })
}

/// The rows of `simhash_explain(a, b)`, measure 2: each shingle and figure, its kind, as UTF-8.
#[allow(clippy::type_complexity)]
#[pg_extern(name = "simhash_explain_items_utf8", immutable, strict, parallel_safe)]
fn simhash_explain_items_utf8(
    a: &[u8],
    b: &[u8],
) -> TableIterator<
    'static,
    (
        name!(kind, &'static str),
        name!(item, Vec<u8>),
        name!(in_a, bool),
        name!(in_b, bool),
        name!(similarity, f64),
        name!(a_in_b, f64),
        name!(b_in_a, f64),
    ),
> {
    let (rows, s, ab, ba) = explain(utf8(a), utf8(b), Version::M2, &mut tick);
    TableIterator::new(rows.into_iter().map(move |r| (r.kind.name(), r.text.into_bytes(), r.in_a, r.in_b, s, ab, ba)))
}

/// The dedup decision's rows of `simhash_explain` by `rule`: one per difference of the two
/// texts (kind `difference`, item "a's tokens → b's tokens: what it is, what it costs", ∅ for a
/// side without tokens; in_a and in_b: whether each side has tokens), and one with the verdict
/// (kind `decision`).
fn decision_rows(a: &[u8], b: &[u8], rule: Rule) -> TableIterator<'static, (&'static str, Vec<u8>, bool, bool)> {
    let (verdict, rows) = simhash_core::decision::explain(rule, utf8(a), utf8(b), &mut tick);
    let differences = rows.into_iter().map(|d| {
        let side = |s: &str| if s.is_empty() { "∅".to_owned() } else { s.to_owned() };
        let item = format!("{} → {}: {}, costs {}", side(&d.a), side(&d.b), d.what, d.cost);
        ("difference", item.into_bytes(), !d.a.is_empty(), !d.b.is_empty())
    });
    let decision = ("decision", verdict.describe().into_bytes(), verdict.duplicate, verdict.duplicate);
    TableIterator::new(differences.chain(std::iter::once(decision)))
}

/// `simhash_explain_d2`'s decision rows (6.0.0's `simhash_explain`, decision 2), on 6.0.0's
/// symbol.
#[allow(clippy::type_complexity)]
#[pg_extern(name = "simhash_explain_decision_utf8", immutable, strict, parallel_safe)]
fn simhash_explain_decision_utf8(
    a: &[u8],
    b: &[u8],
) -> TableIterator<'static, (name!(kind, &'static str), name!(item, Vec<u8>), name!(in_a, bool), name!(in_b, bool))> {
    decision_rows(a, b, Rule::D2)
}

/// `simhash_explain(a, b)`'s decision rows since 7.0.0: decision 3, balanced (the costs are
/// the same at every strictness; only what is allowed moves: `simhash_same_passage(a, b,
/// decision)` gives the verdict at another).
#[allow(clippy::type_complexity)]
#[pg_extern(name = "simhash_explain_decision_d3_utf8", immutable, strict, parallel_safe)]
fn simhash_explain_decision_d3_utf8(
    a: &[u8],
    b: &[u8],
) -> TableIterator<'static, (name!(kind, &'static str), name!(item, Vec<u8>), name!(in_a, bool), name!(in_b, bool))> {
    decision_rows(a, b, Rule::LATEST)
}

pgrx::extension_sql_file!(
    "../../sql/similarity/explain.sql",
    name = "similarity_explain",
    requires = [simhash_explain_shingles_utf8, simhash_explain_items_utf8, simhash_explain_decision_d3_utf8, "explain"]
);
