//! `simhash_similarity(a, b)` and `simhash_containment(a, b)` (measure 2; measure 1's are
//! `simhash_similarity_m1` and `simhash_containment_m1`), the predicates the planner makes of
//! their comparisons (`simhash_similarity_at_least(a, b, t)` and kin), and the comparison
//! operators of `simhash_score` with a threshold.
//!
//! Every function of a measure has one C symbol per version, suffixed `_m1` or `_m2`; 4.x's
//! symbols are measure 1's and keep its behaviour, so that the objects a 4.x catalog made go
//! on computing it.
//!
//! A text argument's shingle set is kept in the call's `fn_extra` ([`Cache`]) while the argument
//! stays the same: a constant or a query parameter (`get_fn_expr_arg_stable`), computed once
//! for the statement, and the outer row's text of a join, once for all its candidates. A
//! predicate holds one text as a set and streams the other (`simhash_core::similarity::AtLeast`):
//! a stable or cached one, or else the shorter, so that a long text is never held whole.
//!
//! A short text that is not stable (a candidate row's) keeps its sets for the backend's next
//! call of any of these functions ([`LAST_ROW`]): a dedup check with `min_containment`
//! measures each candidate up to six times (three predicates in its recheck, then the
//! similarity and both containments it reports), and pays for its sets once: over 100,000
//! short texts, its check query took 0.60 ms with containment (0.80 without the cache) and
//! 0.16 ms without containment (0.19).

use std::cell::RefCell;
use std::rc::Rc;

use pgrx::prelude::*;
use pgrx::PgMemoryContexts;
use simhash_core::similarity::{self as core, AtLeast, Measure, Sets, Version};

use super::{check_threshold, text_arg, tick};

/// Texts longer than this are not kept as sets across calls (8 bytes a shingle or figure: at
/// most 32 MB).
const CACHED_BYTES: usize = 4 << 20;

/// Texts up to this long, not kept by a call site, keep their sets in [`LAST_ROW`]: a short
/// text's sets are a few KB, and what streaming saves on a long text it would lose on a
/// short one measured again.
const LAST_ROW_BYTES: usize = 4096;

/// A short text's sets under a version, kept for the next call ([`LAST_ROW`]).
struct LastRow {
    version: Version,
    bytes: Vec<u8>,
    sets: Rc<Sets>,
}

thread_local! {
    /// The last short text measured without a call site's cache (a backend runs one
    /// statement at a time: one candidate row is in hand).
    static LAST_ROW: RefCell<Option<LastRow>> = const { RefCell::new(None) };
}

/// The sets of a short `text` ([`LAST_ROW_BYTES`]) under `v`: the last row's, or made and
/// kept as the last row's.
fn last_row_sets(text: &str, v: Version) -> Rc<Sets> {
    LAST_ROW.with_borrow_mut(|last| match last {
        Some(row) if row.version == v && row.bytes.as_slice() == text.as_bytes() => Rc::clone(&row.sets),
        _ => {
            let sets = Rc::new(Sets::of(text, v, &mut tick));
            *last = Some(LastRow { version: v, bytes: text.as_bytes().to_vec(), sets: Rc::clone(&sets) });
            sets
        }
    })
}

/// The sets of `text` under `v`: a short text's the last row's ([`last_row_sets`]), a longer
/// one's made for this call.
fn sets_of(text: &str, v: Version) -> Rc<Sets> {
    if text.len() <= LAST_ROW_BYTES {
        last_row_sets(text, v)
    } else {
        Rc::new(Sets::of(text, v, &mut tick))
    }
}

/// The shingle sets of a function's text arguments that are the same for every call (a call
/// site is one function, so one version of the measure).
pub(crate) struct Cache {
    version: Version,
    /// Per argument (0 and 1): the text's bytes and its sets.
    slots: [Option<(Vec<u8>, Rc<Sets>)>; 2],
}

impl Cache {
    /// The cache of this call site, made on the first call in the function's memory context,
    /// for version `v` of the measure.
    ///
    /// # Safety
    /// `fcinfo` must be a valid call info whose `fn_extra` only this module's functions use,
    /// always with the same `v`.
    pub(crate) unsafe fn of<'a>(fcinfo: pg_sys::FunctionCallInfo, v: Version) -> &'a mut Cache {
        // SAFETY: flinfo is valid for the call (caller); fn_extra is NULL until set here, and
        // then points at a Cache leaked into fn_mcxt, dropped when that context is deleted.
        unsafe {
            let flinfo = (*fcinfo).flinfo;
            if (*flinfo).fn_extra.is_null() {
                let cache = Cache { version: v, slots: [None, None] };
                let ptr = PgMemoryContexts::For((*flinfo).fn_mcxt).leak_and_drop_on_delete(cache);
                (*flinfo).fn_extra = ptr.cast();
            }
            &mut *(*flinfo).fn_extra.cast::<Cache>()
        }
    }

    /// Keeps the set of `text`, argument `arg`, unless it is too long (or kept already): the
    /// other argument's when it holds the same text (`either_way` asks for the query's sets as
    /// argument 0 and as argument 1), else made.
    pub(crate) fn fill(&mut self, arg: usize, text: &str) {
        if text.len() <= CACHED_BYTES && self.slot(arg, text).is_none() {
            let sets = self.slot(1 - arg, text).map_or_else(|| sets_of(text, self.version), Rc::clone);
            self.slots[arg] = Some((text.as_bytes().to_vec(), sets));
        }
    }

    /// The kept sets of argument `arg` if they are for these bytes.
    fn slot(&self, arg: usize, text: &str) -> Option<&Rc<Sets>> {
        match &self.slots[arg] {
            Some((bytes, sets)) if bytes.as_slice() == text.as_bytes() => Some(sets),
            _ => None,
        }
    }

    /// The sets of argument `arg` if they are cached for these bytes.
    pub(crate) fn get(&self, arg: usize, text: &str) -> Option<&Sets> {
        self.slot(arg, text).map(|sets| &**sets)
    }

    /// The sets of argument `arg`: the cached ones, the last row's, or computed.
    pub(crate) fn set(&self, arg: usize, text: &str) -> Rc<Sets> {
        self.slot(arg, text).map_or_else(|| sets_of(text, self.version), Rc::clone)
    }
}

/// Whether argument `arg` of this call is the same for every call of the statement.
///
/// # Safety
/// `fcinfo` must be a valid call info.
pub(crate) unsafe fn stable(fcinfo: pg_sys::FunctionCallInfo, arg: i32) -> bool {
    // SAFETY: flinfo is valid for the call; the function reads its fn_expr, if any.
    unsafe { pg_sys::get_fn_expr_arg_stable((*fcinfo).flinfo, arg) }
}

/// `measure(a, b)` for the (text, text) arguments of this call, from both texts' sets.
///
/// # Safety
/// `fcinfo` must be that of a STRICT (text, text, ...) function.
unsafe fn value(fcinfo: pg_sys::FunctionCallInfo, v: Version, measure: Measure) -> f64 {
    // SAFETY: forwarded from the caller.
    unsafe {
        let (a, b) = (text_arg(fcinfo, 0), text_arg(fcinfo, 1));
        let cache = Cache::of(fcinfo, v);
        cache.fill(0, &a);
        cache.fill(1, &b);
        let (set_a, set_b) = (cache.set(0, &a), cache.set(1, &b));
        match measure {
            Measure::Similarity => core::similarity(&set_a, &set_b),
            _ => core::containment(&set_a, &set_b),
        }
    }
}

/// `measure(a, b) ≥ threshold` (or `>` when `strict`), for the (text, text, float8) arguments
/// of this call: one text held as a set (a cached one, or the shorter), the other streamed.
///
/// # Safety
/// `fcinfo` must be that of a STRICT (text, text, float8) function.
pub(crate) unsafe fn at_least(
    fcinfo: pg_sys::FunctionCallInfo,
    v: Version,
    measure: Measure,
    strict: bool,
    func: &str,
) -> bool {
    // SAFETY: forwarded from the caller.
    unsafe {
        let threshold = check_threshold(pgrx::fcinfo::pg_getarg::<f64>(fcinfo, 2).unwrap_or(f64::NAN), func);
        let (a, b) = (text_arg(fcinfo, 0), text_arg(fcinfo, 1));
        let (sa, sb) = (stable(fcinfo, 0), stable(fcinfo, 1));
        at_least_texts(Cache::of(fcinfo, v), &a, &b, [sa, sb], measure, threshold, strict)
    }
}

/// `measure(a, b) ≥ threshold` (or `>`) of two texts (see [`decide`]).
pub(crate) fn at_least_texts(
    cache: &mut Cache,
    a: &str,
    b: &str,
    stable: [bool; 2],
    measure: Measure,
    threshold: f64,
    strict: bool,
) -> bool {
    // `>` is `≥` of the next float8 up: the same comparison, made by AtLeast.
    let t = if strict { threshold.next_up() } else { threshold };
    for (arg, text) in [a, b].into_iter().enumerate() {
        if stable[arg] {
            cache.fill(arg, text);
        }
    }
    // Which text to hold: a stable or cached one (a join's outer text, met again), else the
    // shorter; it is kept for the next call.
    let hold_a = match (cache.get(0, a).is_some(), cache.get(1, b).is_some()) {
        (true, false) => true,
        (false, true) => false,
        _ => a.len() <= b.len(),
    };
    let (held_arg, held_text, streamed) = if hold_a { (0, a, b) } else { (1, b, a) };
    cache.fill(held_arg, held_text);
    let held = cache.set(held_arg, held_text);
    // The query of AtLeast is argument a: `measure(a, b)`.
    let decision = AtLeast { version: cache.version, measure, threshold: t, held: &held, held_is_query: hold_a };
    if streamed.len() > LAST_ROW_BYTES {
        return decision.at_least(streamed, &mut tick);
    }
    // A short row is measured whole from its sets, kept for the calls that follow on it.
    decision.may_reach(streamed) && decision.at_least_sets(&last_row_sets(streamed, cache.version))
}

/// [`value`] as a datum.
pub(crate) unsafe fn value_datum(fcinfo: pg_sys::FunctionCallInfo, v: Version, measure: Measure) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { value(fcinfo, v, measure).into_datum().expect("a float8 datum") }
}

/// [`decide`] as a datum.
pub(crate) unsafe fn at_least_datum(
    fcinfo: pg_sys::FunctionCallInfo,
    v: Version,
    measure: Measure,
    strict: bool,
    func: &str,
) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { at_least(fcinfo, v, measure, strict, func).into() }
}

// The six functions of measure 2: `simhash_similarity`, `simhash_containment` and their
// four predicates (measure 1's are in compat/m1.rs).
v1_function!(pg_finfo_simhash_similarity_m2, simhash_similarity_m2 => value_datum, Version::M2, Measure::Similarity);
v1_function!(pg_finfo_simhash_containment_m2, simhash_containment_m2 => value_datum, Version::M2, Measure::QueryInRow);
v1_function!(pg_finfo_simhash_similarity_at_least_m2, simhash_similarity_at_least_m2 => at_least_datum, Version::M2, Measure::Similarity, false, "simhash_similarity");
v1_function!(pg_finfo_simhash_similarity_above_m2, simhash_similarity_above_m2 => at_least_datum, Version::M2, Measure::Similarity, true, "simhash_similarity");
v1_function!(pg_finfo_simhash_containment_at_least_m2, simhash_containment_at_least_m2 => at_least_datum, Version::M2, Measure::QueryInRow, false, "simhash_containment");
v1_function!(pg_finfo_simhash_containment_above_m2, simhash_containment_above_m2 => at_least_datum, Version::M2, Measure::QueryInRow, true, "simhash_containment");

/// Argument `i` of a call as a float8: a float8 (or `simhash_score`) datum, or a numeric one.
///
/// # Safety
/// `fcinfo` must be a valid call info whose argument `i` is a non-NULL datum of that type.
unsafe fn float_arg(fcinfo: pg_sys::FunctionCallInfo, i: usize, numeric: bool) -> f64 {
    // SAFETY: forwarded from the caller; numeric_float8 takes a numeric datum.
    unsafe {
        let d = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, i);
        if numeric {
            AnyNumeric::from_datum(d, false).and_then(|n| f64::try_from(n).ok()).unwrap_or(f64::NAN)
        } else {
            f64::from_datum(d, false).unwrap_or(f64::NAN)
        }
    }
}

/// A comparison of a score with a threshold: argument 0 (`score_first`: the score, else
/// the threshold) against argument 1, as float8's operators compare, a numeric threshold
/// converted first; a threshold outside [0, 1] (or NaN) is 22023.
///
/// # Safety
/// `fcinfo` must be that of a STRICT function of a score and a float8, numeric or score.
unsafe fn compare(
    fcinfo: pg_sys::FunctionCallInfo,
    numeric: bool,
    score_first: bool,
    op: fn(i32) -> bool,
) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe {
        let x = float_arg(fcinfo, 0, numeric && !score_first);
        let y = float_arg(fcinfo, 1, numeric && score_first);
        // The threshold is checked as the predicate the comparison becomes checks it.
        check_threshold(if score_first { y } else { x }, "simhash_score");
        op(pg_sys::float8_cmp_internal(x, y)).into()
    }
}

v1_function!(
    /// `simhash_score >= float8 | simhash_score`.
    pg_finfo_simhash_score_ge, simhash_score_ge => compare, false, true, |c| c >= 0
);
v1_function!(
    /// `simhash_score > float8 | simhash_score`.
    pg_finfo_simhash_score_gt, simhash_score_gt => compare, false, true, |c| c > 0
);
v1_function!(
    /// `simhash_score >= numeric`.
    pg_finfo_simhash_score_ge_numeric, simhash_score_ge_numeric => compare, true, true, |c| c >= 0
);
v1_function!(
    /// `simhash_score > numeric`.
    pg_finfo_simhash_score_gt_numeric, simhash_score_gt_numeric => compare, true, true, |c| c > 0
);
v1_function!(
    /// `float8 | simhash_score <= simhash_score`.
    pg_finfo_simhash_score_le, simhash_score_le => compare, false, false, |c| c <= 0
);
v1_function!(
    /// `float8 | simhash_score < simhash_score`.
    pg_finfo_simhash_score_lt, simhash_score_lt => compare, false, false, |c| c < 0
);
v1_function!(
    /// `numeric <= simhash_score`.
    pg_finfo_simhash_score_le_numeric, simhash_score_le_numeric => compare, true, false, |c| c <= 0
);
v1_function!(
    /// `numeric < simhash_score`.
    pg_finfo_simhash_score_lt_numeric, simhash_score_lt_numeric => compare, true, false, |c| c < 0
);
