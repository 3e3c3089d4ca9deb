//! Definition 1, the fingerprint of 1.0.0 to 1.1.0, kept reachable under its own names:
//! `simhash_v1(doc [, options])`, `simhash_update_trigger_v1()` and `simhash_dedup_trigger_v1()`
//! (sql/fingerprints/definition1.sql). They are 1.x's C symbols, whose default is definition 1
//! (simhash.rs, trigger/); the upgrade to 2.0.0 renames the 1.x functions to these, so objects
//! that call them by OID keep their definition.

pgrx::extension_sql_file!("../../sql/fingerprints/definition1.sql", name = "definition1");
