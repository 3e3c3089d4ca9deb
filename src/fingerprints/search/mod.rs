//! Near-duplicate search (sql/fingerprints/):
//! - `distance.rs`: `hamming(a, b)` and the `<~>` operator;
//! - `blocks.rs`: `simhash_block`, `simhash_probes`, `simhash_create_blocks`;
//! - `near.rs`: `simhash_near`, the `~=` operator and the `simhash.max_distance` GUC;
//! - `support.rs`: the planner support function that rewrites them into block probes;
//! - `block_index.rs`: which indexes of a table are block indexes (also read by the trigger);
//! - `nearest.rs`: `simhash_nearest`, exact nearest neighbours through the block indexes.

mod block_index;
mod blocks;
mod distance;
mod near;
mod nearest;
mod support;

pub(crate) use block_index::{block_sets, covering, BlockIndex, Funcs};

/// Registers the search GUCs (called from `_PG_init`).
pub(crate) fn register_gucs() {
    near::register_gucs();
    nearest::register_gucs();
}
