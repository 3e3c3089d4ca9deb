//! The `options jsonb` argument: deserialized by serde into `simhash_core::Options`.

use pgrx::prelude::*;
use pgrx::JsonB;
use simhash_core::options::RawOptions;
use simhash_core::Options;

/// Parse and validate options; a bad key or value is an ERROR (22023) that names it.
pub fn parse(options: &JsonB) -> Options {
    let raw: RawOptions = match serde_path_to_error::deserialize(&options.0) {
        Ok(raw) => raw,
        Err(e) => {
            let path = e.path().to_string();
            let msg = if path == "." {
                format!("invalid simhash options: {}", e.inner())
            } else {
                format!("invalid simhash option \"{path}\": {}", e.inner())
            };
            ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, msg);
        }
    };
    match Options::try_from(raw) {
        Ok(o) => o,
        Err(e) => {
            ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("invalid simhash options: {e}"));
        }
    }
}
