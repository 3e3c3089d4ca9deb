//! `simhash_similarity_support(internal)`: the planner support function of the score
//! comparisons and of the predicates they become (sql/similarity/similarity.sql).
//!
//! - **SupportRequestSimplify**, on a comparison of a measure with a threshold
//!   (`simhash_similarity(a, b) >= t`, `> t`, `t <= …`, `t < …`): the predicate
//!   `simhash_similarity_at_least(a, b, t)` (`_above` for the strict forms), a function
//!   call the planner can match to an index. Simplify sees the whole comparison because
//!   the measures return the domain `simhash_score`, whose comparisons are this extension's
//!   operators.
//! - **SupportRequestIndexCondition**, on a predicate whose argument `a` or `b` is the
//!   column of a `simhash_ops` index: `column @% simhash_query(other, measure, t)`, the
//!   measure seen from the column (containment of the query in the row when the column is
//!   `b`, of the row in the query when it is `a`). `@%` is the same exact test, so the
//!   condition replaces the predicate (not lossy), but for `_above`, whose `>` the `≥` of the
//!   index only bounds. The other argument and the threshold must not depend on the
//!   indexed table (they may on an outer one: a join then probes the index per outer row).
//! - **SupportRequestSelectivity**: 0.001, as for `@%` (contsel): a near-duplicate is rare.
//!
//! Each version of the measure has its own objects, named with its suffix (`simhash_similarity`
//! and `simhash_ops` for measure 2, `simhash_similarity_m1` and `simhash_ops_m1` for measure 1:
//! [`sql_suffix`]); a rewrite stays within one version's objects, so a measure-1 predicate is
//! answered only from a `simhash_ops_m1` index, and a measure-2 one only from `simhash_ops`.

use std::ffi::c_void;
use std::ptr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::similarity::{Measure, Version};

use super::query::{measure_name, query_datum};
use crate::nodes::{func_call as call, is_a, list_ptrs, make_list, qualified_name};

/// The selectivity of a predicate.
const SELECTIVITY: f64 = 0.001;

/// This extension's objects the rewrites need, looked up in one schema.
struct Objects {
    similarity: pg_sys::Oid,
    containment: pg_sys::Oid,
    /// `simhash_{similarity,containment}_{at_least,above}`.
    similarity_at_least: pg_sys::Oid,
    similarity_above: pg_sys::Oid,
    containment_at_least: pg_sys::Oid,
    containment_above: pg_sys::Oid,
    query_type: pg_sys::Oid,
    query_make: pg_sys::Oid,
    match_op: pg_sys::Oid,
    match_func: pg_sys::Oid,
}

/// What the SQL names of version `v`'s objects in `schema` end with: `""` for measure 2,
/// `"_m1"` for measure 1; but `""` for measure 1 too in a 4.x catalog (the 5.x library
/// installed, `ALTER EXTENSION simhash UPDATE` not run yet), whose unsuffixed objects are
/// measure 1's.
///
/// # Safety
/// Must run inside a transaction (catalog lookups).
pub(crate) unsafe fn sql_suffix(schema: pg_sys::Oid, v: Version) -> &'static str {
    if v == Version::M2 {
        return "";
    }
    // SAFETY: forwarded from the caller.
    let m1 = unsafe { Objects::func(schema, "simhash_similarity_m1", &[pg_sys::TEXTOID, pg_sys::TEXTOID]) };
    if m1 == pg_sys::InvalidOid {
        ""
    } else {
        "_m1"
    }
}

impl Objects {
    /// The function `name(args)` of `schema`, or InvalidOid.
    ///
    /// # Safety
    /// Must run inside a transaction (catalog lookups).
    unsafe fn func(schema: pg_sys::Oid, name: &str, args: &[pg_sys::Oid]) -> pg_sys::Oid {
        // SAFETY: catalog lookups in a transaction; names are NUL-terminated palloc'd copies.
        unsafe {
            let nsp = pg_sys::get_namespace_name(schema);
            if nsp.is_null() {
                return pg_sys::InvalidOid;
            }
            pg_sys::LookupFuncName(qualified_name(nsp, name), args.len() as i32, args.as_ptr(), true)
        }
    }

    /// The objects of the version whose SQL names end with `suffix` ([`sql_suffix`]).
    ///
    /// # Safety
    /// Must run inside a transaction (catalog lookups).
    unsafe fn lookup(schema: pg_sys::Oid, suffix: &str) -> Option<Objects> {
        // SAFETY: catalog lookups in a transaction; names are NUL-terminated palloc'd copies.
        unsafe {
            let nsp = pg_sys::get_namespace_name(schema);
            if nsp.is_null() {
                return None;
            }
            let func = |name: &str, args: &[pg_sys::Oid]| Objects::func(schema, &format!("{name}{suffix}"), args);
            let query_type = pg_sys::LookupTypeNameOid(
                ptr::null_mut(),
                pg_sys::makeTypeNameFromNameList(qualified_name(nsp, &format!("simhash_query{suffix}"))),
                true,
            );
            let (t, f8) = (pg_sys::TEXTOID, pg_sys::FLOAT8OID);
            let match_op = pg_sys::OpernameGetOprid(qualified_name(nsp, "@%"), t, query_type);
            let o = Objects {
                similarity: func("simhash_similarity", &[t, t]),
                containment: func("simhash_containment", &[t, t]),
                similarity_at_least: func("simhash_similarity_at_least", &[t, t, f8]),
                similarity_above: func("simhash_similarity_above", &[t, t, f8]),
                containment_at_least: func("simhash_containment_at_least", &[t, t, f8]),
                containment_above: func("simhash_containment_above", &[t, t, f8]),
                query_type,
                query_make: func("simhash_query", &[t, t, f8]),
                match_op,
                match_func: if match_op == pg_sys::InvalidOid {
                    pg_sys::InvalidOid
                } else {
                    pg_sys::get_opcode(match_op)
                },
            };
            [
                o.similarity,
                o.containment,
                o.similarity_at_least,
                o.similarity_above,
                o.containment_at_least,
                o.containment_above,
                o.query_type,
                o.query_make,
                o.match_op,
                o.match_func,
            ]
            .iter()
            .all(|&x| x != pg_sys::InvalidOid)
            .then_some(o)
        }
    }

    /// (measure, strict) of a predicate function.
    fn predicate(&self, funcid: pg_sys::Oid) -> Option<(Measure, bool)> {
        match funcid {
            f if f == self.similarity_at_least => Some((Measure::Similarity, false)),
            f if f == self.similarity_above => Some((Measure::Similarity, true)),
            f if f == self.containment_at_least => Some((Measure::QueryInRow, false)),
            f if f == self.containment_above => Some((Measure::QueryInRow, true)),
            _ => None,
        }
    }
}

/// The operator `@%` (text, simhash_query) of version `v` of the extension in `schema`, the
/// one a `simhash_ops` (or `simhash_ops_m1`) index's operator family holds (how the
/// similarity dedup trigger finds its index); None when an object of the rewrites is missing.
///
/// # Safety
/// Must run inside a transaction (catalog lookups).
pub(crate) unsafe fn match_operator(schema: pg_sys::Oid, v: Version) -> Option<pg_sys::Oid> {
    // SAFETY: forwarded from the caller.
    unsafe { Objects::lookup(schema, sql_suffix(schema, v)) }.map(|o| o.match_op)
}

/// The operator family `simhash_band_ops` of the extension in `schema`, or InvalidOid (a
/// catalog before 5.2.0).
///
/// # Safety
/// Must run inside a transaction (catalog lookups).
pub(crate) unsafe fn band_opfamily(schema: pg_sys::Oid) -> pg_sys::Oid {
    // SAFETY: catalog lookups in a transaction; the names are palloc'd copies.
    unsafe {
        let nsp = pg_sys::get_namespace_name(schema);
        if nsp.is_null() {
            return pg_sys::InvalidOid;
        }
        pg_sys::get_opfamily_oid(pg_sys::GIN_AM_OID, qualified_name(nsp, "simhash_band_ops"), true)
    }
}

/// The objects of either version that `found` finds something in (measure 2's first).
///
/// # Safety
/// Must run inside a transaction (catalog lookups).
unsafe fn either<T>(schema: pg_sys::Oid, mut found: impl FnMut(&Objects) -> Option<T>) -> Option<(Objects, T)> {
    for suffix in ["", "_m1"] {
        // SAFETY: forwarded from the caller.
        if let Some(o) = unsafe { Objects::lookup(schema, suffix) } {
            if let Some(t) = found(&o) {
                return Some((o, t));
            }
        }
    }
    None
}

function_info_v1!(pg_finfo_simhash_similarity_support);
/// `simhash_similarity_support(internal) → internal`: the module docs' requests; NULL for
/// the others and when nothing applies.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_similarity_support(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT `(internal)` and only attached as SUPPORT, so the planner
    // passes a non-NULL pointer to a support request Node, whose tag tells its type.
    unsafe {
        let req: *mut pg_sys::Node = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).cast_mut_ptr();
        let out: *mut c_void = match (*req).type_ {
            pg_sys::NodeTag::T_SupportRequestSimplify => simplify(req.cast()).map_or(ptr::null_mut(), |e| e.cast()),
            pg_sys::NodeTag::T_SupportRequestIndexCondition => {
                index_condition(req.cast()).map_or(ptr::null_mut(), |l| l.cast())
            }
            pg_sys::NodeTag::T_SupportRequestSelectivity => {
                (*req.cast::<pg_sys::SupportRequestSelectivity>()).selectivity = SELECTIVITY;
                req.cast()
            }
            _ => ptr::null_mut(),
        };
        pg_sys::Datum::from(out)
    }
}

/// `threshold` as a float8 expression: a constant as a float8 constant; else as it is (float8
/// or `simhash_score`, relabelled), or a numeric cast to float8.
///
/// # Safety
/// `threshold` must be a valid expression of one of those types.
unsafe fn as_float8(threshold: *mut pg_sys::Expr) -> *mut pg_sys::Expr {
    // SAFETY: exprType reads any expression; a Const is read after its tag is checked; the
    // built nodes are palloc'd.
    unsafe {
        let numeric = pg_sys::exprType(threshold.cast()) == pg_sys::NUMERICOID;
        if is_a(threshold.cast(), pg_sys::NodeTag::T_Const) {
            let c = threshold.cast::<pg_sys::Const>();
            let value = if (*c).constisnull {
                None
            } else if numeric {
                AnyNumeric::from_datum((*c).constvalue, false).and_then(|n| f64::try_from(n).ok())
            } else {
                f64::from_datum((*c).constvalue, false)
            };
            let datum = value.and_then(|v| v.into_datum()).unwrap_or(pg_sys::Datum::from(0usize));
            return pg_sys::makeConst(pg_sys::FLOAT8OID, -1, pg_sys::InvalidOid, 8, datum, value.is_none(), true)
                .cast();
        }
        match pg_sys::exprType(threshold.cast()) {
            t if t == pg_sys::FLOAT8OID => threshold,
            _ if numeric => call(pg_sys::Oid::from(pg_sys::F_FLOAT8_NUMERIC), pg_sys::FLOAT8OID, &[threshold]),
            // The domain simhash_score: its base type's bits.
            _ => pg_sys::makeRelabelType(
                threshold,
                pg_sys::FLOAT8OID,
                -1,
                pg_sys::InvalidOid,
                pg_sys::CoercionForm::COERCE_IMPLICIT_CAST,
            )
            .cast(),
        }
    }
}

/// The comparison `fcall` (a score operator's function, two arguments) as a predicate, or
/// None when its score is not a measure call.
///
/// # Safety
/// `req` must be a valid SupportRequestSimplify.
unsafe fn simplify(req: *mut pg_sys::SupportRequestSimplify) -> Option<*mut pg_sys::Expr> {
    // SAFETY: the request's FuncExpr and its argument list are valid expression nodes.
    unsafe {
        let fcall = (*req).fcall;
        let args = list_ptrs((*fcall).args);
        if args.len() != 2 {
            return None;
        }
        // The score on the left (>=, >) or on the right (<=, <); which, from the function's name.
        let name = std::ffi::CStr::from_ptr(pg_sys::get_func_name((*fcall).funcid)).to_str().ok()?;
        let (score, threshold, strict) = match name {
            "simhash_score_ge" => (args[0], args[1], false),
            "simhash_score_gt" => (args[0], args[1], true),
            "simhash_score_le" => (args[1], args[0], false),
            "simhash_score_lt" => (args[1], args[0], true),
            _ => return None,
        };
        if !is_a(score, pg_sys::NodeTag::T_FuncExpr) {
            return None;
        }
        let measure_call = score.cast::<pg_sys::FuncExpr>();
        let (_, predicate) =
            either(pg_sys::get_func_namespace((*fcall).funcid), |o| match ((*measure_call).funcid, strict) {
                (f, false) if f == o.similarity => Some(o.similarity_at_least),
                (f, true) if f == o.similarity => Some(o.similarity_above),
                (f, false) if f == o.containment => Some(o.containment_at_least),
                (f, true) if f == o.containment => Some(o.containment_above),
                _ => None,
            })?;
        let ab = list_ptrs((*measure_call).args);
        Some(call(predicate, pg_sys::BOOLOID, &[ab[0].cast(), ab[1].cast(), as_float8(threshold.cast())]))
    }
}

/// Whether `expr` is free of the index's table and of volatile functions.
///
/// # Safety
/// `req` and `expr` must be valid.
unsafe fn usable(req: *mut pg_sys::SupportRequestIndexCondition, expr: *mut c_void) -> bool {
    // SAFETY: pull_varnos and contain_volatile_functions read any expression tree.
    unsafe {
        let relid = (*(*(*req).index).rel).relid as i32;
        !pg_sys::contain_volatile_functions(expr.cast())
            && !pg_sys::bms_is_member(relid, pg_sys::pull_varnos((*req).root, expr.cast()))
    }
}

/// The index condition of a predicate on a `simhash_ops` index, or None.
///
/// # Safety
/// `req` must be a valid SupportRequestIndexCondition.
unsafe fn index_condition(req: *mut pg_sys::SupportRequestIndexCondition) -> Option<*mut pg_sys::List> {
    // SAFETY: the request's node is the predicate's FuncExpr; index, root and the argument
    // lists are valid planner structures for the duration of the call.
    unsafe {
        let node = (*req).node;
        if !is_a(node.cast(), pg_sys::NodeTag::T_FuncExpr) {
            return None;
        }
        let fexpr = node.cast::<pg_sys::FuncExpr>();
        let (o, (measure, strict)) =
            either(pg_sys::get_func_namespace((*fexpr).funcid), |o| o.predicate((*fexpr).funcid))?;
        if !pg_sys::op_in_opfamily(o.match_op, (*req).opfamily) {
            return None;
        }
        // A band index answers containment by reading all of it: never its condition, so
        // that containment comes from a simhash_ops index beside it, whose keys a dedup
        // trigger locks (similarity/trigger.rs), or from a scan.
        if measure != Measure::Similarity
            && (*req).opfamily == band_opfamily(pg_sys::get_func_namespace((*fexpr).funcid))
        {
            return None;
        }
        let args = list_ptrs((*fexpr).args);
        let indexarg = (*req).indexarg as usize;
        if args.len() != 3 || indexarg > 1 {
            return None;
        }
        let (column, other, threshold) = (args[indexarg], args[1 - indexarg], args[2]);
        if !usable(req, other) || !usable(req, threshold) {
            return None;
        }
        // Seen from the indexed column: containment(a, b) is the query in the row when the
        // row is b, the row in the query when it is a.
        let measure = match (measure, indexarg) {
            (Measure::Similarity, _) => Measure::Similarity,
            (_, 1) => Measure::QueryInRow,
            _ => Measure::RowInQuery,
        };
        let query = query_expr(&o, other.cast(), threshold.cast(), measure);
        let clause = pg_sys::make_opclause(
            o.match_op,
            pg_sys::BOOLOID,
            false,
            column.cast(),
            query,
            pg_sys::InvalidOid,
            (*req).indexcollation,
        );
        (*clause.cast::<pg_sys::OpExpr>()).opfuncid = o.match_func;
        (*req).lossy = strict;
        Some(make_list(&[clause]))
    }
}

/// `simhash_query(other, measure, threshold)`: a constant when both are constants (so that
/// the planner's GIN cost estimate sees the lookup's keys), else a call evaluated at run time.
///
/// # Safety
/// `other` must be a text expression and `threshold` a float8 one.
unsafe fn query_expr(
    o: &Objects,
    other: *mut pg_sys::Expr,
    threshold: *mut pg_sys::Expr,
    measure: Measure,
) -> *mut pg_sys::Expr {
    // SAFETY: Const nodes are read only after their tag is checked; the built nodes are palloc'd.
    unsafe {
        let consts = |e: *mut pg_sys::Expr| is_a(e.cast(), pg_sys::NodeTag::T_Const).then(|| e.cast::<pg_sys::Const>());
        if let (Some(q), Some(t)) = (consts(other), consts(threshold)) {
            if !(*q).constisnull && !(*t).constisnull {
                let threshold = f64::from_datum((*t).constvalue, false).unwrap_or(f64::NAN);
                if (0.0..=1.0).contains(&threshold) {
                    let d = query_datum(o.query_type, (*q).constvalue, measure_name(measure), threshold);
                    return pg_sys::makeConst(o.query_type, -1, pg_sys::InvalidOid, -1, d, false, false).cast();
                }
            }
        }
        let name = measure_name(measure).into_datum().expect("a text datum");
        let measure_const =
            pg_sys::makeConst(pg_sys::TEXTOID, -1, pg_sys::DEFAULT_COLLATION_OID, -1, name, false, false);
        call(o.query_make, o.query_type, &[other, measure_const.cast(), threshold])
    }
}
