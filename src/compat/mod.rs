//! What keeps old SQL objects working, apart from the current code: decision 1 (`decision1.rs`,
//! 5.x's dedup functions, `_d1`), measure 1 of exact similarity (`m1.rs`, 4.x's) and
//! fingerprint definitions 0 to 2 (`definitions.rs`, the `_v0` to `_v2` functions and triggers
//! of 0.x to 2.x). A reader of the current measures
//! does not meet them; each entry point here is current code called with an old version.

mod decision1;
mod decision2;
mod definitions;
mod m1;
