//! Definition 2, the fingerprint and segments of 2.0.0 to 2.2.0, kept reachable under its own
//! names: `simhash_v2(doc [, options])`, `simhash_features_v2`, `simhash_segments_v2`,
//! `simhash_explain_v2`, the `_v2` triggers and `simhash_segments_dedup_query_v2`
//! (sql/fingerprints/definition2.sql). They are 2.x's C symbols, whose default is definition 2
//! (simhash.rs, segments/, trigger/); the upgrade to 3.0.0 renames the 2.x functions to these,
//! so objects that call them by OID keep their definition.

// After the files that declare simhash_features_utf8 and simhash_explain_utf8's callers.
pgrx::extension_sql_file!(
    "../../sql/fingerprints/definition2.sql",
    name = "definition2",
    requires = ["fingerprint", "explain"]
);
