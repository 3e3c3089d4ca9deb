//! Planner node helpers shared by the planner support functions (search/support.rs,
//! similarity/support.rs) and the block-index discovery: Lists, node tags and qualified names.

use std::ffi::{c_char, c_void, CString};
use std::ptr;

use pgrx::pg_sys;

/// Elements of a pointer List.
///
/// # Safety
/// `list` must be NIL or a valid pointer List.
pub(crate) unsafe fn list_ptrs(list: *mut pg_sys::List) -> Vec<*mut c_void> {
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
pub(crate) unsafe fn list_oids(list: *mut pg_sys::List) -> Vec<pg_sys::Oid> {
    if list.is_null() {
        return Vec::new();
    }
    // SAFETY: as in `list_ptrs`; OID cells hold `oid_value`.
    unsafe { (0..(*list).length as usize).map(|i| (*(*list).elements.add(i)).oid_value).collect() }
}

/// A List of the given pointers, in the current memory context.
pub(crate) fn make_list<T>(items: &[*mut T]) -> *mut pg_sys::List {
    let mut list = ptr::null_mut();
    for &item in items {
        // SAFETY: lappend accepts NIL and palloc's in CurrentMemoryContext.
        list = unsafe { pg_sys::lappend(list, item.cast()) };
    }
    list
}

/// The name list `nsp.name` (String nodes) that catalog lookups by name take
/// (LookupFuncName, OpernameGetOprid, get_opfamily_oid, makeTypeNameFromNameList).
///
/// # Safety
/// `nsp` must be a NUL-terminated string that lives as long as the list (a palloc'd schema
/// name, as get_namespace_name returns); must run in a memory context (palloc).
pub(crate) unsafe fn qualified_name(nsp: *mut c_char, name: &str) -> *mut pg_sys::List {
    let name = CString::new(name).expect("no NUL in names");
    // SAFETY: makeString keeps the pointer it is given: `nsp` lives long enough (caller), and
    // the name is a palloc'd copy.
    unsafe { make_list(&[pg_sys::makeString(nsp), pg_sys::makeString(pg_sys::pstrdup(name.as_ptr()))]) }
}

/// Whether `node` is non-NULL and has tag `tag`.
///
/// # Safety
/// `node` must be NULL or point to a Node.
pub(crate) unsafe fn is_a(node: *mut c_void, tag: pg_sys::NodeTag) -> bool {
    // SAFETY: the caller guarantees a Node, whose first field is its tag.
    !node.is_null() && unsafe { (*node.cast::<pg_sys::Node>()).type_ } == tag
}

/// A plain function call expression.
pub(crate) fn func_call(funcid: pg_sys::Oid, rettype: pg_sys::Oid, args: &[*mut pg_sys::Expr]) -> *mut pg_sys::Expr {
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
