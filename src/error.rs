//! ERRORs with a DETAIL and a HINT, for the SQL layer's checks that need more than
//! `ereport!`'s message (the trigger and batch functions).

use pgrx::pg_sys::panic::ErrorReport;
use pgrx::prelude::*;

/// Raises an ERROR with SQLSTATE `code`, an optional DETAIL and an optional HINT.
pub(crate) fn raise(code: PgSqlErrorCode, message: String, detail: Option<String>, hint: Option<&str>) -> ! {
    let mut report = ErrorReport::new(code, message, "simhash");
    if let Some(d) = detail {
        report = report.set_detail(d);
    }
    if let Some(h) = hint {
        report = report.set_hint(h);
    }
    report.report(PgLogLevel::ERROR);
    unreachable!("ereport(ERROR) does not return")
}

/// A check for cancellation (and termination), for the core's long loops: the `tick`
/// callback every core search takes.
pub(crate) fn tick() {
    check_for_interrupts!();
}
