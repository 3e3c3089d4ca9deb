//! Thresholds checked for SQL: the core's one validation (`simhash_core::threshold`), raised
//! as ERROR 22023 with the function's name, as every threshold of every function is.

use pgrx::prelude::*;
use simhash_core::threshold::{check, Bound};

use crate::error::raise;

/// `t` if it is within `bound`, else ERROR 22023 `"{func}: {name} must ..."` with `hint`.
pub(crate) fn checked(func: &str, name: &str, t: f64, bound: Bound, hint: Option<&str>) -> f64 {
    check(t, bound, name, t)
        .unwrap_or_else(|e| raise(PgSqlErrorCode::ERRCODE_INVALID_PARAMETER_VALUE, format!("{func}: {e}"), None, hint))
}
