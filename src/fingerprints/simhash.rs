//! `simhash(doc text [, options jsonb])`, `simhash(doc text, options text)` (two literals),
//! `simhash(features text[], weights float8[])` and `simhash_features(doc text [, options jsonb])`.
//!
//! The four `simhash` variants are version-1 C functions written by hand rather than
//! `#[pg_extern]`s: pgrx's `&str` argument copies every detoasted document and
//! accepts only UTF-8, where these read the datum in place and convert other server
//! encodings (see `text.rs`). Their `CREATE FUNCTION`s are in `sql/fingerprints/fingerprint.sql`.

use pgrx::prelude::*;
use simhash_core::{Definition, Options};

use crate::text::text_datum_to_utf8;

/// The fingerprint of a text datum in the server encoding, `None` (SQL NULL) for a text
/// the definition declines: the one definition the SQL functions and the insert
/// triggers (trigger/) compute. A long text is segmented in pieces, with a check for
/// cancellation between two (`simhash_core::fingerprints::PIECE_BYTES`).
///
/// # Safety
/// `datum` must be a non-NULL `text` (or `varchar`) datum.
pub(crate) unsafe fn simhash_of_text_datum(datum: pg_sys::Datum, options: &Options) -> Option<i64> {
    // SAFETY: forwarded from the caller.
    let doc = unsafe { text_datum_to_utf8(datum) };
    simhash_core::simhash_text_with(crate::lexicon::lexicon(), &doc, options, &mut || {
        check_for_interrupts!();
    })
    .map(|fp| fp as i64)
}

/// The function's result: the fingerprint, or SQL NULL.
///
/// # Safety
/// `fcinfo` must be the call info of the running V1 function.
unsafe fn result(fcinfo: pg_sys::FunctionCallInfo, fp: Option<i64>) -> pg_sys::Datum {
    match fp {
        Some(fp) => pg_sys::Datum::from(fp),
        None => {
            // SAFETY: a valid fcinfo (caller).
            unsafe { (*fcinfo).isnull = true };
            pg_sys::Datum::from(0usize)
        }
    }
}

/// `simhash(doc text)`, STRICT, with `definition`'s default options.
///
/// # Safety
/// `fcinfo` must be the call info of a STRICT function with one text argument.
pub(crate) unsafe fn simhash_doc(fcinfo: pg_sys::FunctionCallInfo, definition: Definition) -> pg_sys::Datum {
    let options = Options::new(definition, simhash_core::Tokenizer::Jieba, simhash_core::Weighting::Tfidf);
    // SAFETY: STRICT with one text argument (caller), so argument 0 is a non-NULL text.
    unsafe { result(fcinfo, simhash_of_text_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), &options)) }
}

/// `simhash(doc text, options jsonb)`, STRICT, `definition` unless the options name one.
///
/// # Safety
/// `fcinfo` must be the call info of a STRICT function with (text, jsonb) arguments.
pub(crate) unsafe fn simhash_doc_options(fcinfo: pg_sys::FunctionCallInfo, definition: Definition) -> pg_sys::Datum {
    // SAFETY: STRICT with (text, jsonb) arguments (caller), so both are non-NULL datums of
    // those types. The options are parsed before the text is read.
    unsafe {
        let json = super::options::JsonbArg::from_raw(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1));
        let options = super::options::parse(&json, definition, "simhash");
        result(fcinfo, simhash_of_text_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), &options))
    }
}

/// `simhash(doc text, options text)`, STRICT: the options as JSON text, parsed as the
/// triggers' options are (22023 also for bad JSON), `definition` unless they name one.
///
/// It exists for two untyped literals, `simhash('...', '{"min_features": 0}')`: with only
/// `(text, jsonb)` and `(text[], float8[])`, PostgreSQL's overload resolution finds no
/// string-category type at the second position and fails with "function simhash(unknown,
/// unknown) is not unique"; with `(text, text)` the string category wins at both positions.
///
/// # Safety
/// `fcinfo` must be the call info of a STRICT function with (text, text) arguments.
pub(crate) unsafe fn simhash_doc_options_text(
    fcinfo: pg_sys::FunctionCallInfo,
    definition: Definition,
) -> pg_sys::Datum {
    // SAFETY: STRICT with (text, text) arguments (caller), so both are non-NULL text datums.
    // The options are parsed before the text is read.
    unsafe {
        let json = text_datum_to_utf8(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1));
        let options = super::options::parse_str(&json, definition, "simhash");
        result(fcinfo, simhash_of_text_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), &options))
    }
}

v1_function!(
    /// `simhash(doc text) → bigint` since 3.0.0: definition 3.
    pg_finfo_simhash_text_v3, simhash_text_v3 => simhash_doc, Definition::V3
);
v1_function!(
    /// `simhash(doc text, options jsonb) → bigint` since 3.0.0: definition 3 by default.
    pg_finfo_simhash_text_options_v3, simhash_text_options_v3 => simhash_doc_options, Definition::V3
);
v1_function!(
    /// `simhash(doc text, options text) → bigint` since 3.0.0: definition 3 by default.
    pg_finfo_simhash_text_options_text_v3, simhash_text_options_text_v3 => simhash_doc_options_text, Definition::V3
);

/// Elements of a one-dimensional array datum, with their NULL flags.
///
/// # Safety
/// `datum` must be a non-NULL array whose element type is `elem_type`.
unsafe fn deconstruct(datum: pg_sys::Datum, elem_type: pg_sys::Oid, what: &str) -> (Vec<pg_sys::Datum>, Vec<bool>) {
    // SAFETY: the caller guarantees an array of `elem_type`; deconstruct_array palloc's
    // its outputs in the current memory context and sets `n` to their length.
    unsafe {
        let arr = pg_sys::pg_detoast_datum(datum.cast_mut_ptr()) as *mut pg_sys::ArrayType;
        if (*arr).ndim > 1 {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_ARRAY_ELEMENT_ERROR,
                format!("simhash: {what} must be a one-dimensional array")
            );
        }
        let (mut len, mut byval, mut align) = (0i16, false, 0 as std::ffi::c_char);
        pg_sys::get_typlenbyvalalign(elem_type, &mut len, &mut byval, &mut align);
        let mut elems: *mut pg_sys::Datum = std::ptr::null_mut();
        let mut nulls: *mut bool = std::ptr::null_mut();
        let mut n = 0i32;
        pg_sys::deconstruct_array(arr, elem_type, len.into(), byval, align, &mut elems, &mut nulls, &mut n);
        if n == 0 {
            return (Vec::new(), Vec::new());
        }
        (std::slice::from_raw_parts(elems, n as usize).to_vec(), std::slice::from_raw_parts(nulls, n as usize).to_vec())
    }
}

function_info_v1!(pg_finfo_simhash_weighted);
/// `simhash(features text[], weights float8[]) → bigint`, STRICT. Each feature is hashed
/// as its UTF-8 bytes, verbatim (no normalization), with its weight as given.
#[unsafe(no_mangle)]
#[pg_guard]
pub unsafe extern "C-unwind" fn simhash_weighted(fcinfo: pg_sys::FunctionCallInfo) -> pg_sys::Datum {
    // SAFETY: declared STRICT with (text[], float8[]) arguments.
    let ((feats, feat_nulls), (weights, weight_nulls)) = unsafe {
        (
            deconstruct(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), pg_sys::TEXTOID, "features"),
            deconstruct(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1), pg_sys::FLOAT8OID, "weights"),
        )
    };
    if feats.len() != weights.len() {
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_ARRAY_ELEMENT_ERROR,
            format!("simhash: {} features but {} weights", feats.len(), weights.len()),
            "features and weights must have the same length"
        );
    }
    if let Some(i) = feat_nulls.iter().chain(&weight_nulls).position(|&n| n) {
        let (which, at) = if i < feat_nulls.len() { ("features", i) } else { ("weights", i - feat_nulls.len()) };
        ereport!(
            ERROR,
            PgSqlErrorCode::ERRCODE_NULL_VALUE_NOT_ALLOWED,
            format!("simhash: {which}[{}] is NULL", at + 1)
        );
    }
    let mut hashed = Vec::with_capacity(feats.len());
    for (i, (&f, &w)) in feats.iter().zip(&weights).enumerate() {
        // SAFETY: float8 is pass-by-value on every 64-bit platform pgrx supports.
        let w = unsafe { f64::from_datum(w, false) }.expect("non-NULL float8");
        if !w.is_finite() {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_DATA_EXCEPTION,
                format!("simhash: weights[{}] is {w}; weights must be finite", i + 1)
            );
        }
        // SAFETY: `f` is a non-NULL element of a text[] array.
        let text = unsafe { text_datum_to_utf8(f) };
        hashed.push((simhash_core::hash_feature(text.as_bytes()), w));
    }
    pg_sys::Datum::from(simhash_core::fingerprint(hashed) as i64)
}

/// The features `simhash(doc, options)` folds, as UTF-8 bytes; `simhash_features(text, jsonb)`
/// in sql/fingerprints/fingerprint.sql converts them to the server encoding. Definition 0 unless the
/// options name one, as in 0.x: 3.0's `simhash_features` passes `{"definition": "3"} || options`
/// (`simhash_features_v2`, 2.x's, `"2"`).
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_features_utf8(
    doc: &[u8],
    options: crate::fingerprints::options::JsonbArg,
) -> TableIterator<'static, (name!(feature, Vec<u8>), name!(weight, f64))> {
    let rules = simhash_core::Rules::from(&super::options::parse(&options, Definition::V0, "simhash_features"));
    // convert_to(doc, 'UTF8') in the SQL wrapper has already converted to UTF-8, whatever
    // the server encoding: these bytes are never in the server encoding.
    let doc = match std::str::from_utf8(doc) {
        Ok(s) => s,
        Err(e) => {
            ereport!(
                ERROR,
                PgSqlErrorCode::ERRCODE_CHARACTER_NOT_IN_REPERTOIRE,
                format!("simhash: invalid byte sequence for encoding \"UTF8\" at byte {}", e.valid_up_to())
            );
        }
    };
    let normalized = simhash_core::fingerprints::normalize_for(doc, &rules, usize::MAX, &mut || ());
    let rows: Vec<(Vec<u8>, f64)> = simhash_core::extract(crate::lexicon::lexicon(), &normalized, &rules)
        .into_iter()
        .map(|f| (f.text.as_bytes().to_vec(), f.weight))
        .collect();
    TableIterator::new(rows)
}

pgrx::extension_sql_file!(
    "../../sql/fingerprints/fingerprint.sql",
    name = "fingerprint",
    requires = [simhash_features_utf8]
);
