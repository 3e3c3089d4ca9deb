//! The `options jsonb` argument (and the options argument of the triggers, a JSON
//! string): deserialized by serde into `simhash_core::Options`.

use pgrx::prelude::*;
use pgrx::JsonB;
use simhash_core::options::RawOptions;
use simhash_core::{Definition, Options};

/// Parse and validate options; a bad key or value is an ERROR (22023) that names it.
/// `default` is the definition when the options name none.
pub fn parse(options: &JsonB, default: Definition) -> Options {
    checked(serde_path_to_error::deserialize(&options.0), default)
}

/// [`parse`] of options written as JSON text (a trigger argument): 22023 also for bad JSON.
pub fn parse_str(json: &str, default: Definition) -> Options {
    match serde_json::from_str::<serde_json::Value>(json) {
        Ok(value) => checked(serde_path_to_error::deserialize(&value), default),
        Err(e) => {
            ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("invalid simhash options: {e}"));
        }
    }
}

fn checked(raw: Result<RawOptions, serde_path_to_error::Error<serde_json::Error>>, default: Definition) -> Options {
    let raw = match raw {
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
    match raw.validate(default) {
        Ok(o) => o,
        Err(e) => {
            ereport!(ERROR, PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("invalid simhash options: {e}"));
        }
    }
}
