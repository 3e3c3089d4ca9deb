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
    // SAFETY: the caller guarantees a text datum; detoasting yields a varlena that lives
    // in the current memory context, at least as long as this function call.
    let bytes = unsafe {
        let v = pg_sys::pg_detoast_datum_packed(datum.cast_mut_ptr());
        pgrx::varlena::varlena_to_byte_slice(v)
    };
    server_bytes_to_utf8(bytes)
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
