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

use std::ffi::{c_void, CString};
use std::ptr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::blocks as core_blocks;

// Built-in catalog OIDs (pg_operator.dat / pg_proc.dat; fixed across releases).
const INT4_EQ_OP: u32 = pg_sys::Int4EqualOperator; // int4 = int4
const INT4_EQ_PROC: u32 = pg_sys::F_INT4EQ;
const INT4_LE_OP: u32 = 523; // int4 <= int4
const INT4_LE_PROC: u32 = pg_sys::F_INT4LE;
const ACCESS_SHARE_LOCK: pg_sys::LOCKMODE = 1;
const NO_LOCK: pg_sys::LOCKMODE = 0;

function_info_v1!(pg_finfo_simhash_support);
/// `simhash_support(internal) → internal`: returns the replacement expression, or NULL
/// (no rewrite) for every request but SupportRequestSimplify.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_support(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT `(internal)` in sql/search.sql and only attached as SUPPORT,
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

/// Elements of a pointer List.
///
/// # Safety
/// `list` must be NIL or a valid pointer List.
unsafe fn list_ptrs(list: *mut pg_sys::List) -> Vec<*mut c_void> {
    if list.is_null() {
        return Vec::new();
    }
    // SAFETY: a valid List has `length` initialized cells at `elements`.
    unsafe { (0..(*list).length as usize).map(|i| (*(*list).elements.add(i)).ptr_value).collect() }
}

/// Elements of an OID List.
///
/// # Safety
/// `list` must be NIL or a valid OID List.
unsafe fn list_oids(list: *mut pg_sys::List) -> Vec<pg_sys::Oid> {
    if list.is_null() {
        return Vec::new();
    }
    // SAFETY: as in `list_ptrs`; OID cells hold `oid_value`.
    unsafe { (0..(*list).length as usize).map(|i| (*(*list).elements.add(i)).oid_value).collect() }
}

/// A List of the given pointers, in the current memory context.
fn make_list<T>(items: &[*mut T]) -> *mut pg_sys::List {
    let mut list = ptr::null_mut();
    for &item in items {
        // SAFETY: lappend accepts NIL and palloc's in CurrentMemoryContext.
        list = unsafe { pg_sys::lappend(list, item.cast()) };
    }
    list
}

/// Whether `node` is non-NULL and has tag `tag`.
///
/// # Safety
/// `node` must be NULL or point to a Node.
unsafe fn is_a(node: *mut c_void, tag: pg_sys::NodeTag) -> bool {
    // SAFETY: the caller guarantees a Node, whose first field is its tag.
    !node.is_null() && unsafe { (*node.cast::<pg_sys::Node>()).type_ } == tag
}

/// The non-NULL int4 value of a Const node, if `node` is one.
///
/// # Safety
/// `node` must be NULL or point to a Node.
unsafe fn int4_const(node: *mut c_void) -> Option<i32> {
    // SAFETY: checked to be a Const before its fields are read.
    unsafe {
        if !is_a(node, pg_sys::NodeTag::T_Const) {
            return None;
        }
        let c = node.cast::<pg_sys::Const>();
        ((*c).consttype == pg_sys::INT4OID && !(*c).constisnull).then(|| (*c).constvalue.value() as i32)
    }
}

/// OIDs of this extension's functions, looked up in the schema of the function being planned.
struct Funcs {
    block: pg_sys::Oid,
    probes: pg_sys::Oid,
    hamming: pg_sys::Oid,
    max_distance: pg_sys::Oid,
}

impl Funcs {
    /// # Safety
    /// Must run inside a transaction (catalog lookups).
    unsafe fn lookup(schema: pg_sys::Oid) -> Option<Funcs> {
        // SAFETY: catalog lookups in a transaction; the names are NUL-terminated copies.
        unsafe {
            let nsp = pg_sys::get_namespace_name(schema);
            if nsp.is_null() {
                return None;
            }
            let find = |name: &str, args: &[pg_sys::Oid]| -> pg_sys::Oid {
                let name = CString::new(name).expect("no NUL in function names");
                let names = make_list(&[pg_sys::makeString(nsp), pg_sys::makeString(pg_sys::pstrdup(name.as_ptr()))]);
                pg_sys::LookupFuncName(names, args.len() as i32, args.as_ptr(), true)
            };
            let (i8, i4) = (pg_sys::INT8OID, pg_sys::INT4OID);
            let funcs = Funcs {
                block: find("simhash_block", &[i8, i4, i4]),
                probes: find("simhash_probes", &[i8, i4, i4, i4]),
                hamming: find("hamming", &[i8, i8]),
                max_distance: find("simhash_max_distance", &[]),
            };
            [funcs.block, funcs.probes, funcs.hamming, funcs.max_distance]
                .iter()
                .all(|o| *o != pg_sys::InvalidOid)
                .then_some(funcs)
        }
    }
}

/// `(i, n)` if `expr` is `simhash_block(<column fp_attno>, i, n)` with constant, valid i and n.
///
/// # Safety
/// `expr` must be NULL or point to an expression Node.
unsafe fn block_call(expr: *mut c_void, funcs: &Funcs, fp_attno: i16) -> Option<(i32, i32)> {
    // SAFETY: every pointer is checked for its node tag before being cast.
    unsafe {
        if !is_a(expr, pg_sys::NodeTag::T_FuncExpr) {
            return None;
        }
        let f = expr.cast::<pg_sys::FuncExpr>();
        if (*f).funcid != funcs.block {
            return None;
        }
        let args = list_ptrs((*f).args);
        if args.len() != 3 || !is_a(args[0], pg_sys::NodeTag::T_Var) {
            return None;
        }
        let v = args[0].cast::<pg_sys::Var>();
        if (*v).varattno != fp_attno || (*v).varlevelsup != 0 {
            return None;
        }
        let (i, n) = (int4_const(args[1])?, int4_const(args[2])?);
        core_blocks::check_block(i, n).ok().map(|_| (i, n))
    }
}

/// One candidate block set: for each block, the expression the planner can match to an index.
struct BlockSet {
    n: i32,
    exprs: Vec<*mut pg_sys::Expr>,
}

/// Complete block sets of the table behind `fp`: indexed generated columns and btree
/// expression indexes on `simhash_block(fp, i, n)`.
///
/// # Safety
/// `rel` must be an open heap relation, `fp` a Var of it (varlevelsup 0).
unsafe fn block_sets(rel: pg_sys::Relation, fp: *mut pg_sys::Var, funcs: &Funcs) -> Vec<BlockSet> {
    use std::collections::BTreeMap;
    let mut found: BTreeMap<i32, Vec<*mut pg_sys::Expr>> = BTreeMap::new();
    let mut add = |i: i32, n: i32, e: *mut pg_sys::Expr| {
        let slots = found.entry(n).or_insert_with(|| vec![ptr::null_mut(); n as usize]);
        if slots[i as usize].is_null() {
            slots[i as usize] = e;
        }
    };
    // SAFETY: `rel` is open and locked by the planner's caller, so its descriptor, index
    // list and index relations (opened with AccessShareLock, as the planner does) are valid.
    unsafe {
        let fp_attno = (*fp).varattno;
        let varno = (*fp).varno;
        // Attribute numbers of columns that lead a valid, non-partial btree index.
        let mut indexed_columns = Vec::new();
        for index_oid in list_oids(pg_sys::RelationGetIndexList(rel)) {
            let index = pg_sys::index_open(index_oid, ACCESS_SHARE_LOCK);
            let form = (*index).rd_index;
            let usable = (*(*index).rd_rel).relam == pg_sys::BTREE_AM_OID
                && (*form).indisvalid
                && (*form).indnkeyatts >= 1
                && pg_sys::RelationGetIndexPredicate(index).is_null();
            if usable {
                let key0 = *(*form).indkey.values.as_ptr();
                if key0 != 0 {
                    indexed_columns.push(key0);
                } else if let Some(&expr) = list_ptrs(pg_sys::RelationGetIndexExpressions(index)).first() {
                    if let Some((i, n)) = block_call(expr, funcs, fp_attno) {
                        // The index expression uses varno 1, as does the planner's copy before
                        // it renumbers it to the table's range-table index; do the same.
                        let e = pg_sys::copyObjectImpl(expr).cast::<pg_sys::Node>();
                        pg_sys::ChangeVarNodes(e, 1, varno, 0);
                        add(i, n, e.cast());
                    }
                }
            }
            pg_sys::index_close(index, NO_LOCK);
        }
        // Generated columns hold simhash_block(fp, i, n) in this table, but with inheritance
        // a child could compute them differently: use them only on tables without children.
        let td = (*rel).rd_att;
        let constr = (*td).constr;
        if !(*(*rel).rd_rel).relhassubclass && !constr.is_null() {
            let attrs = (*td).attrs.as_slice((*td).natts as usize);
            for d in 0..(*constr).num_defval as usize {
                let def = *(*constr).defval.add(d);
                let attno = def.adnum;
                let Some(att) = attrs.get((attno as usize).wrapping_sub(1)) else { continue };
                if att.attisdropped
                    || att.attgenerated != pg_sys::ATTRIBUTE_GENERATED_STORED as std::ffi::c_char
                    || att.atttypid != pg_sys::INT4OID
                    || def.adbin.is_null()
                    || !indexed_columns.contains(&attno)
                {
                    continue;
                }
                if let Some((i, n)) = block_call(pg_sys::stringToNode(def.adbin), funcs, fp_attno) {
                    let v = pg_sys::makeVar(varno, attno, pg_sys::INT4OID, -1, pg_sys::InvalidOid, 0);
                    add(i, n, v.cast());
                }
            }
        }
    }
    found
        .into_iter()
        .filter(|(_, exprs)| exprs.iter().all(|e| !e.is_null()))
        .map(|(n, exprs)| BlockSet { n, exprs })
        .collect()
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

/// A plain function call expression.
fn func_call(funcid: pg_sys::Oid, rettype: pg_sys::Oid, args: &[*mut pg_sys::Expr]) -> *mut pg_sys::Expr {
    // SAFETY: makeFuncExpr palloc's a FuncExpr node holding the given list.
    unsafe {
        pg_sys::makeFuncExpr(
            funcid,
            rettype,
            make_list(args),
            pg_sys::InvalidOid,
            pg_sys::InvalidOid,
            pg_sys::CoercionForm::COERCE_EXPLICIT_CALL,
        )
        .cast()
    }
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
        let guc_k = crate::search::MAX_DISTANCE.get();
        let const_k = match args.get(2) {
            None => None,
            Some(&k) if is_a(k, pg_sys::NodeTag::T_Const) => {
                if (*k.cast::<pg_sys::Const>()).constisnull {
                    return None;
                }
                let k = int4_const(k)?;
                core_blocks::check_max_distance(k).unwrap_or_else(|e| crate::blocks::raise(e));
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
                    let probes = core_blocks::probes(q as u64, i as i32, set.n, k, core_blocks::MAX_PROBES).unwrap_or_else(|e| crate::blocks::raise(e));
                    int4_array_const(&probes)
                }
                _ => func_call(
                    funcs.probes,
                    pg_sys::INT4ARRAYOID,
                    &[copy(query), int4_const_node(i as i32), int4_const_node(set.n), copy(k_expr)],
                ),
            };
            let saop = pg_sys::palloc0(std::mem::size_of::<pg_sys::ScalarArrayOpExpr>()).cast::<pg_sys::ScalarArrayOpExpr>();
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
