//! Fingerprint definitions 0 to 2 (0.x's, 1.x's, 2.x's), kept reachable under their own
//! names: the `_v0` to `_v2` functions and triggers, and the C symbols of those majors,
//! whose default is that definition. Each upgrade to a new definition renamed the old
//! functions to these (sql/compat/definition0..2.sql), so objects that call them by OID keep
//! their definition. Each entry point is the current code called with an old definition.

use pgrx::prelude::*;
use simhash_core::Definition;

// Definition 2, the fingerprint and segments of 2.0.0 to 2.2.0, kept reachable under its own
// names: `simhash_v2(doc [, options])`, `simhash_features_v2`, `simhash_segments_v2`,
// `simhash_explain_v2`, the `_v2` triggers and `simhash_segments_dedup_query_v2`
// (sql/compat/definition2.sql). They are 2.x's C symbols, whose default is definition 2
// (simhash.rs, segments/, trigger/); the upgrade to 3.0.0 renames the 2.x functions to these,
// so objects that call them by OID keep their definition.

// After the files that declare simhash_features_utf8 and simhash_explain_utf8's callers.
pgrx::extension_sql_file!(
    "../../sql/compat/definition2.sql",
    name = "definition2",
    requires = ["fingerprint", "explain"]
);
v1_function!(
    /// `simhash(doc text)` of 2.x, `simhash_v2(doc)` since 3.0.0: definition 2.
    pg_finfo_simhash_text_v2, simhash_text_v2 => crate::fingerprints::simhash::simhash_doc, Definition::V2
);
v1_function!(
    /// `simhash(doc text, options jsonb)` of 2.x, `simhash_v2(doc, options)` since 3.0.0:
    /// definition 2 by default.
    pg_finfo_simhash_text_options_v2, simhash_text_options_v2 => crate::fingerprints::simhash::simhash_doc_options, Definition::V2
);
v1_function!(
    /// `simhash(doc text, options text)` of 2.2.0, `simhash_v2(doc, options text)` since
    /// 3.0.0: definition 2 by default.
    pg_finfo_simhash_text_options_text_v2, simhash_text_options_text_v2 => crate::fingerprints::simhash::simhash_doc_options_text, Definition::V2
);
v1_function!(
    /// `simhash_update_trigger()` of 2.x, `simhash_update_trigger_v2()` since 3.0.0
    /// (definition 2 by default).
    pg_finfo_simhash_update_trigger_v2, simhash_update_trigger_v2 => crate::fingerprints::trigger::update_trigger, Definition::V2
);
v1_function!(
    /// `simhash_dedup_trigger()` of 2.x, `simhash_dedup_trigger_v2()` since 3.0.0
    /// (definition 2 by default).
    pg_finfo_simhash_dedup_trigger_v2, simhash_dedup_trigger_v2 => crate::fingerprints::trigger::dedup_trigger, Definition::V2
);
v1_function!(
    /// `simhash_segments(doc, options)` of 2.x, `simhash_segments_v2(doc, options)` since
    /// 3.0.0: definition 2 (runs of sentences) unless the options name another.
    pg_finfo_simhash_segments_v2, simhash_segments_v2 => crate::segments::segments_body, Definition::V2
);
v1_function!(
    /// `simhash_segments_dedup_trigger()` of 2.x, `simhash_segments_dedup_trigger_v2()` since
    /// 3.0.0: definition 2 by default.
    pg_finfo_simhash_segments_dedup_trigger, simhash_segments_dedup_trigger => crate::segments::trigger::dedup_trigger, Definition::V2
);
v1_function!(
    /// `simhash_segments_dedup_query` of 2.x, `simhash_segments_dedup_query_v2` since 3.0.0:
    /// the query of `simhash_segments_dedup_trigger_v2` (definition 2 by default).
    pg_finfo_simhash_segments_dedup_query, simhash_segments_dedup_query => crate::segments::trigger::dedup_query_body, Definition::V2
);
v1_function!(
    /// `simhash_segments_trigger()` of 2.x, `simhash_segments_trigger_v2()` since 3.0.0:
    /// definition 2 by default.
    pg_finfo_simhash_segments_trigger, simhash_segments_trigger => crate::segments::column_trigger::segments_trigger, Definition::V2
);

// Definition 1, the fingerprint of 1.0.0 to 1.1.0, kept reachable under its own names:
// `simhash_v1(doc [, options])`, `simhash_update_trigger_v1()` and `simhash_dedup_trigger_v1()`
// (sql/compat/definition1.sql). They are 1.x's C symbols, whose default is definition 1
// (simhash.rs, trigger/); the upgrade to 2.0.0 renames the 1.x functions to these, so objects
// that call them by OID keep their definition.

pgrx::extension_sql_file!("../../sql/compat/definition1.sql", name = "definition1");
v1_function!(
    /// `simhash(doc text)` of 1.x, `simhash_v1(doc)` since 2.0.0: definition 1.
    pg_finfo_simhash_text_v1, simhash_text_v1 => crate::fingerprints::simhash::simhash_doc, Definition::V1
);
v1_function!(
    /// `simhash(doc text, options jsonb)` of 1.x, `simhash_v1(doc, options)` since 2.0.0:
    /// definition 1 by default.
    pg_finfo_simhash_text_options_v1, simhash_text_options_v1 => crate::fingerprints::simhash::simhash_doc_options, Definition::V1
);
v1_function!(
    /// `simhash_update_trigger()` of 1.x, `simhash_update_trigger_v1()` since 2.0.0
    /// (definition 1 by default), used as `BEFORE
    /// INSERT OR UPDATE ... FOR EACH ROW EXECUTE FUNCTION simhash_update_trigger('fp', 'body'
    /// [, options])`: sets fp = simhash(body [, options]), NULL for NULL.
    pg_finfo_simhash_update_trigger_v1, simhash_update_trigger_v1 => crate::fingerprints::trigger::update_trigger, Definition::V1
);
v1_function!(
    /// `simhash_dedup_trigger()` of 1.x, `simhash_dedup_trigger_v1()` since 2.0.0
    /// (definition 1 by default), used as `BEFORE
    /// INSERT OR UPDATE OF body ... FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp',
    /// 'body', '3', 'reject' [, options])`.
    pg_finfo_simhash_dedup_trigger_v1, simhash_dedup_trigger_v1 => crate::fingerprints::trigger::dedup_trigger, Definition::V1
);

// Definition 0, the fingerprint of 0.1.0 to 0.3.0, kept reachable under its own names:
// `simhash_v0(doc [, options])`, `simhash_update_trigger_v0()` and
// `simhash_dedup_trigger_v0()` (sql/compat/definition0.sql). They are the 0.x C symbols, whose
// default is definition 0 (simhash.rs, trigger/); the upgrade to 1.0.0 renames the
// 0.x functions to these, so objects that call them by OID keep their definition.

pgrx::extension_sql_file!("../../sql/compat/definition0.sql", name = "definition0");
v1_function!(
    /// `simhash(doc text)` of 0.1.0 to 0.3.0, `simhash_v0(doc)` since 1.0.0 (definition 0).
    pg_finfo_simhash_text, simhash_text => crate::fingerprints::simhash::simhash_doc, Definition::V0
);
v1_function!(
    /// `simhash(doc text, options jsonb)` of 0.1.0 to 0.3.0, `simhash_v0(doc, options)`
    /// since 1.0.0: definition 0 by default.
    pg_finfo_simhash_text_options, simhash_text_options => crate::fingerprints::simhash::simhash_doc_options, Definition::V0
);
v1_function!(
    /// `simhash_update_trigger()` of 0.2.0 to 0.3.0, `simhash_update_trigger_v0()` since
    /// 1.0.0: definition 0 by default.
    pg_finfo_simhash_update_trigger, simhash_update_trigger => crate::fingerprints::trigger::update_trigger, Definition::V0
);
v1_function!(
    /// `simhash_dedup_trigger()` of 0.2.0 to 0.3.0, `simhash_dedup_trigger_v0()` since
    /// 1.0.0: definition 0 by default.
    pg_finfo_simhash_dedup_trigger, simhash_dedup_trigger => crate::fingerprints::trigger::dedup_trigger, Definition::V0
);
