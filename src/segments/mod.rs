//! Segment fingerprints (sql/segments/; docs/segments.md): `simhash_segments(doc [, options])`,
//! the set measures `simhash_resemblance` and `simhash_containment`, and (in SQL) segment
//! search on a table's text column: `simhash_create_segments`, `simhash_rare_segments` and
//! `simhash_similar`. The column is kept by `simhash_segments_trigger` (trigger/segments.rs).
//! Bulk pairs and clusters by resemblance: `pairs.rs`; why two texts resemble each other,
//! `simhash_explain`: `explain.rs`.

pub(crate) mod column_trigger;
mod explain;
mod pairs;
pub(crate) mod precheck;
pub(crate) mod trigger;

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting};
use pgrx::prelude::*;
use simhash_core::{Definition, Near, Options, Overlap, Tokenizer};

use crate::error::raise;
use crate::fingerprints::options::{object, parse, trigger_options, JsonbArg};
use crate::text::text_datum_to_utf8;
use crate::trigger::column::Column;

/// `simhash.segment_max_rows`: a segment that more existing rows have is left out of the
/// lookups of `simhash_segments_dedup_trigger` (a disclaimer or a dateline).
pub(crate) static SEGMENT_MAX_ROWS: GucSetting<i32> = GucSetting::<i32>::new(1000);

/// Registers the GUC (called from `_PG_init`).
pub(crate) fn register_gucs() {
    GucRegistry::define_int_guc(
        c"simhash.segment_max_rows",
        c"Segments that more rows have are left out of segment dedup lookups.",
        c"simhash_segments_dedup_trigger finds candidates only through the new row's segments that at most this many existing rows have, so a passage repeated in thousands of rows does not make every insert read them.",
        &SEGMENT_MAX_ROWS,
        1,
        1_000_000,
        GucContext::Userset,
        GucFlags::default(),
    );
}

/// The segment fingerprints of a text datum, with a check for cancellation between the
/// pieces of a long text and every 64k occurrences of the window. Options with the ngram
/// tokenizer are refused (22023): it keeps no punctuation, so a text has no sentences.
///
/// # Safety
/// `datum` must be a non-NULL `text` (or `varchar`) datum.
pub(crate) unsafe fn segments_of_text_datum(datum: pg_sys::Datum, options: &Options) -> Vec<i64> {
    refuse_ngram(options, "simhash_segments");
    // SAFETY: forwarded from the caller.
    let doc = unsafe { text_datum_to_utf8(datum) };
    simhash_core::segments_with(crate::lexicon::lexicon(), &doc, &options.into(), &mut || {
        check_for_interrupts!();
    })
    .into_iter()
    .map(|f| f as i64)
    .collect()
}

/// ERROR 22023 for options with the ngram tokenizer: it keeps no punctuation, so a text has
/// no sentences and no segments under definitions 1 and 2; definition 3's shingles are of
/// jieba's words. `func` is named in the message.
pub(crate) fn refuse_ngram(options: &Options, func: &str) {
    if let Tokenizer::Ngram(_) = options.tokenizer {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: option \"tokenizer\" must be \"jieba\" for segments"),
            Some(match options.definition {
                Definition::V3 => "Definition 3's segments are shingles of jieba's words.".into(),
                _ => "Segments are runs of sentences, and the ngram tokenizer keeps no punctuation to end them.".into(),
            }),
            Some("The ngram tokenizer fingerprints whole texts: simhash(doc, '{\"tokenizer\": \"ngram\"}') and the Hamming triggers take it."),
        );
    }
}

/// The options of `simhash_segments` plus `"max_distance"` (since 2.1.0), the bits within
/// which segments match (0 to 64, default 0: exactly), as `simhash_resemblance(a, b,
/// max_distance)`: what `simhash_segments_dedup_trigger` and `simhash_explain` take. 22023,
/// naming `func`, outside 0 to 64, for the ngram tokenizer, and above 0 under definition 3,
/// whose segments are shingle hashes: two of them a few bits apart are unrelated shingles.
pub(crate) fn options_within(mut value: serde_json::Value, default: Definition, func: &str) -> (Options, u32) {
    let k = match value.as_object_mut().and_then(|o| o.remove("max_distance")) {
        None => 0,
        Some(v) => match v.as_u64() {
            Some(k) if k <= 64 => k as u32,
            _ => raise(
                PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
                format!("{func}: option \"max_distance\" must be an integer between 0 and 64, got {v}"),
                None,
                None,
            ),
        },
    };
    let options = crate::fingerprints::options::parse_value(&value, default, func);
    refuse_ngram(&options, func);
    if k > 0 && options.definition == Definition::V3 {
        raise(
            PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE,
            format!("{func}: option \"max_distance\" must be 0 under definition 3, got {k}"),
            Some("Definition 3's segments are hashes of word shingles, not SimHash fingerprints: two a few bits apart are unrelated.".into()),
            Some("Leave \"max_distance\" out, or name definition \"2\" for segments matched within k bits."),
        );
    }
    (options, k)
}

/// `simhash_segments(doc text, options jsonb)` (STRICT): a bigint[] of the text's distinct
/// segment fingerprints, in text order; `{}` for a text without a segment.
///
/// # Safety
/// `fcinfo` must be the call info of a STRICT function with (text, jsonb) arguments.
pub(crate) unsafe fn segments_body(fcinfo: pg_sys::FunctionCallInfo, definition: Definition) -> pg_sys::Datum {
    // SAFETY: STRICT with (text, jsonb) arguments (caller): both non-NULL datums of those
    // types. The options are parsed before the text is read.
    unsafe {
        let json = JsonbArg::from_raw(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 1));
        let options = parse(&json, definition, "simhash_segments");
        let segs = segments_of_text_datum(pgrx::fcinfo::pg_getarg_datum_raw(fcinfo, 0), &options);
        segs.into_datum().expect("an array datum")
    }
}

v1_function!(
    /// `simhash_segments(doc text, options jsonb DEFAULT '{}') → bigint[]` since 3.0.0:
    /// definition 3 (winnowed feature shingles) unless the options name another.
    pg_finfo_simhash_segments_v3, simhash_segments_v3 => segments_body, Definition::V3
);

/// The non-NULL elements of an array, as the core's u64 fingerprints.
fn elements(a: &Array<i64>) -> Vec<u64> {
    a.iter().flatten().map(|v| v as u64).collect()
}

/// `2|A∩B| / (|A|+|B|)` over distinct non-NULL elements: the share of both texts' segments
/// that find a partner in the other. 0 when both are empty.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_resemblance(a: Array<i64>, b: Array<i64>) -> f64 {
    Overlap::of(&elements(&a), &elements(&b)).resemblance()
}

/// `|A∩B| / |A|` over distinct non-NULL elements: the share of a's segments found in b.
/// 0 when a is empty.
#[pg_extern(immutable, strict, parallel_safe)]
fn simhash_containment(a: Array<i64>, b: Array<i64>) -> f64 {
    Overlap::of(&elements(&a), &elements(&b)).containment()
}

/// The match of two segment arrays within `max_distance` bits (22023 outside `0..=64`),
/// cancellable: past k = 0 every pair is compared.
fn near(func: &str, a: &Array<i64>, b: &Array<i64>, max_distance: i32) -> Near {
    let k = crate::fingerprints::pairs::max_distance(func, max_distance);
    Near::of(&elements(a), &elements(b), k, &mut || {
        check_for_interrupts!();
    })
}

/// `simhash_resemblance(a, b, max_distance)` since 2.1.0: a segment the other text has not,
/// but has one within `max_distance` bits of, counts ½ (`Near`); at 0, the two-argument form.
#[pg_extern(immutable, strict, parallel_safe, name = "simhash_resemblance")]
fn simhash_resemblance_within(a: Array<i64>, b: Array<i64>, max_distance: i32) -> f64 {
    near("simhash_resemblance", &a, &b, max_distance).resemblance()
}

/// `simhash_containment(a, b, max_distance)` since 2.1.0: the share of a's segments found in
/// b, one found only within `max_distance` bits counting ½.
#[pg_extern(immutable, strict, parallel_safe, name = "simhash_containment")]
fn simhash_containment_within(a: Array<i64>, b: Array<i64>, max_distance: i32) -> f64 {
    near("simhash_containment", &a, &b, max_distance).containment()
}

/// The options of `simhash_segments_dedup_trigger`: those of `simhash_segments`, plus
/// `"max_distance"` ([`options_within`]).
pub(crate) fn segment_options(json: Option<&str>, default: Definition, func: &str) -> (Options, u32) {
    match json {
        Some(json) => options_within(object(json, func), default, func),
        None => (trigger_options(None, default, func), 0),
    }
}

/// The segments of the text in `text_col` of `tuple` under `options`: None when the text
/// is NULL.
///
/// # Safety
/// `tuple` must be a heap tuple of `desc`, and `text_col` a text/varchar column of it.
pub(crate) unsafe fn segments_of(
    tuple: pg_sys::HeapTuple,
    desc: pg_sys::TupleDesc,
    text_col: &Column,
    options: &Options,
) -> Option<Vec<i64>> {
    // SAFETY: forwarded from the caller; a non-NULL text or varchar datum (checked by
    // `segments_and_text`).
    unsafe { crate::trigger::value_of(tuple, desc, text_col).map(|datum| segments_of_text_datum(datum, options)) }
}

pgrx::extension_sql_file!(
    "../../sql/segments/segments.sql",
    name = "segments",
    requires =
        [simhash_resemblance, simhash_containment, simhash_resemblance_within, simhash_containment_within, "trigger"]
);
