//! Which indexes of a table serve as block indexes of a fingerprint column: generated
//! block columns with a btree index, and btree expression indexes on
//! `simhash_block(fp, i, n)`. The planner rewrite (support.rs) matches its probes to them;
//! the dedup trigger (trigger/, its pre-check in trigger/precheck.rs) scans them directly.

use std::ffi::c_void;

use pgrx::pg_sys;
use simhash_core::fingerprints::search as core_blocks;

use crate::nodes::{is_a, list_oids, list_ptrs, qualified_name};

const ACCESS_SHARE_LOCK: pg_sys::LOCKMODE = pg_sys::AccessShareLock as pg_sys::LOCKMODE;
const NO_LOCK: pg_sys::LOCKMODE = pg_sys::NoLock as pg_sys::LOCKMODE;

/// The non-NULL int4 value of a Const node, if `node` is one.
///
/// # Safety
/// `node` must be NULL or point to a Node.
pub(crate) unsafe fn int4_const(node: *mut c_void) -> Option<i32> {
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
pub(crate) struct Funcs {
    pub block: pg_sys::Oid,
    pub probes: pg_sys::Oid,
    pub hamming: pg_sys::Oid,
    pub max_distance: pg_sys::Oid,
}

impl Funcs {
    /// # Safety
    /// Must run inside a transaction (catalog lookups).
    pub unsafe fn lookup(schema: pg_sys::Oid) -> Option<Funcs> {
        // SAFETY: catalog lookups in a transaction; the names are NUL-terminated copies.
        unsafe {
            let nsp = pg_sys::get_namespace_name(schema);
            if nsp.is_null() {
                return None;
            }
            let find = |name: &str, args: &[pg_sys::Oid]| -> pg_sys::Oid {
                pg_sys::LookupFuncName(qualified_name(nsp, name), args.len() as i32, args.as_ptr(), true)
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
pub(crate) unsafe fn block_call(expr: *mut c_void, funcs: &Funcs, fp_attno: i16) -> Option<(i32, i32)> {
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

/// The index that serves one block of a set.
#[derive(Clone, Copy)]
pub(crate) struct BlockIndex {
    pub oid: pg_sys::Oid,
    /// Position (1-based) of the fingerprint column among the index's columns, key or
    /// INCLUDE, if it is there: a probe can then test the distance on the index entry.
    pub fp_attno: Option<i32>,
}

/// Whether every index of a block set carries the fingerprint, so that the dedup
/// trigger's pre-check can test its entries on the index (trigger/precheck.rs).
pub(crate) fn covering(indexes: &[BlockIndex]) -> bool {
    indexes.iter().all(|i| i.fp_attno.is_some())
}

/// One complete block set: for each block, the expression the planner can match to an
/// index (a generated column's Var or the index expression), and that index.
pub(crate) struct BlockSet {
    pub n: i32,
    pub exprs: Vec<*mut pg_sys::Expr>,
    pub indexes: Vec<BlockIndex>,
}

/// Complete block sets of the table behind `fp`: indexed generated columns and btree
/// expression indexes on `simhash_block(fp, i, n)`, with valid, non-partial btree indexes.
/// Where several indexes serve a block, one that holds the fingerprint column is preferred.
///
/// # Safety
/// `rel` must be an open heap relation, `fp` a Var of it (varlevelsup 0).
pub(crate) unsafe fn block_sets(rel: pg_sys::Relation, fp: *mut pg_sys::Var, funcs: &Funcs) -> Vec<BlockSet> {
    use std::collections::BTreeMap;
    type Slot = Option<(*mut pg_sys::Expr, BlockIndex)>;
    let mut found: BTreeMap<i32, Vec<Slot>> = BTreeMap::new();
    let mut add = |i: i32, n: i32, e: *mut pg_sys::Expr, index: BlockIndex| {
        let slots = found.entry(n).or_insert_with(|| vec![None; n as usize]);
        let slot = &mut slots[i as usize];
        if slot.is_none_or(|(_, old)| old.fp_attno.is_none() && index.fp_attno.is_some()) {
            *slot = Some((e, index));
        }
    };
    // SAFETY: `rel` is open and locked by the caller, so its descriptor, index list and
    // index relations (opened with AccessShareLock, as the planner does) are valid.
    unsafe {
        let fp_attno = (*fp).varattno;
        let varno = (*fp).varno;
        // Columns that lead a valid, non-partial btree index, with that index.
        let mut indexed_columns: Vec<(i16, BlockIndex)> = Vec::new();
        for index_oid in list_oids(pg_sys::RelationGetIndexList(rel)) {
            let index = pg_sys::index_open(index_oid, ACCESS_SHARE_LOCK);
            let form = (*index).rd_index;
            // The integer opfamily: the rewrite's int4 = and the trigger's F_INT4EQ scan key
            // must be its equality.
            let usable = (*(*index).rd_rel).relam == pg_sys::BTREE_AM_OID
                && (*form).indisvalid
                && (*form).indnkeyatts >= 1
                && *(*index).rd_opfamily == pg_sys::INTEGER_BTREE_FAM_OID
                && pg_sys::RelationGetIndexPredicate(index).is_null();
            if usable {
                let columns = (*form).indkey.values.as_slice((*form).indnatts as usize);
                let block_index = BlockIndex {
                    oid: index_oid,
                    fp_attno: columns.iter().position(|&a| a == fp_attno).map(|j| j as i32 + 1),
                };
                if columns[0] != 0 {
                    indexed_columns.push((columns[0], block_index));
                } else if let Some(&expr) = list_ptrs(pg_sys::RelationGetIndexExpressions(index)).first() {
                    if let Some((i, n)) = block_call(expr, funcs, fp_attno) {
                        // The index expression uses varno 1, as does the planner's copy before
                        // it renumbers it to the table's range-table index; do the same.
                        let e = pg_sys::copyObjectImpl(expr).cast::<pg_sys::Node>();
                        pg_sys::ChangeVarNodes(e, 1, varno, 0);
                        add(i, n, e.cast(), block_index);
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
            let attrs = crate::pg_compat::tuple_desc_attrs(td);
            for d in 0..(*constr).num_defval as usize {
                let def = *(*constr).defval.add(d);
                let attno = def.adnum;
                let Some(att) = attrs.get((attno as usize).wrapping_sub(1)) else { continue };
                if att.attisdropped
                    || att.attgenerated != pg_sys::ATTRIBUTE_GENERATED_STORED as std::ffi::c_char
                    || att.atttypid != pg_sys::INT4OID
                    || def.adbin.is_null()
                {
                    continue;
                }
                let indexes: Vec<BlockIndex> =
                    indexed_columns.iter().filter(|(a, _)| *a == attno).map(|&(_, ix)| ix).collect();
                if indexes.is_empty() {
                    continue;
                }
                if let Some((i, n)) = block_call(pg_sys::stringToNode(def.adbin), funcs, fp_attno) {
                    let v = pg_sys::makeVar(varno, attno, pg_sys::INT4OID, -1, pg_sys::InvalidOid, 0);
                    for ix in indexes {
                        add(i, n, v.cast(), ix);
                    }
                }
            }
        }
    }
    found
        .into_iter()
        .filter_map(|(n, slots)| {
            let slots: Option<Vec<_>> = slots.into_iter().collect();
            slots.map(|s| BlockSet {
                n,
                exprs: s.iter().map(|&(e, _)| e).collect(),
                indexes: s.iter().map(|&(_, ix)| ix).collect(),
            })
        })
        .collect()
}
