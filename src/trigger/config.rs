//! The settings of a dedup trigger: what every one has ([`Config`]: its table, key, link
//! column, action and check queries) and what its measure adds ([`Measure`], implemented in
//! each measure's trigger.rs), checked against the table and cached per backend and trigger
//! (cache.rs).

use std::ffi::CStr;

use pgrx::pg_sys;
use pgrx::prelude::*;
use simhash_core::trigger::{Action, DedupError, QueryTarget};

use super::column::{column, relation_names, schema_name, type_name, Column};
use super::key::{keys, Keys};
use super::Decision;
use crate::error::raise;

/// The trigger's arguments.
///
/// # Safety
/// `trigger` must be the Trigger of a firing trigger.
pub(crate) unsafe fn trigger_args(trigger: *const pg_sys::Trigger) -> Vec<String> {
    // SAFETY: tgargs holds tgnargs NUL-terminated strings.
    unsafe {
        (0..(*trigger).tgnargs as usize)
            .map(|i| CStr::from_ptr(*(*trigger).tgargs.add(i)).to_string_lossy().into_owned())
            .collect()
    }
}

/// Raises the ERROR for invalid trigger arguments: 39P01 when the trigger was declared with
/// the wrong number of them, 22023 for a wrong value.
pub(crate) fn bad_args(e: DedupError, func: &str) -> ! {
    let code = if e.is_protocol() {
        PgSqlErrorCode::ERRCODE_E_R_I_E_TRIGGER_PROTOCOL_VIOLATED
    } else {
        PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE
    };
    raise(code, format!("{func}: {e}"), None, None)
}

/// A column the trigger computes and writes, checked: ERROR 42804 unless of type `ty`, 428C9
/// when it is a stored generated column (computed after BEFORE triggers: the trigger could
/// neither read nor set it; `hint` says what to make it instead). `role` names it in messages.
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn computed_column(
    rel: pg_sys::Relation,
    name: &str,
    func: &str,
    role: &str,
    ty: pg_sys::Oid,
    hint: &str,
) -> Column {
    // SAFETY: forwarded from the caller.
    let c = unsafe { column(rel, name, func, role) };
    if c.base_type != ty {
        raise(
            PgSqlErrorCode::ERRCODE_DATATYPE_MISMATCH,
            format!("{func}: {role} column \"{name}\" has type {}, expected {}", type_name(c.base_type), type_name(ty)),
            None,
            None,
        );
    }
    if c.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: {role} column \"{name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger can neither read nor set it.".into()),
            Some(hint),
        );
    }
    c
}

/// The text column, checked: ERROR 42804 unless text or varchar, 428C9 when it is a stored
/// generated column (computed after BEFORE triggers: the trigger would read NULL and do
/// nothing, issue 49).
///
/// # Safety
/// `rel` must be an open relation.
pub(crate) unsafe fn text_column(rel: pg_sys::Relation, text_name: &str, func: &str) -> Column {
    // SAFETY: forwarded from the caller.
    let text = unsafe { column(rel, text_name, func, "text") };
    if text.generated {
        raise(
            PgSqlErrorCode::ERRCODE_GENERATED_ALWAYS,
            format!("{func}: text column \"{text_name}\" is a generated column"),
            Some("Stored generated columns are computed after BEFORE triggers, so the trigger would read NULL and check nothing.".into()),
            Some("Name a plain column: fill it in a BEFORE trigger of your own that fires first (triggers fire in name order), or give the trigger the column the text comes from."),
        );
    }
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

/// The trigger's arguments without the option `"decision"`, and what decides: the entry
/// point's `decision`, or for 7.0's triggers (the latest decision) what the option asks. ERROR
/// 22023 for a setting the option does not know, or for the option given to a trigger that
/// keeps an older decision.
pub(crate) fn split_decision(args: &[String], decision: Decision, func: &str) -> (Vec<String>, Decision) {
    use simhash_core::trigger::decision::{take_decision, Setting};
    let mut args = args.to_vec();
    let Some(last) = args.last().filter(|a| simhash_core::trigger::is_options(a)).cloned() else {
        return (args, decision);
    };
    let (rest, setting) = take_decision(Some(last)).unwrap_or_else(|e| bad_args(e, func));
    let Some(setting) = setting else { return (args, decision) };
    if decision != Decision::LATEST {
        bad_args(DedupError::DecisionNotTaken, func);
    }
    args.pop();
    args.extend(rest);
    let decision = match setting {
        Setting::None => Decision::Measure,
        Setting::At(strictness) => {
            Decision::Passage(simhash_core::decision::Rule { strictness, ..simhash_core::decision::Rule::LATEST })
        }
    };
    (args, decision)
}

/// A measure's side of a dedup trigger (each measure's trigger.rs implements it): what it
/// reads from the trigger's arguments besides what every dedup trigger has, checked against
/// the table, and the check queries it writes. The machinery here (cache, check, locks,
/// actions) knows no measure: it keeps a [`Configured`] per trigger and hands it back.
pub(crate) trait Measure: Sized + 'static {
    /// Which of the measure's entry points fired (a definition, a version of the measure,
    /// a decision): a config cached for another is built again, since `CREATE OR
    /// REPLACE FUNCTION` can point a trigger at another entry point without invalidating the
    /// table's relcache entry.
    type Variant: Copy + PartialEq + 'static;

    /// Checks the trigger's arguments `args` against the open relation `rel` and builds its
    /// config; `func` names the trigger's function in messages.
    ///
    /// # Safety
    /// `rel` must be an open relation; must run inside a transaction.
    unsafe fn build(
        rel: pg_sys::Relation,
        args: &[String],
        ext_schema: pg_sys::Oid,
        variant: Self::Variant,
        func: &str,
    ) -> Configured<Self>;

    /// For `simhash_*_dedup_query`'s trailing comment: how the check finds its candidates
    /// besides its query (an index pre-check, what an insert locks), if anything.
    ///
    /// # Safety
    /// Must run inside a transaction (catalog lookups).
    unsafe fn describe(config: &Configured<Self>, ext_schema: pg_sys::Oid, variant: Self::Variant) -> Option<String>;
}

/// A dedup trigger's config: what every one has, and its measure's own part.
pub(crate) struct Configured<M> {
    pub common: Config,
    pub measure: M,
}

impl<M> std::ops::Deref for Configured<M> {
    type Target = Config;
    fn deref(&self) -> &Config {
        &self.common
    }
}

/// A measure's index pre-check: before its check query, a dedup trigger walks an index
/// itself and skips the query when no index entry can be a match. Sound because an index
/// holds an entry for every row version, visible to us or not, and the advisory locks are
/// taken first (each pre-check's module spells the argument out).
pub(crate) trait PreCheck {
    /// For `simhash_*_dedup_query`: which indexes the pre-check scans.
    fn describe(&self) -> String;

    /// Whether some entry of the index may be a match for `value`, the new row's checked
    /// column (as the measure's pre-check documents it), under the bound the pre-check was
    /// made with: false proves that no row version is.
    ///
    /// # Safety
    /// Must run in the firing trigger whose config holds the pre-check, with an active
    /// snapshot; `heap` is its open relation, on which the pre-check was found since its
    /// last relcache invalidation (which drops the config).
    unsafe fn may_match(&self, heap: pg_sys::Relation, value: pg_sys::Datum) -> bool;
}

/// What every dedup trigger derives from its arguments and table, built on its first
/// firing in a backend.
pub(crate) struct Config {
    pub relid: pg_sys::Oid,
    pub relname: String,
    /// The checked column: the one the measure computes and compares, or the text itself
    /// (the column its lock keys are hashed with).
    pub checked: Column,
    /// The text the checked column is computed from, which the dedup decision reads; None
    /// for a trigger whose rows bring their value.
    pub text: Option<Column>,
    pub link: Option<Column>,
    pub action: Action,
    /// The key columns as listed in DETAIL, e.g. `id` or `a, b` (`ctid` without a primary key).
    pub key_label: String,
    /// Their attribute numbers (empty for `ctid`), to decide whether the inserting user may
    /// see the key (act.rs, `may_see_key`).
    pub key_attnums: Vec<i16>,
    /// The key's type, when the check query returns it (link).
    pub link_type: Option<(bool, i16)>,
    pub query_insert: String,
    pub query_update: String,
    /// Whether the check query must be planned on an index, sequential scans off: its locks
    /// cover only the candidates an index lookup can return (check.rs, `IndexPlan`).
    pub plan_on_index: bool,
    /// What decides (mod.rs): with [`Decision::Passage`] the check queries return every
    /// candidate and its text, and the dedup decision picks by its rule.
    pub decision: Decision,
}

/// What every dedup trigger's check query is built from: its table, schema-qualified and
/// quoted, the extension's schema, quoted, and the table's key and link column.
pub(crate) struct Target {
    pub table: String,
    pub relname: String,
    pub schema: String,
    pub keys: Keys,
}

/// The [`Target`] of a trigger on `rel` with link column `link_name`, checked (key.rs), also
/// against the columns the trigger reads or writes, `read` (role, column).
///
/// # Safety
/// `rel` must be an open relation; must run inside a transaction.
pub(crate) unsafe fn target(
    rel: pg_sys::Relation,
    link_name: Option<&str>,
    read: &[(&str, &Column)],
    ext_schema: pg_sys::Oid,
    func: &str,
) -> Target {
    // SAFETY: forwarded from the caller.
    unsafe {
        let (table, relname) = relation_names(rel);
        let keys = keys(rel, link_name, read, &relname, func);
        Target { table, relname, schema: schema_name(ext_schema), keys }
    }
}

impl Target {
    /// What the check queries read and return, for an insert or (`exclude_ctid`) an update;
    /// `decide`: the text column the dedup decision reads.
    pub(crate) fn query<'a>(&'a self, exclude_ctid: bool, decide: Option<&'a str>) -> QueryTarget<'a> {
        QueryTarget {
            table: &self.table,
            ext_schema: &self.schema,
            key_columns: &self.keys.quoted,
            with_link_value: self.keys.link.is_some(),
            exclude_ctid,
            decide,
        }
    }
}

impl Config {
    /// The config of a trigger on `rel` that checks column `checked`, computed from `text` if
    /// any, with `query(target)` as its insert and update check queries (the target's
    /// `exclude_ctid` false, then true), deciding by `decision` (the decision reads `text`,
    /// so a trigger without one decides by the measure).
    ///
    /// # Safety
    /// `rel` must be an open relation.
    pub(crate) unsafe fn new(
        rel: pg_sys::Relation,
        target: Target,
        (checked, text): (Column, Option<Column>),
        action: Action,
        decision: Decision,
        query: impl Fn(QueryTarget<'_>) -> String,
    ) -> Config {
        let decision = if text.is_some() { decision } else { Decision::Measure };
        let decide = matches!(decision, Decision::Passage(_)).then(|| text.as_ref().map(|c| c.sql.as_str())).flatten();
        let (query_insert, query_update) = (query(target.query(false, decide)), query(target.query(true, decide)));
        Config {
            // SAFETY: an open relation (caller).
            relid: unsafe { (*rel).rd_id },
            relname: target.relname,
            checked,
            text,
            link: target.keys.link,
            action,
            key_label: target.keys.label,
            key_attnums: target.keys.attnums,
            link_type: target.keys.link_type,
            query_insert,
            query_update,
            plan_on_index: false,
            decision,
        }
    }
}
