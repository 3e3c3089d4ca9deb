//! Definition 0, the fingerprint of 0.1.0 to 0.3.0, kept reachable under its own names:
//! `simhash_v0(doc [, options])`, `simhash_update_trigger_v0()` and
//! `simhash_dedup_trigger_v0()` (sql/fingerprints/definition0.sql). They are the 0.x C symbols, whose
//! default is definition 0 (simhash.rs, trigger/); the upgrade to 1.0.0 renames the
//! 0.x functions to these, so objects that call them by OID keep their definition.

pgrx::extension_sql_file!("../../sql/fingerprints/definition0.sql", name = "definition0");
