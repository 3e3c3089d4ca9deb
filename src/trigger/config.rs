//! The settings of a trigger: its arguments (columns, options, and for the dedup trigger
//! the bound, action and link column), checked against its table; for the dedup trigger
//! the `Config` built from them (cached per backend and trigger in cache.rs).

use std::ffi::{CStr, CString};

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::trigger::{self as dedup, Action, CheckQuery, DedupError};
use simhash_core::{Definition, Options, Tokenizer, Weighting};

use super::key::{keys, Keys};
use super::precheck::PreCheck;
use crate::error::raise;
use crate::search::{block_sets, covering, Funcs};

/// A NUL-terminated copy of a Rust string (identifiers from trigger arguments can't hold NUL).
pub(super) fn cstring(s: &str) -> CString {
    CString::new(s).expect("trigger arguments are C strings")
}

/// `quote_identifier(name)`.
pub(super) fn quote_ident(name: &str) -> String {
    let c = cstring(name);
    // SAFETY: quote_identifier reads a NUL-terminated string and returns either it or a
    // palloc'd quoted copy; we copy the result before `c` is dropped.
    unsafe { CStr::from_ptr(pg_sys::quote_identifier(c.as_ptr())).to_string_lossy().into_owned() }
}

/// The trigger's relation as a quoted, schema-qualified name, and its plain name for messages.
///
/// # Safety
/// `rel` must be an open relation.
pub(super) unsafe fn relation_names(rel: pg_sys::Relation) -> (String, String) {
    // SAFETY: an open relation has a valid pg_class form; the namespace exists while the
    // relation is open and locked.
    unsafe {
        let name = (*(*rel).rd_rel).relname.data.as_ptr();
        let nsp = pg_sys::get_namespace_name((*(*rel).rd_rel).relnamespace);
        let qualified = CStr::from_ptr(pg_sys::quote_qualified_identifier(nsp, name)).to_string_lossy().into_owned();
        (qualified, CStr::from_ptr(name).to_string_lossy().into_owned())
    }
}

/// The trigger's arguments.
///
/// # Safety
/// `trigger` must be the Trigger of a firing trigger.
pub(super) unsafe fn trigger_args(trigger: *const pg_sys::Trigger) -> Vec<String> {
    // SAFETY: tgargs holds tgnargs NUL-terminated strings.
    unsafe {
        (0..(*trigger).tgnargs as usize)
            .map(|i| CStr::from_ptr(*(*trigger).tgargs.add(i)).to_string_lossy().into_owned())
            .collect()
    }
}

/// Raises the ERROR for invalid trigger arguments: 39P01 when the trigger was declared with
/// the wrong number of them, 22023 for a wrong value.
pub(super) fn bad_args(e: DedupError, func: &str) -> ! {
    let code = if e.is_protocol() {
        PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED
    } else {
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
    };
    raise(code, format!("{func}: {e}"), None, None)
}

/// The options of a trigger: its options argument, parsed as `simhash(doc, options)` parses
/// its jsonb (ERROR 22023 on a bad one), else `default`'s defaults, as `simhash(doc)`.
pub(super) fn options(json: Option<&str>, default: Definition) -> Options {
    match json {
        Some(json) => crate::fingerprint::options::parse_str(json, default),
        None => Options::new(default, Tokenizer::Jieba, Weighting::Tfidf),
    }
}

/// A user column of the trigger's table.
#[derive(Clone, Debug)]
pub(super) struct Column {
    pub attnum: i16,
    pub base_type: pg_sys::Oid,
    pub generated: bool,
    /// quote_identifier(name)
    pub sql: String,
}

/// Looks a column up by name: ERROR 42703 when it doesn't exist or is a system column.
///
/// # Safety
/// `rel` must be an open relation.
pub(super) unsafe fn column(rel: pg_sys::Relation, name: &str, func: &str, role: &str) -> Column {
    // SAFETY: SPI_fnumber only reads the descriptor (no SPI connection needed); attributes
    // 1..=natts are initialized entries of it.
    unsafe {
        let desc = (*rel).rd_att;
        let attnum = pg_sys::SPI_fnumber(desc, cstring(name).as_ptr());
        if attnum <= 0 {
            let (_, relname) = relation_names(rel);
            let what = if attnum == pg_sys::SPI_ERROR_NOATTRIBUTE { "does not exist" } else { "is a system column" };
            raise(
                PgSqlErrorCode::ERRCODE_UNDEFINED_COLUMN,
                format!("{func}: {role} column \"{name}\" of relation \"{relname}\" {what}"),
                None,
                None,
            );
        }
        let att = &(*desc).attrs.as_slice((*desc).natts as usize)[attnum as usize - 1];
        Column {
            attnum: attnum as i16,
            base_type: pg_sys::getBaseType(att.atttypid),
            generated: att.attgenerated != 0,
            sql: quote_ident(name),
        }
    }
}

/// The name of a type, for messages.
pub(super) fn type_name(oid: pg_sys::Oid) -> String {
    // SAFETY: format_type_be returns a palloc'd string for any OID.
    unsafe { CStr::from_ptr(pg_sys::format_type_be(oid)).to_string_lossy().into_owned() }
}

/// The extension's schema, quoted for SQL.
pub(super) fn schema_name(ext_schema: pg_sys::Oid) -> String {
    // SAFETY: get_namespace_name returns a palloc'd copy of an existing schema's name (the
    // extension's, which cannot be dropped while its function runs).
    quote_ident(&unsafe { CStr::from_ptr(pg_sys::get_namespace_name(ext_schema)) }.to_string_lossy())
}

/// The fingerprint column, checked: ERROR 42804 unless bigint, 428C9 when it is generated
/// (a BEFORE trigger can neither read nor set it). `from_text`: whether the trigger computes
/// it from a text column (else the row brings it), for the HINT.
///
/// # Safety
/// `rel` must be an open relation.
unsafe fn fp_column(rel: pg_sys::Relation, fp_name: &str, func: &str, from_text: bool) -> Column {
    // SAFETY: forwarded from the caller.
    let fp = unsafe { column(rel, fp_name, func, "fingerprint") };
    if fp.base_type != pg_sys::INT8OID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: fingerprint column \"{fp_name}\" has type {}, expected bigint", type_name(fp.base_type)),
            None,
            None,
        );
    }
    if fp.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: fingerprint column \"{fp_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger can neither read nor set it.".into()),
            Some(if from_text {
                "Make it a plain bigint column: the trigger computes the fingerprint from the text and stores it there."
            } else {
                "Make it a plain bigint column and insert the fingerprint into it."
            }),
        );
    }
    fp
}

/// The fingerprint and text columns, checked: as [`fp_column`], and ERROR 42804 unless the
/// text column is text or varchar.
///
/// # Safety
/// `rel` must be an open relation.
pub(super) unsafe fn fp_and_text(
    rel: pg_sys::Relation,
    fp_name: &str,
    text_name: &str,
    func: &str,
) -> (Column, Column) {
    // SAFETY: forwarded from the caller.
    unsafe { (fp_column(rel, fp_name, func, true), text_column(rel, text_name, func)) }
}

/// The text column, checked: ERROR 42804 unless text or varchar.
///
/// # Safety
/// `rel` must be an open relation.
unsafe fn text_column(rel: pg_sys::Relation, text_name: &str, func: &str) -> Column {
    // SAFETY: forwarded from the caller.
    let text = unsafe { column(rel, text_name, func, "text") };
    if text.base_type != pg_sys::TEXTOID && text.base_type != pg_sys::VARCHAROID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!(
                "{func}: text column \"{text_name}\" has type {}, expected text or varchar",
                type_name(text.base_type)
            ),
            None,
            None,
        );
    }
    text
}

/// The segments and text columns of `simhash_segments_trigger`, checked: ERROR 42804 unless
/// the segments column is bigint[] and the text column text or varchar, 428C9 when the
/// segments column is generated.
///
/// # Safety
/// `rel` must be an open relation.
pub(super) unsafe fn segments_and_text(
    rel: pg_sys::Relation,
    seg_name: &str,
    text_name: &str,
    func: &str,
) -> (Column, Column) {
    // SAFETY: forwarded from the caller.
    let seg = unsafe { column(rel, seg_name, func, "segments") };
    if seg.base_type != pg_sys::INT8ARRAYOID {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: segments column \"{seg_name}\" has type {}, expected bigint[]", type_name(seg.base_type)),
            None,
            None,
        );
    }
    if seg.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: segments column \"{seg_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger cannot set it.".into()),
            Some("Make it a plain bigint[] column, or drop the trigger and keep the generated column."),
        );
    }
    // SAFETY: forwarded from the caller.
    (seg, unsafe { text_column(rel, text_name, func) })
}

/// Everything a dedup trigger derives from its arguments and table, built on its first
/// firing in a backend.
pub(super) struct Config {
    pub relid: pg_sys::Oid,
    pub relname: String,
    pub fp: Column,
    /// The text the fingerprint is computed from; None for `simhash_dedup_fp_trigger`,
    /// whose rows bring their fingerprint.
    pub text: Option<Column>,
    pub link: Option<Column>,
    /// The Hamming bound (`simhash_dedup_trigger`, `simhash_dedup_fp_trigger`).
    pub k: u32,
    /// The resemblance bound (`simhash_segments_dedup_trigger`; 0 for the others).
    pub min_resemblance: f64,
    pub action: Action,
    /// What the trigger fingerprints the text with: its options argument, or the defaults
    /// of the definition its C symbol defaults to.
    pub options: Options,
    /// The key columns as listed in DETAIL, e.g. `id` or `a, b` (`ctid` without a primary key).
    pub key_label: String,
    /// Their attribute numbers (empty for `ctid`), to decide whether the inserting user may
    /// see the key (mod.rs, `may_see_key`).
    pub key_attnums: Vec<i16>,
    /// The key's type, when the check query returns it (link).
    pub link_type: Option<(bool, i16)>,
    pub query_insert: String,
    pub query_update: String,
    /// The block indexes scanned before the check query (precheck.rs), if some set is cheaper
    /// to scan than the query is to run (`dedup::choose_precheck`).
    pub precheck: Option<PreCheck>,
}

/// Checks the arguments of a dedup trigger against its table and builds the check queries.
/// `default` is the definition when the options name none; `fp_only` for
/// `simhash_dedup_fp_trigger`'s arguments (no text column, no options).
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
pub(super) unsafe fn config(
    rel: pg_sys::Relation,
    args: &[String],
    ext_schema: pg_sys::Oid,
    default: Definition,
    func: &str,
    fp_only: bool,
) -> Config {
    let parse = if fp_only { dedup::parse_fp_args } else { dedup::parse_args };
    let parsed = parse(args).unwrap_or_else(|e| bad_args(e, func));
    let options = options(parsed.options.as_deref(), default);
    // SAFETY: `rel` is open (caller); catalog lookups run inside a transaction. The primary
    // key index is opened and closed with AccessShareLock, as the planner does.
    unsafe {
        let (fp, text) = match &parsed.text_column {
            Some(text) => {
                let (fp, text) = fp_and_text(rel, &parsed.fp_column, text, func);
                (fp, Some(text))
            }
            None => (fp_column(rel, &parsed.fp_column, func, false), None),
        };
        let target = target(rel, parsed.link_column.as_deref(), ext_schema, func);
        let query = |t: &Target, exclude_ctid: bool| {
            dedup::check_query(&CheckQuery {
                table: &t.table,
                fp: &fp.sql,
                ext_schema: &t.schema,
                max_distance: parsed.max_distance,
                key_columns: &t.keys.quoted,
                with_link_value: t.keys.link.is_some(),
                exclude_ctid,
            })
        };
        // The table's row count as of its last VACUUM or ANALYZE, which also invalidate this
        // config (relcache), so the choice follows the table's growth.
        let rows = (*(*rel).rd_rel).reltuples as f64;
        let precheck = Funcs::lookup(ext_schema).and_then(|funcs| {
            let var = pg_sys::makeVar(1, fp.attnum, pg_sys::INT8OID, -1, pg_sys::InvalidOid, 0);
            let sets = block_sets(rel, var, &funcs);
            let shapes: Vec<(u32, bool)> = sets.iter().map(|s| (s.n as u32, covering(&s.indexes))).collect();
            let chosen = dedup::choose_precheck(&shapes, parsed.max_distance, rows)?;
            Some(PreCheck { nblocks: sets[chosen].n, indexes: sets[chosen].indexes.clone() })
        });
        let k = parsed.max_distance;
        Config { k, precheck, ..Config::new(rel, target, fp.clone(), text, parsed.action, options, query) }
    }
}

/// What every dedup trigger's check query is built from: its table, schema-qualified and
/// quoted, the extension's schema, quoted, and the table's key and link column.
pub(super) struct Target {
    pub table: String,
    pub relname: String,
    pub schema: String,
    pub keys: Keys,
}

/// The [`Target`] of a trigger on `rel` with link column `link_name`, checked (key.rs).
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
pub(super) unsafe fn target(
    rel: pg_sys::Relation,
    link_name: Option<&str>,
    ext_schema: pg_sys::Oid,
    func: &str,
) -> Target {
    // SAFETY: forwarded from the caller.
    unsafe {
        let (table, relname) = relation_names(rel);
        let keys = keys(rel, link_name, &relname, func);
        Target { table, relname, schema: schema_name(ext_schema), keys }
    }
}

impl Config {
    /// The config of a trigger on `rel` that checks column `fp` (computed from `text`),
    /// with `query(target, exclude_ctid)` as its insert and update check queries; no bound
    /// and no pre-check (the caller sets its own).
    ///
    /// # Safety
    /// `rel` must be an open relation.
    pub(super) unsafe fn new(
        rel: pg_sys::Relation,
        target: Target,
        fp: Column,
        text: Option<Column>,
        action: Action,
        options: Options,
        query: impl Fn(&Target, bool) -> String,
    ) -> Config {
        let (query_insert, query_update) = (query(&target, false), query(&target, true));
        Config {
            // SAFETY: an open relation (caller).
            relid: unsafe { (*rel).rd_id },
            relname: target.relname,
            fp,
            text,
            link: target.keys.link,
            k: 0,
            min_resemblance: 0.0,
            action,
            options,
            key_label: target.keys.label,
            key_attnums: target.keys.attnums,
            link_type: target.keys.link_type,
            query_insert,
            query_update,
            precheck: None,
        }
    }
}
