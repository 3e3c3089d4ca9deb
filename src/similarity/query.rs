//! The composite `simhash_query(query text, measure text, threshold float8)` that a
//! `simhash_ops` index lookup takes, and its operator `row @% q`: exactly
//! `simhash_similarity(q.query, row) >= q.threshold` (measure `similarity`),
//! `simhash_containment(q.query, row) >= q.threshold` (`query_in_row`) or
//! `simhash_containment(row, q.query) >= q.threshold` (`row_in_query`), or either of the two
//! containments (`either_way`: the dedup trigger's, one index scan where the two predicates
//! made two of the same keys). The planner builds the first three from the predicates
//! (support.rs); the index finds candidates and `@%` rechecks them.
//! With a `frame` (measure 2: the index keys of a template, which the dedup trigger learns from
//! its table), a row must also pass the framed lookup (`simhash_core::similarity::frame_keys`):
//! hold two of the lookup's keys off the frame. The recheck tests it on the row's index keys, so
//! an index scan and a sequential scan return the same rows.
//! Measure 1 has its own type, `simhash_query_m1`, and its own `@%` (`simhash_query_match`,
//! 4.x's symbol), so that a query of one version never reaches another's index.

use std::borrow::Cow;
use std::cell::RefCell;
use std::rc::Rc;

use pgrx::prelude::*;
use simhash_core::similarity::frame_keys::Framed;
use simhash_core::similarity::{lookup, lookup_either_way, text_keys, Lookup, Measure, Version};

use super::measure::{at_least_texts, Cache};
use super::{check_threshold, text_arg};
use crate::error::raise;
use crate::text::text_datum_to_utf8;

/// A lookup: the query text, the measure and the threshold.
pub(crate) struct Query<'a> {
    pub text: Cow<'a, str>,
    /// `QueryInRow` for `either_way`, which `either` marks (a band index, which answers no
    /// containment, reads every row for it).
    pub measure: Measure,
    /// Containment either way (`either_way`): `QueryInRow` or `RowInQuery`.
    pub either: bool,
    pub threshold: f64,
    /// The frame keys, ascending, distinct (the field `frame`; measure 2's type only).
    pub frame: Option<Vec<i32>>,
}

/// The measure name of containment either way.
pub(crate) const EITHER_WAY: &str = "either_way";

/// The name of a measure in a `simhash_query`.
pub(crate) fn measure_name(m: Measure) -> &'static str {
    match m {
        Measure::Similarity => "similarity",
        Measure::QueryInRow => "query_in_row",
        Measure::RowInQuery => "row_in_query",
    }
}

/// The measure of a name, and whether it is containment either way; or ERROR 22023.
fn parse_measure(name: &str) -> (Measure, bool) {
    match name {
        "similarity" => (Measure::Similarity, false),
        "query_in_row" => (Measure::QueryInRow, false),
        "row_in_query" => (Measure::RowInQuery, false),
        EITHER_WAY => (Measure::QueryInRow, true),
        _ => raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("simhash_query: unknown measure \"{name}\""),
            None,
            Some("The measures are similarity, query_in_row, row_in_query and either_way."),
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
        // GetAttributeByNum reads; the fields are (text, text, float8[, int4[]]) by the type's
        // definition, the fourth read only when the tuple holds it.
        unsafe {
            let tuple = pg_sys::pg_detoast_datum(datum.cast_mut_ptr()) as pg_sys::HeapTupleHeader;
            let field = |n: i16| {
                let mut isnull = false;
                let d = pg_sys::GetAttributeByNum(tuple, n, &mut isnull);
                (!isnull).then_some(d)
            };
            let (text, measure, threshold) = (field(1)?, field(2)?, field(3)?);
            let (measure, either) = parse_measure(&text_datum_to_utf8(measure));
            // Measure 1's type has three fields: the fourth is read only where the tuple has it
            // (a measure 2 tuple of three would read it as NULL all the same).
            let natts = pg_sys::HeapTupleHeaderGetNatts(tuple);
            // An empty frame is none (the dedup trigger's before it learns one).
            let frame = if natts >= 4 { field(4) } else { None }
                .map(|d| {
                    let mut keys: Vec<i32> =
                        Vec::<Option<i32>>::from_datum(d, false).unwrap_or_default().into_iter().flatten().collect();
                    keys.sort_unstable();
                    keys.dedup();
                    keys
                })
                .filter(|keys| !keys.is_empty());
            Some(Query {
                text: text_datum_to_utf8(text),
                measure,
                either,
                threshold: check_threshold(f64::from_datum(threshold, false)?, "simhash_query"),
                frame,
            })
        }
    }

    /// The lookup of measure 2's index for this query (a band index has its own).
    pub(crate) fn lookup(&self, v: Version) -> Lookup {
        let tick = &mut super::tick;
        match self.either {
            true => lookup_either_way(&self.text, v, self.threshold, tick),
            false => lookup(&self.text, v, self.measure, self.threshold, tick),
        }
    }

    /// The framed lookup of a query with a frame, made once for a run of the same query (a
    /// recheck of each candidate asks for it).
    fn framed(&self, v: Version, frame: &[i32]) -> Rc<Framed> {
        type Key = (String, Measure, bool, u64, Vec<i32>, Version);
        thread_local! {
            static LAST: RefCell<Option<(Key, Rc<Framed>)>> = const { RefCell::new(None) };
        }
        let same = |k: &Key| {
            k.0 == *self.text
                && (k.1, k.2, k.3, k.5) == (self.measure, self.either, self.threshold.to_bits(), v)
                && k.4 == frame
        };
        if let Some(f) = LAST.with_borrow(|l| l.as_ref().filter(|(k, _)| same(k)).map(|(_, f)| f.clone())) {
            return f;
        }
        let f = Rc::new(Framed::of(self.lookup(v), frame));
        let key = (self.text.to_string(), self.measure, self.either, self.threshold.to_bits(), frame.to_vec(), v);
        LAST.set(Some((key, f.clone())));
        f
    }

    /// Whether `row` matches: the measure at the threshold, exactly, and with a frame the
    /// framed lookup on the row's index keys. The query's set is kept in `cache` while the
    /// query stays the same.
    pub(crate) fn matches(&self, cache: &mut Cache, row: &str, v: Version) -> bool {
        if !self.measure_matches(cache, row) {
            return false;
        }
        match &self.frame {
            Some(frame) => self.framed(v, frame).keeps(&text_keys(row, v, &mut super::tick)),
            None => true,
        }
    }

    /// The measure at the threshold, exactly.
    fn measure_matches(&self, cache: &mut Cache, row: &str) -> bool {
        let (q, t) = (&*self.text, self.threshold);
        if self.either {
            return at_least_texts(cache, q, row, [true, false], Measure::QueryInRow, t, false)
                || at_least_texts(cache, row, q, [false, true], Measure::QueryInRow, t, false);
        }
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
        q.matches(Cache::of(fcinfo, v), &row, v).into()
    }
}

v1_function!(
    /// `row text @% q simhash_query → bool` (STRICT), measure 2.
    pg_finfo_simhash_query_match_m2, simhash_query_match_m2 => query_match, Version::M2
);

/// A `simhash_query` datum of type `typid` with these fields.
///
/// # Safety
/// `typid` must be a composite type `simhash_query` (text, text, float8, int4[]) or
/// `simhash_query_m1` (text, text, float8); `text` a text
/// datum; must run inside a transaction.
pub(crate) unsafe fn query_datum(
    typid: pg_sys::Oid,
    text: pg_sys::Datum,
    measure: &str,
    threshold: f64,
) -> pg_sys::Datum {
    // SAFETY: the type cache hands out a counted reference to the type's tuple descriptor,
    // which heap_form_tuple reads with three values of its attributes' types and which is
    // released before returning; the tuple is palloc'd in the current memory context.
    unsafe {
        let desc = pg_sys::lookup_rowtype_tupdesc(typid, -1);
        let measure = measure.into_datum().expect("a text datum");
        // Measure 2's type has a fourth field, the frame: NULL.
        let natts = (*desc).natts as usize;
        let mut values = vec![pg_sys::Datum::from(0usize); natts];
        let mut nulls = vec![true; natts];
        for (i, d) in [text, measure, threshold.into_datum().expect("a float8 datum")].into_iter().enumerate() {
            values[i] = d;
            nulls[i] = false;
        }
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
        let name = text_arg(fcinfo, 1);
        parse_measure(&name);
        let threshold = check_threshold(pgrx::fcinfo::pg_getarg::<f64>(fcinfo, 2).unwrap_or(f64::NAN), "simhash_query");
        let typid = pg_sys::get_fn_expr_rettype((*fcinfo).flinfo);
        query_datum(typid, pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), &name, threshold)
    }
}
