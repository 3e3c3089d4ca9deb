//! `hamming(a, b)` and its operator `a <~> b` (pgvector's name for Hamming distance).

use pgrx::prelude::*;

/// Number of differing bits between two fingerprints, 0..=64.
#[pg_extern(immutable, strict, parallel_safe)]
fn hamming(a: i64, b: i64) -> i32 {
    simhash_core::hamming(a as u64, b as u64) as i32
}

#[pg_operator(immutable, strict, parallel_safe)]
#[opname(<~>)]
#[commutator(<~>)]
fn hamming_distance_op(a: i64, b: i64) -> i32 {
    simhash_core::hamming(a as u64, b as u64) as i32
}
