//! The lexicon every fingerprint and segment reads (jieba's dictionary and the IDF tables),
//! loaded on a backend's first use with cancellation answered meanwhile.

use std::time::Duration;

use simhash_core::Lexicon;

/// The process-wide lexicon. On a backend's first call (without `shared_preload_libraries`)
/// it is loaded on a thread of its own, born with signals blocked, while this one checks for
/// cancellation every few milliseconds: the load is about 0.2 s, and a statement timeout
/// that came during it used to wait for its end. A cancelled statement leaves the load going;
/// the next call takes it.
pub(crate) fn lexicon() -> &'static Lexicon {
    if let Some(lexicon) = Lexicon::loaded() {
        return lexicon;
    }
    // SAFETY: load_in_background calls nothing of PostgreSQL's, and neither does the thread
    // it starts (the lexicon is plain Rust data).
    unsafe { crate::bulk::with_signals_blocked(Lexicon::load_in_background) };
    loop {
        if let Some(lexicon) = Lexicon::wait(Duration::from_millis(5)) {
            return lexicon;
        }
        crate::error::tick();
    }
}
