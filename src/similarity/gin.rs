//! The GIN operator class `simhash_ops` for `text` (sql/similarity/gin.sql): its support
//! functions, raw fmgr V1 functions as GIN calls them (src/backend/access/gin/ginutil.c;
//! pg_trgm's trgm_gin.c is the model), and `simhash_keys(text)`, what an index holds.
//!
//! - extractValue: a text's index keys (int4): its bottom-k sketch and its winnowed shingles
//!   (`simhash_core::similarity::keys`).
//! - extractQuery: a `simhash_query`'s lookup (`simhash_core::similarity::lookup`): its keys,
//!   and how many a row must have, kept in `extra_data[0]`; a threshold too low for keys
//!   reads every row (GIN_SEARCH_MODE_ALL). With a frame, the keys off it
//!   (`simhash_core::similarity::frame_keys`).
//! - consistent / triConsistent: at least that many keys present (or possibly present);
//!   always with a recheck, the exact `@%` (query.rs).
//!
//! `simhash_band_ops` (band_gin.rs) has extractValue and extractQuery of its own, and shares
//! consistent and triConsistent.
//!
//! `simhash_ops` is measure 2's; measure 1's `simhash_ops_m1` (4.x's `simhash_ops`, renamed)
//! keeps 4.x's symbols for its extractValue, extractQuery and `simhash_keys_m1`; consistent
//! and triConsistent only count keys, and serve both.

use std::ffi::c_void;

use pgrx::prelude::*;
use simhash_core::similarity::frame_keys::Framed;
use simhash_core::similarity::{text_keys, Lookup, Version};

use super::query::Query;
use super::{text_arg, tick};

/// A palloc'd array of int4 key datums (NULL for none), its length stored at `n`.
///
/// # Safety
/// `n` must point to a writable int32.
pub(super) unsafe fn key_datums(keys: &[i32], n: *mut i32) -> pg_sys::Datum {
    // SAFETY: `n` is writable (caller); palloc returns memory for keys.len() Datums, filled
    // before it is returned; GIN frees it with the scan or insertion context.
    unsafe {
        *n = keys.len() as i32;
        if keys.is_empty() {
            return pg_sys::Datum::from(0usize);
        }
        let out = pg_sys::palloc(keys.len() * std::mem::size_of::<pg_sys::Datum>()) as *mut pg_sys::Datum;
        for (i, &k) in keys.iter().enumerate() {
            *out.add(i) = pg_sys::Datum::from(k);
        }
        pg_sys::Datum::from(out)
    }
}

/// The index keys of a text under version `v`.
fn keys_of(text: &str, v: Version) -> Vec<i32> {
    text_keys(text, v, &mut tick)
}

/// `extractValue(text, internal nkeys, internal nullFlags) → internal`.
///
/// # Safety
/// GIN calls it with a non-NULL text item and a pointer to the key count; nullFlags may stay
/// NULL (no key is NULL).
pub(crate) unsafe fn extract_value(fcinfo: pg_sys::FunctionCallInfo, v: Version) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe {
        let text = text_arg(fcinfo, 0);
        let n = pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1).cast_mut_ptr::<i32>();
        key_datums(&keys_of(&text, v), n)
    }
}

v1_function!(
    /// extractValue of `simhash_ops`.
    pg_finfo_simhash_gin_extract_value_m2, simhash_gin_extract_value_m2 => extract_value, Version::M2
);

/// What consistent needs of a lookup, kept in `extra_data[0]`.
#[repr(C)]
struct Need {
    required: i32,
}

/// `extractQuery(simhash_query, internal nkeys, int2 strategy, internal pmatch, internal
/// extra_data, internal nullFlags, internal searchMode) → internal`, with the lookup `look`
/// makes of the query.
///
/// # Safety
/// GIN calls it with a non-NULL simhash_query (strategy 1, the only one) and writable
/// pointers for the key count, the extra data array and the search mode.
pub(super) unsafe fn extract_query_with(
    fcinfo: pg_sys::FunctionCallInfo,
    look: impl FnOnce(&Query) -> Lookup,
) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller; the extra data array is palloc'd here with one slot
    // per key.
    unsafe {
        let arg = |i| pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, i);
        let n = arg(1).cast_mut_ptr::<i32>();
        let extra = arg(4).cast_mut_ptr::<*mut *mut c_void>();
        let mode = arg(6).cast_mut_ptr::<i32>();
        let Some(q) = Query::from_datum(arg(0)) else {
            *n = 0;
            return pg_sys::Datum::from(0usize);
        };
        let l = look(&q);
        if l.scan_all {
            *mode = pg_sys::GIN_SEARCH_MODE_ALL as i32;
            *n = 0;
            return pg_sys::Datum::from(0usize);
        }
        let keys = key_datums(&l.keys, n);
        if !l.keys.is_empty() {
            let need = pg_sys::palloc(std::mem::size_of::<Need>()) as *mut Need;
            (*need).required = l.required as i32;
            let slots = pg_sys::palloc0(l.keys.len() * std::mem::size_of::<*mut c_void>()) as *mut *mut c_void;
            *slots = need.cast();
            *extra = slots;
        }
        keys
    }
}

/// extractQuery of `simhash_ops` (version `v`): [`extract_query_with`] the key lookup.
///
/// # Safety
/// As [`extract_query_with`].
pub(crate) unsafe fn extract_query(fcinfo: pg_sys::FunctionCallInfo, v: Version) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe {
        extract_query_with(fcinfo, |q| {
            let l = q.lookup(v);
            // A frame asks for the keys off it (simhash_core::similarity::frame_keys); the
            // recheck tests the rest.
            match &q.frame {
                Some(frame) => Framed::of(l, frame).index_lookup(),
                None => l,
            }
        })
    }
}

v1_function!(
    /// extractQuery of `simhash_ops`.
    pg_finfo_simhash_gin_extract_query_m2, simhash_gin_extract_query_m2 => extract_query, Version::M2
);

/// The keys a row must have, from consistent's `extra_data`; 0 when the lookup has no key
/// (it reads every row).
///
/// # Safety
/// `extra` must be the extra data array extractQuery made, or NULL, and `nkeys` its length.
unsafe fn required(extra: *mut *mut c_void, nkeys: i32) -> i32 {
    // SAFETY: extractQuery stored a Need in slot 0 whenever it returned a key.
    unsafe {
        if nkeys == 0 || extra.is_null() || (*extra).is_null() {
            return 0;
        }
        (*(*extra).cast::<Need>()).required
    }
}

function_info_v1!(pg_finfo_simhash_gin_consistent);
/// `consistent(internal check, int2, simhash_query, int4 nkeys, internal extra_data,
/// internal recheck, internal queryKeys, internal nullFlags) → bool`.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_gin_consistent(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: GIN passes `nkeys` flags in `check`, the extra data of extractQuery and a
    // writable recheck flag.
    unsafe {
        let arg = |i| pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, i);
        let check = arg(0).cast_mut_ptr::<bool>();
        let nkeys = arg(3).value() as i32;
        *arg(5).cast_mut_ptr::<bool>() = true;
        let need = required(arg(4).cast_mut_ptr(), nkeys);
        let present = (0..nkeys as usize).filter(|&i| *check.add(i)).count() as i32;
        (present >= need).into()
    }
}

function_info_v1!(pg_finfo_simhash_gin_triconsistent);
/// `triConsistent(internal check, int2, simhash_query, int4 nkeys, internal extra_data,
/// internal queryKeys, internal nullFlags) → "char"`: FALSE when too few keys can be
/// present, else MAYBE (the recheck decides).
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_gin_triconsistent(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: GIN passes `nkeys` ternary values in `check` and the extra data of extractQuery.
    unsafe {
        let arg = |i| pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, i);
        let check = arg(0).cast_mut_ptr::<pg_sys::GinTernaryValue>();
        let nkeys = arg(3).value() as i32;
        let need = required(arg(4).cast_mut_ptr(), nkeys);
        let possible = (0..nkeys as usize).filter(|&i| *check.add(i) as u32 != pg_sys::GIN_FALSE).count() as i32;
        let v = if possible >= need { pg_sys::GIN_MAYBE } else { pg_sys::GIN_FALSE };
        pg_sys::Datum::from(v as pg_sys::GinTernaryValue)
    }
}

/// `simhash_keys(doc text) → int4[]` (STRICT): the keys a `simhash_ops` index holds for a
/// text, ascending (as pg_trgm's `show_trgm` shows its trigrams).
///
/// # Safety
/// `fcinfo` must be that of a STRICT (text) function.
pub(crate) unsafe fn keys(fcinfo: pg_sys::FunctionCallInfo, v: Version) -> pg_sys::Datum {
    // SAFETY: forwarded from the caller.
    unsafe { keys_of(&text_arg(fcinfo, 0), v).into_datum().expect("an array datum") }
}

v1_function!(
    /// `simhash_keys(doc)`: what a `simhash_ops` index holds.
    pg_finfo_simhash_keys_m2, simhash_keys_m2 => keys, Version::M2
);
