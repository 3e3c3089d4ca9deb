//! The plans of both pair searches and their cost models: how many blocks `m` a
//! fingerprint is cut into and how many `a = m - k` of them key a table, or brute force.
//! One search over `m` serves both; only the cost of a table differs.

/// `C(n, r)` as f64, for the cost models (exact: a plan has at most `MAX_TABLES` tables).
pub(crate) fn binomial(n: u32, r: u32) -> f64 {
    crate::fingerprints::search::binomial(n, r) as f64
}

/// The `(m, a = m - k)` with the lowest `cost(m, a)` among those of at most `max_tables`
/// tables, if it is lower than `brute` (the first such `m` on a tie).
fn cheapest_blocks(k: u32, max_tables: f64, brute: f64, cost: impl Fn(u32, u32) -> f64) -> Option<(u32, u32)> {
    let mut best = (brute, None);
    for m in (k + 1)..=64 {
        let a = m - k;
        if binomial(m, a) > max_tables {
            continue;
        }
        let c = cost(m, a);
        if c < best.0 {
            best = (c, Some((m, a)));
        }
    }
    best.1
}

/// "`m` blocks, `C(m, a)` tables keyed on `a` blocks", as the plans' phases say it.
fn blocks_message(m: u32, a: u32) -> String {
    format!("{m} blocks, {} tables keyed on {a} blocks", binomial(m, a) as u64)
}

/// How all pairs searches the distinct fingerprints.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Plan {
    /// `k = 0` (or fewer than two distinct fingerprints): only identical ones pair.
    IdenticalOnly,
    /// Manku tables: `m` blocks, keyed on `a = m - k` of them, `C(m, a)` tables.
    Blocks { m: u32, a: u32 },
    /// Compare every pair of distinct fingerprints.
    BruteForce,
}

/// Estimated cost, in units of one candidate comparison, of a plan over `n` distinct fingerprints.
pub fn plan_cost(plan: Plan, n: usize) -> f64 {
    let n = n as f64;
    // Permute + radix sort (1–2 passes) + run scan, per fingerprint per table: about
    // eight comparisons' worth of time in measurements.
    const PER_ROW_PER_TABLE: f64 = 8.0;
    match plan {
        Plan::IdenticalOnly => 0.0,
        Plan::BruteForce => n * (n - 1.0) / 2.0,
        Plan::Blocks { m, a } => {
            let key_bits = (64 * a / m) as i32; // the smallest key any table gets
            binomial(m, a) * (n * PER_ROW_PER_TABLE + n * n / 2f64.powi(key_bits + 1))
        }
    }
}

/// The cheapest exact plan for `n` distinct fingerprints and maximum distance `k`.
pub fn plan(n: usize, k: u32) -> Plan {
    assert!(k <= 64, "max distance {k} > 64");
    if k == 0 || n < 2 {
        return Plan::IdenticalOnly;
    }
    // Over 5000 tables: more than any input could amortize.
    let cost = |m, a| plan_cost(Plan::Blocks { m, a }, n);
    match cheapest_blocks(k, 5000.0, plan_cost(Plan::BruteForce, n), cost) {
        Some((m, a)) => Plan::Blocks { m, a },
        None => Plan::BruteForce,
    }
}

/// The plan as all pairs' [`super::Progress::Phase`] reports it.
pub(super) fn plan_message(plan: Plan, distinct: usize, k: u32) -> String {
    match plan {
        Plan::IdenticalOnly => format!("{distinct} distinct fingerprints, k={k}: identical fingerprints only"),
        Plan::BruteForce => format!("{distinct} distinct fingerprints, k={k}: comparing all pairs"),
        Plan::Blocks { m, a } => format!("{distinct} distinct fingerprints, k={k}: {}", blocks_message(m, a)),
    }
}

/// At most this many tables for a batch against a corpus (memory is 16 B per distinct
/// batch fingerprint per table).
pub const MAX_TABLES: f64 = 32.0;

/// How a batch against a corpus searches the batch for each corpus fingerprint.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CorpusPlan {
    /// Nothing can match (empty batch).
    Empty,
    /// `C(m, a)` tables keyed on `a = m - k` of `m` blocks (`k = 0`: `m = a = 1`).
    Blocks { m: u32, a: u32 },
    /// Compare with every distinct batch fingerprint.
    BruteForce,
}

/// Estimated cost, in comparisons per corpus row, against `n` distinct batch fingerprints.
pub fn corpus_plan_cost(plan: CorpusPlan, n: usize) -> f64 {
    // A table costs a permute, two radix passes and a lookup per corpus row with the
    // chunked lookups; a candidate, compared 8 at a time with AVX-512, a small fraction of
    // that (the example `bench_corpus_plans` measures both). So a table counts as 64
    // comparisons, and 4 tables of 16-bit keys win up to about 6M batch rows; fewer tables
    // also take less memory.
    const PER_TABLE: f64 = 64.0;
    let n = n as f64;
    match plan {
        CorpusPlan::Empty => 0.0,
        CorpusPlan::BruteForce => n,
        CorpusPlan::Blocks { m, a } => {
            let key_bits = (64 * a / m) as i32; // the smallest key any table gets
            binomial(m, a) * (PER_TABLE + n / 2f64.powi(key_bits))
        }
    }
}

/// The cheapest exact plan for `n` distinct batch fingerprints and maximum distance `k`.
pub fn corpus_plan(n: usize, k: u32) -> CorpusPlan {
    assert!(k <= 64, "max distance {k} > 64");
    if n == 0 {
        return CorpusPlan::Empty;
    }
    if k == 0 {
        return CorpusPlan::Blocks { m: 1, a: 1 };
    }
    let cost = |m, a| corpus_plan_cost(CorpusPlan::Blocks { m, a }, n);
    match cheapest_blocks(k, MAX_TABLES, corpus_plan_cost(CorpusPlan::BruteForce, n), cost) {
        Some((m, a)) => CorpusPlan::Blocks { m, a },
        None => CorpusPlan::BruteForce,
    }
}

/// The plan as a batch against a corpus's [`super::Progress::Phase`] reports it.
pub(super) fn corpus_plan_message(plan: CorpusPlan, n: usize, k: u32) -> String {
    match plan {
        CorpusPlan::Empty => format!("empty batch, k={k}: no pairs"),
        CorpusPlan::BruteForce => {
            format!("{n} distinct batch fingerprints, k={k}: comparing each corpus row with all of them")
        }
        CorpusPlan::Blocks { m, a } => format!("{n} distinct batch fingerprints, k={k}: {}", blocks_message(m, a)),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plans_and_memory() {
        assert_eq!(corpus_plan(1_000_000, 0), CorpusPlan::Blocks { m: 1, a: 1 });
        assert_eq!(corpus_plan(3, 3), CorpusPlan::BruteForce);
        assert_eq!(corpus_plan(1_000, 64), CorpusPlan::BruteForce);
        for k in 1..=8 {
            if let CorpusPlan::Blocks { m, a } = corpus_plan(1_000_000, k) {
                assert!(binomial(m, a) <= MAX_TABLES);
            }
        }
        assert!(matches!(corpus_plan(1_000_000, 3), CorpusPlan::Blocks { .. }));
    }
}
