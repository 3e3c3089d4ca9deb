//! `text` datums in the server encoding ⇄ UTF-8, which is what the core works on.
//!
//! In a UTF8 database this costs nothing. In any other database the text is converted
//! with PostgreSQL's own conversion (`pg_server_to_any`), so a LATIN1 database gets the
//! same fingerprint for the same characters. SQL_ASCII has no defined encoding: its
//! bytes are taken as UTF-8 and refused (22021) when they are not.

use std::borrow::Cow;
use std::ffi::{c_char, CStr};

use pgrx::prelude::*;

/// # Safety
/// `datum` must be a non-NULL `text` (or `varchar`) datum, valid for the current memory context.
pub unsafe fn text_datum_to_utf8<'a>(datum: pg_sys::Datum) -> Cow<'a, str> {
    // SAFETY: forwarded from the caller.
    let v = match unsafe { fetch(datum) } {
        Fetched::Decompressed(raw) => {
            return match server_bytes_to_utf8(&raw) {
                // SAFETY: server_bytes_to_utf8 borrowed these bytes, so they are valid UTF-8.
                Cow::Borrowed(_) => Cow::Owned(unsafe { String::from_utf8_unchecked(raw) }),
                Cow::Owned(converted) => Cow::Owned(converted),
            };
        }
        Fetched::Varlena(v) => v,
    };
    // SAFETY: `v` is a varlena that is not external (fetch); detoasting it yields one that
    // lives in the current memory context, at least as long as this function call.
    let bytes = unsafe { pgrx::varlena::varlena_to_byte_slice(pg_sys::pg_detoast_datum_packed(v)) };
    server_bytes_to_utf8(bytes)
}

enum Fetched {
    /// A text stored pglz-compressed, of a raw size of 1 MB or more, decompressed here.
    Decompressed(Vec<u8>),
    /// Any other text, fetched if it was external, and left to PostgreSQL's detoast.
    Varlena(*mut pg_sys::varlena),
}

/// A text datum fetched from its TOAST table if it was stored there, and decompressed here
/// when it is pglz-compressed and its raw size is a tick of the decompressor (1 MB) or
/// more, with a check for cancellation every tick. PostgreSQL's `pglz_decompress` has no
/// such check: 0.2–1.2 s for a 47 MB text (31 MB compressed, issue 55), by the machine's
/// load, where an lz4 text of that size decompresses in tens of milliseconds, which its
/// detoast is left to do.
///
/// # Safety
/// `datum` must be a non-NULL varlena datum, valid for the current memory context.
unsafe fn fetch(datum: pg_sys::Datum) -> Fetched {
    use pgrx::varlena::{varatt_is_1b_e, varatt_is_4b_c, vardata_4b_c, varsize_4b};
    let ptr = datum.cast_mut_ptr::<pg_sys::varlena>();
    // SAFETY: a varlena datum (caller). detoast_external_attr fetches an external one (on
    // disk, indirect or expanded) whole, still compressed if it was, into a palloc'd inline
    // varlena. varatt_is_4b_c tells a compressed inline varlena, whose 4-byte header is
    // followed by va_tcinfo (raw size and method) and then the compressed data.
    unsafe {
        let external = varatt_is_1b_e(ptr);
        let stored = if external { pg_sys::detoast_external_attr(ptr) } else { ptr };
        if !varatt_is_4b_c(stored) {
            return Fetched::Varlena(stored);
        }
        let header = stored as *const pg_sys::varattrib_4b__bindgen_ty_2;
        let tcinfo = (*header).va_tcinfo;
        let raw_size = (tcinfo & ((1u32 << pg_sys::VARLENA_EXTSIZE_BITS) - 1)) as usize;
        let pglz = tcinfo >> pg_sys::VARLENA_EXTSIZE_BITS == 0;
        if !pglz || raw_size < simhash_core::text::pglz::TICK_BYTES {
            let plain = pg_sys::detoast_attr(stored);
            if external {
                pg_sys::pfree(stored.cast());
            }
            return Fetched::Varlena(plain);
        }
        let data_len = varsize_4b(stored) - std::mem::size_of::<pg_sys::varattrib_4b__bindgen_ty_2>();
        let data = std::slice::from_raw_parts(vardata_4b_c(stored) as *const u8, data_len);
        let raw = simhash_core::text::pglz::decompress(data, raw_size, &mut || {
            check_for_interrupts!();
        });
        if external {
            // The fetched copy, as large as the stored value, is not needed any more.
            pg_sys::pfree(stored.cast());
        }
        match raw {
            Ok(raw) => Fetched::Decompressed(raw),
            Err(_) => {
                ereport!(ERROR, PgSqlErrorCode::ERRCODE_DATA_CORRUPTED, "compressed pglz data is corrupt");
            }
        }
    }
}

pub fn server_bytes_to_utf8(bytes: &[u8]) -> Cow<'_, str> {
    // SAFETY: GetDatabaseEncoding reads a backend-global set at connection start.
    let encoding = unsafe { pg_sys::GetDatabaseEncoding() };
    if encoding == pg_sys::pg_enc::PG_UTF8 as i32 {
        // SAFETY: PostgreSQL verifies every text value entering a UTF8 database.
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    if bytes.is_ascii() {
        // Every server encoding is a superset of ASCII.
        // SAFETY: ASCII is valid UTF-8.
        return Cow::Borrowed(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    // SAFETY: pg_server_to_any reads `len` bytes and returns either its input pointer
    // (no conversion needed) or a palloc'd NUL-terminated copy; it raises a PostgreSQL
    // ERROR (turned into a Rust panic by pgrx's guard) on untranslatable input.
    let converted: &[u8] = unsafe {
        let out = pg_sys::pg_server_to_any(
            bytes.as_ptr() as *const c_char,
            bytes.len() as i32,
            pg_sys::pg_enc::PG_UTF8 as i32,
        );
        if out as *const u8 == bytes.as_ptr() {
            bytes
        } else {
            CStr::from_ptr(out).to_bytes()
        }
    };
    match std::str::from_utf8(converted) {
        Ok(s) => Cow::Owned(s.to_owned()),
        Err(e) => {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_CHARACTER_NOT_IN_REPERTOIRE,
                format!("simhash: text is not valid UTF-8 (byte {}) in a SQL_ASCII database", e.valid_up_to())
            );
        }
    }
}
