//! The composite `simhash_query(query text, measure text, threshold float8)` that a
//! `simhash_ops` index lookup takes, and its operator `row @% q`: exactly
//! `simhash_similarity(q.query, row) >= q.threshold` (measure `similarity`),
//! `simhash_containment(q.query, row) >= q.threshold` (`query_in_row`) or
//! `simhash_containment(row, q.query) >= q.threshold` (`row_in_query`). The planner builds
//! these from the predicates (support.rs); the index finds candidates and `@%` rechecks them.
//! Measure 1 has its own type, `simhash_query_m1`, and its own `@%` (`simhash_query_match`,
//! 4.x's symbol), so that a query of one version never reaches another's index.

use std::borrow::Cow;

use pgrx::prelude::*;
use simhash_core::similarity::{Measure, Version};

use super::measure::{at_least_texts, Cache};
use super::{check_threshold, text_arg};
use crate::error::raise;
use crate::text::text_datum_to_utf8;

/// A lookup: the query text, the measure and the threshold.
pub(crate) struct Query<'a> {
    pub text: Cow<'a, str>,
    pub measure: Measure,
    pub threshold: f64,
}

/// The name of a measure in a `simhash_query`.
pub(crate) fn measure_name(m: Measure) -> &'static str {
    match m {
        Measure::Similarity => "similarity",
        Measure::QueryInRow => "query_in_row",
        Measure::RowInQuery => "row_in_query",
    }
}

/// The measure of a name, or ERROR 22023.
fn parse_measure(name: &str) -> Measure {
    match name {
        "similarity" => Measure::Similarity,
        "query_in_row" => Measure::QueryInRow,
        "row_in_query" => Measure::RowInQuery,
        _ => raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("simhash_query: unknown measure \"{name}\""),
            None,
            Some("The measures are similarity, query_in_row and row_in_query."),
        ),
    }
}

impl Query<'_> {
    /// The query of a non-NULL `simhash_query` datum; None when a field is NULL (a lookup
    /// that matches nothing).
    ///
    /// # Safety
    /// `datum` must be a non-NULL datum of the composite type `simhash_query`.
    pub(crate) unsafe fn from_datum<'a>(datum: pg_sys::Datum) -> Option<Query<'a>> {
        // SAFETY: a composite datum detoasts to a HeapTupleHeader carrying its type, which
        // GetAttributeByNum reads; the fields are (text, text, float8) by the type's definition.
        unsafe {
            let tuple = pg_sys::pg_detoast_datum(datum.cast_mut_ptr()) as pg_sys::HeapTupleHeader;
            let field = |n: i16| {
                let mut isnull = false;
                let d = pg_sys::GetAttributeByNum(tuple, n, &mut isnull);
                (!isnull).then_some(d)
            };
            let (text, measure, threshold) = (field(1)?, field(2)?, field(3)?);
            Some(Query {
                text: text_datum_to_utf8(text),
                measure: parse_measure(&text_datum_to_utf8(measure)),
                threshold: check_threshold(f64::from_datum(threshold, false)?, "simhash_query"),
            })
        }
    }

    /// Whether `row` matches: the measure at the threshold, exactly. The query's set is kept
    /// in `cache` while the query stays the same.
    pub(crate) fn matches(&self, cache: &mut Cache, row: &str) -> bool {
        let (q, t) = (&*self.text, self.threshold);
        match self.measure {
            Measure::Similarity | Measure::QueryInRow => {
                at_least_texts(cache, q, row, [true, false], self.measure, t, false)
            }
            Measure::RowInQuery => at_least_texts(cache, row, q, [false, true], Measure::QueryInRow, t, false),
        }
    }
}

/// `row @% q` under version `v`.
///
/// # Safety
/// `fcinfo` must be that of a STRICT (text, simhash_query) function.
pub(crate) unsafe fn query_match(fcinfo: pg_sys::FunctionCallInfo, v: Version) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe {
        let Some(q) = Query::from_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1)) else {
            return false.into();
        };
        let row = text_arg(fcinfo, 0);
        q.matches(Cache::of(fcinfo, v), &row).into()
    }
}

v1_function!(
    /// `row text @% q simhash_query → bool` (STRICT), measure 2.
    pg_finfo_simhash_query_match_m2, simhash_query_match_m2 => query_match, Version::M2
);

/// A `simhash_query` datum of type `typid` with these fields.
///
/// # Safety
/// `typid` must be a composite type `simhash_query` or `simhash_query_m1` (text, text,
/// float8); `text` a text
/// datum; must run inside a transaction.
pub(crate) unsafe fn query_datum(
    typid: pg_sys::Oid,
    text: pg_sys::Datum,
    measure: Measure,
    threshold: f64,
) -> pg_sys::Datum {
    // SAFETY: the type cache hands out a counted reference to the type's tuple descriptor,
    // which heap_form_tuple reads with three values of its attributes' types and which is
    // released before returning; the tuple is palloc'd in the current memory context.
    unsafe {
        let desc = pg_sys::lookup_rowtype_tupdesc(typid, -1);
        let measure = measure_name(measure).into_datum().expect("a text datum");
        let mut values = [text, measure, threshold.into_datum().expect("a float8 datum")];
        let mut nulls = [false; 3];
        let tuple = pg_sys::heap_form_tuple(desc, values.as_mut_ptr(), nulls.as_mut_ptr());
        pg_sys::DecrTupleDescRefCount(desc);
        pg_sys::HeapTupleHeaderGetDatum((*tuple).t_data)
    }
}

function_info_v1!(pg_finfo_simhash_query_make);
/// `simhash_query(query text, measure text, threshold float8) → simhash_query` (STRICT): the
/// lookup, with the measure and threshold checked (22023).
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_query_make(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT (text, text, float8) returning simhash_query (or
    // simhash_query_m1) in sql/similarity/, so the call's result type is that composite.
    unsafe {
        let measure = parse_measure(&text_arg(fcinfo, 1));
        let threshold = check_threshold(pgrx::fcinfo::pg_getarg::<f64>(fcinfo, 2).unwrap_or(f64::NAN), "simhash_query");
        let typid = pg_sys::get_fn_expr_rettype((*fcinfo).flinfo);
        query_datum(typid, pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), measure, threshold)
    }
}
