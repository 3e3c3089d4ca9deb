//! What every measure's bulk functions share in the SQL layer (the core's is
//! `simhash_core::bulk`): reading their queries' rows (rows.rs), the one progress callback
//! of a run, the check that its ids are distinct, and starting worker threads with the
//! backend's signals blocked.

use std::time::{Duration, Instant};

use pgrx::guc::{GucContext, GucFlags, GucRegistry, GucSetting, PostgresGucEnum};
use pgrx::prelude::*;
use simhash_core::decision::{Rule, Strictness, Version};
use simhash_core::similarity::bulk::templates::Mode;
use simhash_core::Progress;

pub(crate) mod rows;

/// `simhash.progress_interval`: milliseconds between a long bulk run's NOTICEs of where it is.
static PROGRESS_INTERVAL: GucSetting<i32> = GucSetting::<i32>::new(10_000);

/// `simhash.decision`: how the bulk functions decide (7.0.0), for every call of a session, as
/// pg_trgm's thresholds are set: the dedup decision's strictness, the measure alone, or 6.0.0's
/// decision (docs/decision.md, "Operating points"). The triggers take the option `"decision"`
/// instead, since a trigger decides for whoever inserts.
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum DecisionSetting {
    #[name = c"balanced"]
    Balanced,
    #[name = c"loose"]
    Loose,
    #[name = c"strict"]
    Strict,
    #[name = c"none"]
    None,
    #[name = c"d2"]
    D2,
}

static DECISION: GucSetting<DecisionSetting> = GucSetting::<DecisionSetting>::new(DecisionSetting::Balanced);

/// `simhash.bulk_templates`: how a bulk similarity run that decides (decision 3) treats the
/// templates of its rows (docs/similarity.md, "Templates"): their pairs joined by the shingles
/// off the frame (the default), every pair banded and decided with the frame (what the join is
/// measured against), or none found (6.0.0's run, which measures every pair of a template).
#[derive(PostgresGucEnum, Clone, Copy, PartialEq, Eq, Debug)]
pub(crate) enum TemplatesSetting {
    #[name = c"join"]
    Join,
    #[name = c"band"]
    Band,
    #[name = c"off"]
    Off,
}

static TEMPLATES: GucSetting<TemplatesSetting> = GucSetting::<TemplatesSetting>::new(TemplatesSetting::Join);

/// How a bulk run under rule `decide` treats templates now (`simhash.bulk_templates`): 6.0.0's
/// decision and the measure alone find none, as 6.0.0 did.
pub(crate) fn templates(decide: Option<Rule>) -> Mode {
    match (decide.map(|r| r.version), TEMPLATES.get()) {
        (Some(Version::D3), TemplatesSetting::Join) => Mode::Joined,
        (Some(Version::D3), TemplatesSetting::Band) => Mode::Enumerated,
        _ => Mode::Off,
    }
}

/// How a bulk function of 7.0.0 decides now (`simhash.decision`): None for the measure alone.
pub(crate) fn decision() -> Option<Rule> {
    let at = |strictness| Some(Rule { version: Version::D3, strictness });
    match DECISION.get() {
        DecisionSetting::Balanced => at(Strictness::Balanced),
        DecisionSetting::Loose => at(Strictness::Loose),
        DecisionSetting::Strict => at(Strictness::Strict),
        DecisionSetting::None => None,
        DecisionSetting::D2 => Some(Rule::D2),
    }
}

pub(crate) fn register_gucs() {
    GucRegistry::define_enum_guc(
        c"simhash.decision",
        c"How the bulk pairs and clusters decide: the dedup decision's strictness (balanced, loose, strict), none (the measure alone), or d2 (6.0.0's decision).",
        c"Loose keeps more reposts, strict more rows that differ in a slot; docs/decision.md gives each setting's precision and recall by source.",
        &DECISION,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_enum_guc(
        c"simhash.bulk_templates",
        c"How the bulk similarity pairs and clusters treat a template's rows: join (by their shingles off the frame), band (every pair), or off (6.0.0's run).",
        c"Join and band decide a template's rows with their frame, as the dedup trigger does; off measures every pair of a template.",
        &TEMPLATES,
        GucContext::Userset,
        GucFlags::default(),
    );
    GucRegistry::define_int_guc(
        c"simhash.progress_interval",
        c"Milliseconds between the NOTICEs in which a bulk similarity run says its phase, rows, candidates and pairs.",
        c"The run checks at every tick, about every millisecond of its work.",
        &PROGRESS_INTERVAL,
        100,
        3_600_000,
        GucContext::Userset,
        GucFlags::UNIT_MS,
    );
}

/// The progress callback of a run: phases become NOTICEs, ticks check for cancellation, and
/// with `summary` (the run's counters: rows read, candidates, pairs), every
/// `simhash.progress_interval` (10 s) a NOTICE of it.
pub(crate) fn progress(func: &'static str, summary: Option<Box<dyn Fn() -> String>>) -> impl FnMut(Progress) {
    let every = Duration::from_millis(PROGRESS_INTERVAL.get().max(100) as u64);
    let mut last = Instant::now();
    move |p| match p {
        Progress::Phase(msg) => notice!("{func}: {msg}"),
        Progress::Tick => {
            check_for_interrupts!();
            if let Some(summary) = &summary {
                if last.elapsed() >= every {
                    last = Instant::now();
                    notice!("{func}: {}", summary());
                }
            }
        }
    }
}

/// ERROR 21000 if two of the `what` query's rows share an id (`simhash_core::fingerprints::pairs::
/// first_repeated`), before any pair is out; `ids` is left sorted.
pub(crate) fn unique_ids(func: &str, what: &str, ids: &mut [i64]) {
    if let Some(id) = simhash_core::bulk::first_repeated(ids) {
        repeated_id(func, what, id);
    }
}

/// ERROR 21000: `id` is in two rows of the `what` query.
pub(crate) fn repeated_id(func: &str, what: &str, id: i64) -> ! {
    crate::error::raise(
        PgSqlErrorCode::ERRCODE_CARDINALITY_VIOLATION,
        format!("{func}: id {id} is in more than one row of the {what} query"),
        Some("The pairs name rows by id, so every row needs its own.".into()),
        Some("Select a unique key as the id, e.g. the primary key."),
    )
}

/// Runs `f` with every signal blocked in this thread, so that threads it starts are born
/// with them blocked, and restores the mask. A signal that arrives meanwhile stays
/// pending and is delivered to this thread (the backend's) when the mask is restored.
///
/// # Safety
/// `f` must not call into PostgreSQL: its signal handlers (cancel, latch) cannot run
/// while `f` does. Threads `f` starts must never call into PostgreSQL either.
pub(crate) unsafe fn with_signals_blocked<T>(f: impl FnOnce() -> T) -> T {
    // SAFETY: pthread_sigmask only changes this thread's mask; `all` is initialized by
    // sigfillset before use and `old` by the first call, which restores it below.
    unsafe {
        let mut all: libc::sigset_t = std::mem::zeroed();
        let mut old: libc::sigset_t = std::mem::zeroed();
        libc::sigfillset(&mut all);
        libc::pthread_sigmask(libc::SIG_BLOCK, &all, &mut old);
        let out = std::panic::catch_unwind(std::panic::AssertUnwindSafe(f));
        libc::pthread_sigmask(libc::SIG_SETMASK, &old, std::ptr::null_mut());
        out.unwrap_or_else(|e| std::panic::resume_unwind(e))
    }
}
