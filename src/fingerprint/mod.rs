//! Fingerprints (sql/fingerprint/):
//! - `simhash.rs`: `simhash(doc [, options])`, `simhash(features, weights)` and
//!   `simhash_features(doc [, options])`;
//! - `definition0.rs`: `simhash_v0(doc [, options])` and the `_v0` triggers (0.x's definition);
//! - `definition1.rs`: `simhash_v1(doc [, options])` and the `_v1` triggers (1.x's definition);
//! - `definition2.rs`: `simhash_v2(doc [, options])`, the other `_v2` functions and triggers
//!   (2.x's definition, fingerprints and segments);
//! - `options.rs`: the `options jsonb` argument (and the triggers' options, as JSON text);
//! - `text.rs`: `text` datums in the server encoding ⇄ UTF-8.

mod definition0;
mod definition1;
mod definition2;
pub(crate) mod options;
mod simhash;
mod text;

pub(crate) use simhash::simhash_of_text_datum;
pub(crate) use text::text_datum_to_utf8;
