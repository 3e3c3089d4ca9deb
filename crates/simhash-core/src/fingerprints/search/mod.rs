//! Search: finding the fingerprints near a query in Hamming space, exactly, through btree
//! indexes on blocks of the fingerprint.
//!
//! - `hamming`: the distance, the popcount of `a XOR b`.
//! - `blocks`: a fingerprint cut into `n` contiguous blocks. Two fingerprints within
//!   distance `k` agree to within `floor(k/n)` bits on some block (pigeonhole), so probing
//!   every block's index around the query's block finds every row within `k`
//!   (`simhash_near`, `~=`, the planner's choice of a block set, the trigger's pre-check).
//! - `ball`: the values a probe looks up around a block value, a Hamming ball (every value
//!   within a radius) or shell (exactly at a radius); and the crate's exact binomial.
//! - `nearest`: the `n` nearest rows by multi-index hashing, probing shells of growing
//!   radius until no unseen row can enter the answer (`simhash_nearest`).
//!
//! The submodules are private; this module re-exports their API.

mod ball;
mod blocks;
mod hamming;
mod nearest;

// Also the pairs plans' table counts.
pub(crate) use ball::binomial;
pub use ball::{ball, ball_size, shell};
pub use blocks::{
    block_bits, block_range, block_value, block_width, candidate_fraction, cheapest, check_block, check_max_distance,
    choose_block_set, probe_radius, probes, probes_fit, probes_fit_any_k, BlockError, MAX_BLOCKS, MAX_PROBES,
    MAX_RUNTIME_PROBES, MIN_BLOCKS,
};
pub use hamming::hamming;
pub use nearest::{
    prefer_scan, probe_cost, search_with, unseen_lower_bound, Nearest, Neighbour, CANDIDATE_COST_ROWS, KEY_COST_ROWS,
    MAX_N,
};
