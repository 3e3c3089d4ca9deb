//! A text's normal form, which every measure and the dedup decision read: NFKC, lowercase,
//! and (definition 2 on) traditional characters folded to simplified ones (`normalize`,
//! `traditional` and its generated table); and the pieces a long text is normalized in,
//! with which characters are wide (`pieces`); and PostgreSQL's pglz format, read with a
//! check for cancellation (`pglz`).

mod alphanumeric;
mod normalize;
pub mod pglz;
mod pieces;
mod traditional;
mod traditional_table;

pub use alphanumeric::{alphanumeric_bmp, is_alphanumeric, is_numeric};
pub(crate) use normalize::{find_from, in_pieces};
pub use normalize::{normalize, normalize_folded, normalize_pieces};
pub(crate) use pieces::pieces;
pub use pieces::{is_cut, is_wide, PIECE};
pub use traditional::simplified;
