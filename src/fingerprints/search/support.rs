//! The planner support function of `simhash_near(fp, query, k)` and `fp ~= query`
//! (SupportRequestSimplify). When `fp` is a column of a plain table that has a complete set
//! of block columns or block expression indexes, the call becomes
//!
//! ```text
//! (blk_0 = ANY(probes_0) OR ... OR blk_{n-1} = ANY(probes_{n-1})) AND hamming(fp, query) <= k
//! ```
//!
//! which the planner runs as a BitmapOr of btree index scans plus a recheck. Exact for every
//! k: a row within distance k differs from the query in at most floor(k/n) bits in some block
//! (pigeonhole), and probes_i holds every block value within that radius. The probes are a
//! Const array when query and k are constants, otherwise a `simhash_probes(query, i, n, k)`
//! call evaluated once per scan (a Param, or an outer Var in a parameterized join scan).
//! For `~=`, k is `simhash_max_distance()`, STABLE, so cached plans follow the GUC.

use std::ffi::c_void;
use std::ptr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::fingerprints::search as core_blocks;

use super::block_index::{block_sets, int4_const, BlockSet, Funcs};
use crate::nodes::{func_call, is_a, list_ptrs, make_list};

// Built-in catalog OIDs (pg_operator.dat / pg_proc.dat; fixed across releases).
const INT4_EQ_OP: u32 = pg_sys::Int4EqualOperator; // int4 = int4
const INT4_EQ_PROC: u32 = pg_sys::F_INT4EQ;
const INT4_LE_OP: u32 = 523; // int4 <= int4
const INT4_LE_PROC: u32 = pg_sys::F_INT4LE;
const NO_LOCK: pg_sys::LOCKMODE = 0;

function_info_v1!(pg_finfo_simhash_support);
/// `simhash_support(internal) → internal`: returns the replacement expression, or NULL
/// (no rewrite) for every request but SupportRequestSimplify.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_support(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT `(internal)` in sql/fingerprints/search.sql and only attached as SUPPORT,
    // so the planner passes a non-NULL pointer to a support request Node.
    let req: *mut pg_sys::Node = unsafe { pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0).cast_mut_ptr() };
    // SAFETY: `req` is a valid Node (see above); reading its tag is always allowed.
    if req.is_null() || unsafe { (*req).type_ } != pg_sys::NodeTag::T_SupportRequestSimplify {
        return pg_sys::Datum::from(0usize);
    }
    // SAFETY: the tag says this is a SupportRequestSimplify.
    let expr = unsafe { rewrite(req.cast()) };
    pg_sys::Datum::from(expr.map_or(ptr::null_mut(), |e| e.cast::<c_void>()))
}

/// An int4[] Const of `values`.
fn int4_array_const(values: &[u32]) -> *mut pg_sys::Expr {
    let datums: Vec<pg_sys::Datum> = values.iter().map(|&v| pg_sys::Datum::from(v as i32)).collect();
    // SAFETY: int4 is 4 bytes, by value, int-aligned; construct_array copies the datums into
    // a palloc'd array and makeConst wraps it (a varlena, so not by value).
    unsafe {
        let arr = pg_sys::construct_array(
            datums.as_ptr() as *mut pg_sys::Datum,
            datums.len() as i32,
            pg_sys::INT4OID,
            4,
            true,
            pg_sys::TYPALIGN_INT as std::ffi::c_char,
        );
        pg_sys::makeConst(pg_sys::INT4ARRAYOID, -1, pg_sys::InvalidOid, -1, pg_sys::Datum::from(arr), false, false)
            .cast()
    }
}

/// An int4 Const.
fn int4_const_node(v: i32) -> *mut pg_sys::Expr {
    // SAFETY: int4 is a 4-byte by-value type.
    unsafe { pg_sys::makeConst(pg_sys::INT4OID, -1, pg_sys::InvalidOid, 4, pg_sys::Datum::from(v), false, true).cast() }
}

/// A deep copy of an expression (each use of a shared subexpression gets its own tree).
fn copy(e: *mut pg_sys::Expr) -> *mut pg_sys::Expr {
    // SAFETY: `e` is a valid expression node built or received by this module.
    unsafe { pg_sys::copyObjectImpl(e.cast()).cast() }
}

/// The rewrite, or None to keep the call as it is.
///
/// # Safety
/// `req` must be a valid SupportRequestSimplify from the planner.
unsafe fn rewrite(req: *mut pg_sys::SupportRequestSimplify) -> Option<*mut pg_sys::Expr> {
    // SAFETY: the planner's request: `fcall` is a FuncExpr of simhash_near (3 args) or
    // simhash_near_guc (2 args) with simplified arguments, `root` is NULL or the PlannerInfo
    // of the query level whose range table the arguments' level-0 Vars index.
    unsafe {
        let root = (*req).root;
        let fcall = (*req).fcall;
        if root.is_null() || fcall.is_null() || (*root).parse.is_null() {
            return None;
        }
        let args = list_ptrs((*fcall).args);
        if !(args.len() == 2 || args.len() == 3) {
            return None;
        }
        // Distance is symmetric: `q ~= fp` is rewritten like `fp ~= q`. The first argument
        // is tried first, so `a.fp ~= b.fp` probes a's blocks with b's fingerprint.
        rewrite_with(root, fcall, &args, 0).or_else(|| rewrite_with(root, fcall, &args, 1))
    }
}

/// The rewrite with `args[fp_arg]` as the indexed column and the other of the first two
/// arguments as the query, or None.
///
/// # Safety
/// As for [`rewrite`]: `root` and `fcall` come from a valid SupportRequestSimplify, `args`
/// are the call's arguments (2 or 3), `fp_arg` is 0 or 1.
unsafe fn rewrite_with(
    root: *mut pg_sys::PlannerInfo,
    fcall: *mut pg_sys::FuncExpr,
    args: &[*mut c_void],
    fp_arg: usize,
) -> Option<*mut pg_sys::Expr> {
    // SAFETY: see `rewrite`. The relation is already locked by the parser or plan-cache
    // revalidation, hence NoLock.
    unsafe {
        if !is_a(args[fp_arg], pg_sys::NodeTag::T_Var) {
            return None;
        }
        let fp = args[fp_arg].cast::<pg_sys::Var>();
        let query = args[1 - fp_arg].cast::<pg_sys::Expr>();
        if (*fp).varlevelsup != 0 || (*fp).varattno <= 0 || (*fp).vartype != pg_sys::INT8OID {
            return None;
        }
        // The query is evaluated once per block probe and once in the recheck: it must not
        // be volatile nor depend on the scanned row.
        if pg_sys::contain_volatile_functions(query.cast())
            || pg_sys::bms_is_member((*fp).varno, pg_sys::pull_varnos(root, query.cast()))
        {
            return None;
        }
        // k: a constant (checked now), or an expression evaluated at run time.
        let guc_k = super::near::MAX_DISTANCE.get();
        let const_k = match args.get(2) {
            None => None,
            Some(&k) if is_a(k, pg_sys::NodeTag::T_Const) => {
                if (*k.cast::<pg_sys::Const>()).constisnull {
                    return None;
                }
                let k = int4_const(k)?;
                core_blocks::check_max_distance(k).unwrap_or_else(|e| super::blocks::raise(e));
                Some(k)
            }
            Some(&k) => {
                if pg_sys::contain_volatile_functions(k.cast())
                    || pg_sys::bms_is_member((*fp).varno, pg_sys::pull_varnos(root, k.cast()))
                {
                    return None;
                }
                None
            }
        };

        let rtable = (*(*root).parse).rtable;
        let varno = (*fp).varno;
        if varno < 1 || rtable.is_null() || varno > (*rtable).length {
            return None;
        }
        let rte = pg_sys::list_nth(rtable, varno - 1).cast::<pg_sys::RangeTblEntry>();
        if (*rte).rtekind != pg_sys::RTEKind::RTE_RELATION
            || (*rte).relkind != pg_sys::RELKIND_RELATION as std::ffi::c_char
        {
            return None;
        }
        let funcs = Funcs::lookup(pg_sys::get_func_namespace((*fcall).funcid))?;
        let rel = pg_sys::table_open((*rte).relid, NO_LOCK);
        let sets = block_sets(rel, fp, &funcs);
        pg_sys::table_close(rel, NO_LOCK);

        // Only sets whose probes fit for the k that may occur: the constant k (as constant
        // arrays, MAX_PROBES), or, for a run-time k, any k (simhash_probes at execution,
        // MAX_RUNTIME_PROBES: sets of >= 3 blocks). The GUC's value guides the choice.
        let eligible: Vec<&BlockSet> = sets
            .iter()
            .filter(|s| match const_k {
                Some(k) => core_blocks::probes_fit(s.n as u32, k as u32, core_blocks::MAX_PROBES),
                None => core_blocks::probes_fit_any_k(s.n as u32),
            })
            .collect();
        let ns: Vec<u32> = eligible.iter().map(|s| s.n as u32).collect();
        let set = eligible[core_blocks::choose_block_set(&ns, const_k.unwrap_or(guc_k) as u32)?];

        let k_expr = match args.get(2) {
            Some(&k) => k.cast::<pg_sys::Expr>(),
            None => func_call(funcs.max_distance, pg_sys::INT4OID, &[]),
        };
        let query_const = is_a(query.cast(), pg_sys::NodeTag::T_Const).then(|| query.cast::<pg_sys::Const>());
        let mut probes_or = Vec::with_capacity(set.n as usize);
        for (i, &block_expr) in set.exprs.iter().enumerate() {
            let array = match (query_const, const_k) {
                (Some(q), Some(k)) if !(*q).constisnull => {
                    let q = (*q).constvalue.value() as i64;
                    let probes = core_blocks::probes(q as u64, i as i32, set.n, k, core_blocks::MAX_PROBES)
                        .unwrap_or_else(|e| super::blocks::raise(e));
                    int4_array_const(&probes)
                }
                _ => func_call(
                    funcs.probes,
                    pg_sys::INT4ARRAYOID,
                    &[copy(query), int4_const_node(i as i32), int4_const_node(set.n), copy(k_expr)],
                ),
            };
            let saop =
                pg_sys::palloc0(std::mem::size_of::<pg_sys::ScalarArrayOpExpr>()).cast::<pg_sys::ScalarArrayOpExpr>();
            (*saop).xpr.type_ = pg_sys::NodeTag::T_ScalarArrayOpExpr;
            (*saop).opno = pg_sys::Oid::from(INT4_EQ_OP);
            (*saop).opfuncid = pg_sys::Oid::from(INT4_EQ_PROC);
            (*saop).useOr = true;
            (*saop).inputcollid = pg_sys::InvalidOid;
            (*saop).args = make_list(&[copy(block_expr), array]);
            (*saop).location = -1;
            probes_or.push(saop.cast::<pg_sys::Expr>());
        }
        let distance = func_call(funcs.hamming, pg_sys::INT4OID, &[copy(fp.cast()), copy(query)]);
        let recheck = pg_sys::make_opclause(
            pg_sys::Oid::from(INT4_LE_OP),
            pg_sys::BOOLOID,
            false,
            distance,
            copy(k_expr),
            pg_sys::InvalidOid,
            pg_sys::InvalidOid,
        );
        // SAFETY: make_opclause returns an OpExpr; set its function now rather than at setrefs.
        (*recheck.cast::<pg_sys::OpExpr>()).opfuncid = pg_sys::Oid::from(INT4_LE_PROC);
        let any_block = pg_sys::make_orclause(make_list(&probes_or));
        Some(pg_sys::make_andclause(make_list(&[any_block, recheck])))
    }
}
