//! The PostgreSQL-free half of the insert triggers (`simhash_dedup_trigger`,
//! `simhash_update_trigger`): argument parsing, the advisory-lock keys that make
//! concurrent inserts of near-duplicates contend, and the text of the duplicate check query.
//!
//! **Lock keys.** Before looking for an existing near-duplicate, an inserter locks a set of
//! keys derived from its new fingerprint and holds them until commit. Two fingerprints
//! within distance `k` must always share at least one key, whatever `k`: then the second
//! inserter waits for the first to commit and its check sees the first row. Pigeonhole
//! gives this with `k + 1` blocks: `k` differing bits touch at most `k` of the `k + 1`
//! blocks, so at least one block is bit-for-bit identical in both, and the key of
//! (block index, block value) is the same. `k = 0` is one block (the whole fingerprint);
//! `k = 64` matches every pair, so it is one constant key (inserts serialize).
//!
//! Keys are hashed with the table, the fingerprint column and `k`, so unrelated triggers do
//! not contend; a hash collision only adds a needless wait, it can never hide a duplicate.
//! An inserter takes its keys in ascending order, so two single-row inserters never wait
//! for each other in a cycle.

use std::fmt;

use crate::blocks;

/// What the trigger does with a row that has a near-duplicate.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Action {
    /// ERROR 23505, like a unique index.
    Reject,
    /// The row is not inserted (the BEFORE trigger returns NULL).
    Skip,
    /// The row is inserted with a column set to the matching row's key.
    Link,
}

impl Action {
    pub fn name(self) -> &'static str {
        match self {
            Action::Reject => "reject",
            Action::Skip => "skip",
            Action::Link => "link",
        }
    }
}

/// The arguments of `simhash_dedup_trigger(fp_column, text_column, max_distance, action
/// [, link_column] [, options])`, checked (the options only split off: the SQL layer
/// parses them), or of `simhash_dedup_fp_trigger(fp_column, max_distance, action [,
/// link_column])`, which checks a fingerprint given with the row (no text column).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DedupArgs {
    pub fp_column: String,
    /// None for `simhash_dedup_fp_trigger`.
    pub text_column: Option<String>,
    pub max_distance: u32,
    pub action: Action,
    /// Only (and always) with [`Action::Link`].
    pub link_column: Option<String>,
    /// The trailing options argument, JSON text as written (see [`is_options`]).
    pub options: Option<String>,
}

/// The arguments of `simhash_update_trigger(fp_column, text_column [, options])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct UpdateArgs {
    pub fp_column: String,
    pub text_column: String,
    /// The trailing options argument, JSON text as written (see [`is_options`]).
    pub options: Option<String>,
}

/// The argument lists the triggers accept, for messages.
pub const DEDUP_SIGNATURE: &str =
    "4 to 6 arguments (fp_column, text_column, max_distance, action [, link_column] [, options])";
pub const UPDATE_SIGNATURE: &str = "2 or 3 arguments (fp_column, text_column [, options])";
pub const DEDUP_FP_SIGNATURE: &str = "3 or 4 arguments (fp_column, max_distance, action [, link_column])";

/// Invalid trigger arguments.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum DedupError {
    /// Wrong number of arguments (how the trigger was declared): SQLSTATE 39P01. `got`
    /// counts the arguments before the options if `options`; `expected` is
    /// [`DEDUP_SIGNATURE`] or [`UPDATE_SIGNATURE`].
    ArgCount { got: usize, options: bool, expected: &'static str },
    /// One argument more than the trigger takes without options, and the last one is not
    /// options: 22023.
    NotOptions { position: usize, got: String },
    /// An options argument (see [`is_options`]) that is not the last argument: 22023.
    OptionsNotLast { position: usize },
    /// `max_distance` is not an integer in `0..=64`: 22023.
    MaxDistance(String),
    /// Unknown action: 22023.
    Action(String),
    /// `link` without a link column (the argument at `position`): 22023.
    LinkColumnMissing { position: usize },
    /// A link column (at `position`) with an action other than `link`: 22023.
    LinkColumnUnexpected { action: Action, position: usize },
    /// Options given to `simhash_dedup_fp_trigger`, which fingerprints nothing: 22023.
    OptionsNotTaken,
}

/// "fourth", "fifth": where the link column goes.
fn ordinal(position: usize) -> &'static str {
    match position {
        4 => "fourth",
        _ => "fifth",
    }
}

impl DedupError {
    /// Whether the error is in how the trigger was declared (39P01) rather than in an
    /// argument's value (22023).
    pub fn is_protocol(&self) -> bool {
        matches!(self, DedupError::ArgCount { .. })
    }
}

impl fmt::Display for DedupError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            DedupError::ArgCount { got, options: false, expected } => write!(f, "expected {expected}, got {got}"),
            DedupError::ArgCount { got, options: true, expected } => {
                write!(f, "expected {expected}, got {got} before the options")
            }
            DedupError::NotOptions { position, got } => write!(
                f,
                "argument {position} must be the options, JSON beginning with \"{{\" such as '{{\"definition\": \"0\"}}', got \"{got}\""
            ),
            DedupError::OptionsNotLast { position } => {
                write!(f, "argument {position} looks like options (it begins with \"{{\"), but the options must be the last argument")
            }
            DedupError::MaxDistance(s) => write!(f, "max_distance must be an integer between 0 and 64, got \"{s}\""),
            DedupError::Action(s) => write!(f, "unknown action \"{s}\": expected reject, skip or link"),
            DedupError::LinkColumnMissing { position } => {
                write!(f, "action link needs a {} argument, the column to link with", ordinal(*position))
            }
            DedupError::LinkColumnUnexpected { action, position } => write!(
                f,
                "a {} argument (link column) is only allowed with action link, not {}",
                ordinal(*position),
                action.name()
            ),
            DedupError::OptionsNotTaken => write!(
                f,
                "takes no options: the row brings its fingerprint (use simhash_dedup_trigger to fingerprint a text column)"
            ),
        }
    }
}

/// Whether a trigger argument is options: JSON text beginning with `{` (after leading
/// whitespace), as `simhash(doc, options)` takes them, e.g. `{"definition": "0"}`.
pub fn is_options(arg: &str) -> bool {
    arg.trim_start().starts_with('{')
}

/// Splits a trailing options argument off `args`, which must hold `min..=max` arguments
/// before it. Only the last argument may be options, and `max + 1` arguments need them.
fn split_options<'a, S: AsRef<str>>(
    args: &'a [S],
    min: usize,
    max: usize,
    expected: &'static str,
) -> Result<(&'a [S], Option<String>), DedupError> {
    let Some((last, rest)) = args.split_last().filter(|_| (min..=max + 1).contains(&args.len())) else {
        return Err(DedupError::ArgCount { got: args.len(), options: false, expected });
    };
    if let Some(i) = rest.iter().position(|a| is_options(a.as_ref())) {
        return Err(DedupError::OptionsNotLast { position: i + 1 });
    }
    if is_options(last.as_ref()) {
        if rest.len() < min {
            return Err(DedupError::ArgCount { got: rest.len(), options: true, expected });
        }
        return Ok((rest, Some(last.as_ref().to_owned())));
    }
    if args.len() > max {
        return Err(DedupError::NotOptions { position: args.len(), got: last.as_ref().to_owned() });
    }
    Ok((args, None))
}

/// Parses an action name (case-insensitive, surrounding spaces ignored).
pub fn parse_action(s: &str) -> Result<Action, DedupError> {
    match s.trim().to_ascii_lowercase().as_str() {
        "reject" => Ok(Action::Reject),
        "skip" => Ok(Action::Skip),
        "link" => Ok(Action::Link),
        _ => Err(DedupError::Action(s.to_owned())),
    }
}

/// Parses a max distance given as a trigger argument (trigger arguments are strings).
pub fn parse_max_distance(s: &str) -> Result<u32, DedupError> {
    match s.trim().parse::<u32>() {
        Ok(k) if k <= 64 => Ok(k),
        _ => Err(DedupError::MaxDistance(s.to_owned())),
    }
}

/// Checks the arguments of `simhash_dedup_trigger`.
pub fn parse_args<S: AsRef<str>>(args: &[S]) -> Result<DedupArgs, DedupError> {
    let (args, options) = split_options(args, 4, 5, DEDUP_SIGNATURE)?;
    let (max_distance, action, link_column) = parse_check(args, 2)?;
    Ok(DedupArgs {
        fp_column: args[0].as_ref().to_owned(),
        text_column: Some(args[1].as_ref().to_owned()),
        max_distance,
        action,
        link_column,
        options,
    })
}

/// Checks the arguments of `simhash_dedup_fp_trigger`.
pub fn parse_fp_args<S: AsRef<str>>(args: &[S]) -> Result<DedupArgs, DedupError> {
    let (args, options) = split_options(args, 3, 4, DEDUP_FP_SIGNATURE)?;
    if options.is_some() {
        return Err(DedupError::OptionsNotTaken);
    }
    let (max_distance, action, link_column) = parse_check(args, 1)?;
    Ok(DedupArgs {
        fp_column: args[0].as_ref().to_owned(),
        text_column: None,
        max_distance,
        action,
        link_column,
        options,
    })
}

/// `max_distance, action [, link_column]`, the tail both dedup triggers share, starting at
/// `args[at]` (2 or 3 arguments from there).
fn parse_check<S: AsRef<str>>(args: &[S], at: usize) -> Result<(u32, Action, Option<String>), DedupError> {
    let max_distance = parse_max_distance(args[at].as_ref())?;
    let action = parse_action(args[at + 1].as_ref())?;
    let link_column = args.get(at + 2).map(|s| s.as_ref().to_owned());
    let position = at + 3; // the link column's, 1-based, for messages
    match (action, &link_column) {
        (Action::Link, None) => Err(DedupError::LinkColumnMissing { position }),
        (a, Some(_)) if a != Action::Link => Err(DedupError::LinkColumnUnexpected { action: a, position }),
        _ => Ok((max_distance, action, link_column)),
    }
}

/// Checks the arguments of `simhash_update_trigger`.
pub fn parse_update_args<S: AsRef<str>>(args: &[S]) -> Result<UpdateArgs, DedupError> {
    let (args, options) = split_options(args, 2, 2, UPDATE_SIGNATURE)?;
    Ok(UpdateArgs { fp_column: args[0].as_ref().to_owned(), text_column: args[1].as_ref().to_owned(), options })
}

/// Number of blocks the lock keys cut a fingerprint into for distance bound `k`:
/// `k + 1` (pigeonhole), one for `k = 64` (the constant key).
pub fn lock_blocks(k: u32) -> u32 {
    if k >= 64 {
        1
    } else {
        k + 1
    }
}

/// The advisory-lock keys of fingerprint `fp` for a check within distance `k` on column
/// `attnum` of table `relid`, ascending and without repeats (the order to lock them in).
pub fn lock_keys(relid: u32, attnum: i16, k: u32, fp: u64) -> Vec<u64> {
    let m = lock_blocks(k);
    let mut keys: Vec<u64> = (0..m)
        .map(|i| {
            // k = 64: every fingerprint gets the same single key.
            let value = if k >= 64 { 0 } else { blocks::block_bits(fp, i, m) };
            let mut buf = [0u8; 20];
            buf[0..4].copy_from_slice(&relid.to_le_bytes());
            buf[4..6].copy_from_slice(&attnum.to_le_bytes());
            buf[6] = k as u8;
            buf[7] = m as u8;
            buf[8..12].copy_from_slice(&i.to_le_bytes());
            buf[12..20].copy_from_slice(&value.to_le_bytes());
            xxhash_rust::xxh3::xxh3_64(&buf)
        })
        .collect();
    keys.sort_unstable();
    keys.dedup();
    keys
}

/// The table-wide key of the same (table, column, k). Every inserter holds it in a shared
/// mode; a transaction that inserts many rows holds it exclusively instead of one set of
/// block keys per row, so that its lock count stays bounded (see `src/trigger/lock.rs`).
pub fn table_lock_key(relid: u32, attnum: i16, k: u32) -> u64 {
    let mut buf = [0u8; 8];
    buf[0..4].copy_from_slice(&relid.to_le_bytes());
    buf[4..6].copy_from_slice(&attnum.to_le_bytes());
    buf[6] = k as u8;
    buf[7] = 0xff; // not a block count (1..=64): never equal to a block key's prefix
    xxhash_rust::xxh3::xxh3_64(&buf)
}

/// The pieces of the check query, already quoted for SQL by the caller
/// (PostgreSQL's `quote_identifier`, which knows the server's keyword list).
#[derive(Debug, Clone)]
pub struct CheckQuery<'a> {
    /// Schema-qualified table, e.g. `public.docs`.
    pub table: &'a str,
    /// The fingerprint column.
    pub fp: &'a str,
    /// The extension's schema, so `hamming` and `simhash_near` resolve whatever the
    /// inserting session's `search_path`.
    pub ext_schema: &'a str,
    pub max_distance: u32,
    /// The key columns (the primary key); empty means use `ctid`.
    pub key_columns: &'a [String],
    /// Whether to return the (single) key column itself, for `link`.
    pub with_link_value: bool,
    /// Whether to exclude the row being updated: `ctid <> $2`.
    pub exclude_ctid: bool,
}

/// The check query: the nearest existing row within `max_distance` of `$1` (bigint), as
/// `(key text, link value or NULL, distance int)`, ties broken by key. `simhash_near(fp,
/// $1, <const k>)` is what the planner support function rewrites into block-index probes.
/// Every column is qualified with the alias `t`: an unqualified `ORDER BY id` would pick
/// the output column `id::text` (also named `id`) and sort keys as strings. The ORDER BY
/// also keeps the plan on the block indexes: with a bare `LIMIT 1` the planner, hoping to
/// meet a match early, chose a sequential scan of a small table (seen in the regression test).
///
/// Nothing in it resolves through the inserting session's `search_path`, which the inserter
/// controls while the query runs with the table owner's rights (trigger/check.rs): the
/// table and the extension's functions are schema-qualified, every operator is written
/// `OPERATOR(pg_catalog.op)`, casts name `pg_catalog` types, and ORDER BY sorts by the
/// types' default btree operator classes, which are found without the `search_path`.
pub fn check_query(q: &CheckQuery<'_>) -> String {
    let ctid = ["ctid".to_owned()];
    let keys: Vec<String> =
        if q.key_columns.is_empty() { &ctid[..] } else { q.key_columns }.iter().map(|c| format!("t.{c}")).collect();
    let key_text = keys
        .iter()
        .map(|c| format!("{c}::pg_catalog.text"))
        .collect::<Vec<_>>()
        .join(" OPERATOR(pg_catalog.||) ', ' OPERATOR(pg_catalog.||) ");
    let link_value = if q.with_link_value { keys[0].as_str() } else { "NULL" };
    let exclude = if q.exclude_ctid { " AND t.ctid OPERATOR(pg_catalog.<>) $2" } else { "" };
    format!(
        "SELECT {key_text}, {link_value}, {s}.hamming(t.{fp}, $1) FROM ONLY {table} AS t \
         WHERE {s}.simhash_near(t.{fp}, $1, {k}){exclude} ORDER BY 3, {order} LIMIT 1",
        s = q.ext_schema,
        fp = q.fp,
        table = q.table,
        k = q.max_distance,
        order = keys.join(", "),
    )
}

/// Expected cost, in btree descents, of the trigger's index pre-check on a set of
/// `nblocks` block indexes at bound `k` over `rows` rows, or None when the set's probe
/// lists are too long to walk one key at a time (more than [`blocks::MAX_PROBES`]).
///
/// The pre-check probes every key of every block's Hamming ball (one descent each) and
/// looks at the index entries found. With the fingerprint in the index (`covering`), an
/// entry is tested right there, for about [`ENTRY_COST`] of a descent; without it, any
/// entry sends the insert on to the full check query, about [`FALLBACK_COST`] descents.
pub fn precheck_cost(nblocks: u32, k: u32, rows: f64, covering: bool) -> Option<f64> {
    if !blocks::probes_fit(nblocks, k, blocks::MAX_PROBES) {
        return None;
    }
    let r = blocks::probe_radius(k, nblocks);
    let (mut descents, mut entries) = (0.0, 0.0);
    for b in 0..nblocks {
        let w = blocks::block_width(b, nblocks);
        let keys = blocks::ball_size(w, r) as f64;
        descents += keys;
        entries += keys * rows.max(0.0) / (w as f64).exp2();
    }
    Some(if covering { descents + entries * ENTRY_COST } else { descents + entries.min(1.0) * FALLBACK_COST })
}

/// A covering index entry costs this fraction of a descent to test (it sits on the leaf
/// page the descent already reached).
pub const ENTRY_COST: f64 = 0.05;

/// The full check query (SPI, bitmap scans of the block indexes, heap) in descents: at
/// k = 3 on 2 blocks its 66 probes made up 31% of a dedup insert, the query 37% (perf).
pub const FALLBACK_COST: f64 = 80.0;

/// Of the block sets `(nblocks, covering)`, the index of the one whose pre-check is
/// cheapest, if that beats going straight to the check query (FALLBACK_COST).
pub fn choose_precheck(sets: &[(u32, bool)], k: u32, rows: f64) -> Option<usize> {
    blocks::cheapest(
        sets.iter().map(|&(n, covering)| precheck_cost(n, k, rows, covering).filter(|&c| c < FALLBACK_COST)),
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::hamming;
    use proptest::prelude::*;

    #[test]
    fn precheck_prefers_covering_indexes_and_few_false_entries() {
        let m = 1e6;
        // 4 covering blocks at k = 3: 4 descents plus ~61 entries tested on the leaf.
        let c4 = precheck_cost(4, 3, m, true).unwrap();
        assert!((c4 - (4.0 + 4.0 * m / 65536.0 * ENTRY_COST)).abs() < 1e-9, "{c4}");
        // Without the fingerprint in the index, 4 blocks always find entries: no better than
        // the check query itself, so not chosen; 2 blocks (66 descents, ~0 entries) are.
        assert!(precheck_cost(4, 3, m, false).unwrap() > FALLBACK_COST);
        assert_eq!(choose_precheck(&[(4, false)], 3, m), None);
        assert_eq!(choose_precheck(&[(4, false), (2, false)], 3, m), Some(1));
        assert_eq!(choose_precheck(&[(2, false), (4, true)], 3, m), Some(1));
        // 2 blocks at k = 5: 2 x 529 descents, over the fallback; at k = 40 the ball does
        // not fit at all.
        assert_eq!(choose_precheck(&[(2, true)], 5, m), None);
        assert_eq!(precheck_cost(2, 40, m, true), None);
        // An empty table: every set is just its descents.
        assert_eq!(precheck_cost(4, 3, 0.0, false), Some(4.0));
    }

    fn shares_key(relid: u32, k: u32, a: u64, b: u64) -> bool {
        let (ka, kb) = (lock_keys(relid, 3, k, a), lock_keys(relid, 3, k, b));
        ka.iter().any(|x| kb.binary_search(x).is_ok())
    }

    /// A deterministic generator (splitmix64), so the brute-force test needs no seed.
    fn splitmix(state: &mut u64) -> u64 {
        *state = state.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = *state;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    #[test]
    fn near_fingerprints_share_a_key_for_every_k() {
        // For every k: random pairs at every distance d <= k, plus the adversarial flips that
        // put one differing bit into each of the first d blocks (the worst case for pigeonhole).
        let mut s = 42;
        for k in 0..=64u32 {
            let m = lock_blocks(k);
            for d in 0..=k {
                for _ in 0..40 {
                    // d distinct random bits (a partial Fisher-Yates shuffle of 0..64).
                    let a = splitmix(&mut s);
                    let mut bits: Vec<u32> = (0..64).collect();
                    let mut b = a;
                    for j in 0..d as usize {
                        let pick = j + (splitmix(&mut s) % (64 - j as u64)) as usize;
                        bits.swap(j, pick);
                        b ^= 1 << bits[j];
                    }
                    assert_eq!(hamming(a, b), d);
                    assert!(shares_key(7, k, a, b), "k={k} d={d} {a:#x} {b:#x}");
                }
                let a = splitmix(&mut s);
                let mut b = a;
                for i in 0..d.min(m) {
                    b ^= 1 << blocks::block_range(i, m).0;
                }
                if hamming(a, b) <= k {
                    assert!(shares_key(7, k, a, b), "adversarial k={k} d={d}");
                }
            }
        }
    }

    #[test]
    fn keys_are_sorted_distinct_and_k_plus_one() {
        for k in [0u32, 1, 3, 10, 63, 64] {
            let keys = lock_keys(1, 2, k, 0x0123_4567_89ab_cdef);
            assert!(keys.windows(2).all(|w| w[0] < w[1]));
            assert_eq!(keys.len() as u32, if k == 64 { 1 } else { k + 1 });
        }
        // k = 64: one key for every fingerprint.
        assert_eq!(lock_keys(1, 2, 64, 0), lock_keys(1, 2, 64, u64::MAX));
        // The table key is none of the block keys, and differs per table, column and k.
        let t = table_lock_key(1, 2, 3);
        assert!(!lock_keys(1, 2, 3, 0x0123_4567_89ab_cdef).contains(&t));
        assert_ne!(t, table_lock_key(2, 2, 3));
        assert_ne!(t, table_lock_key(1, 3, 3));
        assert_ne!(t, table_lock_key(1, 2, 4));
    }

    #[test]
    fn unrelated_tables_and_far_fingerprints_rarely_contend() {
        // k = 3: four 16-bit blocks, so two random fingerprints share a key with
        // probability about 4/65536; other tables or columns never share keys.
        let mut s = 7;
        let mut shared = 0;
        for _ in 0..20_000 {
            let (a, b) = (splitmix(&mut s), splitmix(&mut s));
            shared += shares_key(1, 3, a, b) as u32;
        }
        assert!(shared <= 10, "{shared} of 20000 random pairs share a key");
        let a = 0xdead_beef_u64;
        let other_table = lock_keys(2, 3, 3, a);
        assert!(lock_keys(1, 3, 3, a).iter().all(|k| !other_table.contains(k)));
        let other_column = lock_keys(1, 4, 3, a);
        assert!(lock_keys(1, 3, 3, a).iter().all(|k| !other_column.contains(k)));
    }

    proptest! {
        #[test]
        fn prop_within_k_share_a_key(a: u64, flips in proptest::collection::vec(0u32..64, 0..64), k in 0u32..=64) {
            let mut b = a;
            for f in flips {
                if hamming(a, b ^ (1 << f)) <= k {
                    b ^= 1 << f;
                }
            }
            prop_assert!(hamming(a, b) <= k);
            prop_assert!(shares_key(99, k, a, b));
        }
    }

    #[test]
    fn args() {
        let ok = parse_args(&["fp", "body", "3", "reject"]).unwrap();
        assert_eq!(ok.max_distance, 3);
        assert_eq!(ok.action, Action::Reject);
        assert_eq!(ok.link_column, None);
        assert_eq!(ok.options, None);
        let link = parse_args(&["fp", "body", " 64 ", "LINK", "dup_of"]).unwrap();
        assert_eq!((link.max_distance, link.action), (64, Action::Link));
        assert_eq!(link.link_column.as_deref(), Some("dup_of"));
        assert_eq!(link.options, None);
        assert_eq!(
            parse_args(&["fp", "body", "3"]),
            Err(DedupError::ArgCount { got: 3, options: false, expected: DEDUP_SIGNATURE })
        );
        assert!(parse_args(&["fp", "body", "3"]).unwrap_err().is_protocol());
        assert_eq!(parse_args(&["fp", "body", "65", "skip"]), Err(DedupError::MaxDistance("65".into())));
        assert_eq!(parse_args(&["fp", "body", "-1", "skip"]), Err(DedupError::MaxDistance("-1".into())));
        assert_eq!(parse_args(&["fp", "body", "x", "skip"]), Err(DedupError::MaxDistance("x".into())));
        assert_eq!(parse_args(&["fp", "body", "3", "drop"]), Err(DedupError::Action("drop".into())));
        assert_eq!(parse_args(&["fp", "body", "3", "link"]), Err(DedupError::LinkColumnMissing { position: 5 }));
        assert_eq!(
            parse_args(&["fp", "body", "3", "skip", "d"]),
            Err(DedupError::LinkColumnUnexpected { action: Action::Skip, position: 5 })
        );
        assert_eq!(
            DedupError::Action("drop".into()).to_string(),
            "unknown action \"drop\": expected reject, skip or link"
        );
    }

    #[test]
    fn fp_trigger_args() {
        let ok = parse_fp_args(&["fp", "3", "reject"]).unwrap();
        assert_eq!(
            (ok.fp_column.as_str(), ok.text_column, ok.max_distance, ok.action),
            ("fp", None, 3, Action::Reject)
        );
        let link = parse_fp_args(&["fp", "2", "link", "dup_of"]).unwrap();
        assert_eq!(link.link_column.as_deref(), Some("dup_of"));
        assert_eq!(parse_fp_args(&["fp", "3", "link"]), Err(DedupError::LinkColumnMissing { position: 4 }));
        assert_eq!(
            parse_fp_args(&["fp", "3", "skip", "d"]).unwrap_err().to_string(),
            "a fourth argument (link column) is only allowed with action link, not skip"
        );
        assert_eq!(parse_fp_args(&["fp", "3", "skip", "{}"]), Err(DedupError::OptionsNotTaken));
        assert_eq!(parse_fp_args(&["fp", "body", "3", "reject"]), Err(DedupError::MaxDistance("body".into())));
        assert_eq!(
            parse_fp_args(&["fp", "3"]),
            Err(DedupError::ArgCount { got: 2, options: false, expected: DEDUP_FP_SIGNATURE })
        );
    }

    #[test]
    fn args_with_options() {
        // 5 arguments, the last options: no link column.
        let o = parse_args(&["fp", "body", "3", "reject", r#"{"definition": "0"}"#]).unwrap();
        assert_eq!((o.action, o.link_column.as_deref()), (Action::Reject, None));
        assert_eq!(o.options.as_deref(), Some(r#"{"definition": "0"}"#));
        // Leading whitespace is allowed, and the text is kept as written.
        let o = parse_args(&["fp", "body", "3", "skip", "  \n{}"]).unwrap();
        assert_eq!(o.options.as_deref(), Some("  \n{}"));
        // 6: link column, then options.
        let o = parse_args(&["fp", "body", "3", "link", "dup_of", r#"{"tokenizer": "ngram", "n": 2}"#]).unwrap();
        assert_eq!((o.action, o.link_column.as_deref()), (Action::Link, Some("dup_of")));
        assert_eq!(o.options.as_deref(), Some(r#"{"tokenizer": "ngram", "n": 2}"#));
        // Options do not stand in for the link column.
        assert_eq!(parse_args(&["fp", "body", "3", "link", "{}"]), Err(DedupError::LinkColumnMissing { position: 5 }));
        assert_eq!(
            parse_args(&["fp", "body", "3", "reject", "dup_of", "{}"]),
            Err(DedupError::LinkColumnUnexpected { action: Action::Reject, position: 5 })
        );
        // Options anywhere but last.
        assert_eq!(
            parse_args(&["fp", "body", "3", "link", "{}", "dup_of"]),
            Err(DedupError::OptionsNotLast { position: 5 })
        );
        assert_eq!(parse_args(&["fp", "body", "{}", "3", "reject"]), Err(DedupError::OptionsNotLast { position: 3 }));
        assert_eq!(parse_args(&["fp", "body", "3", "{}", "{}"]), Err(DedupError::OptionsNotLast { position: 4 }));
        assert!(!parse_args(&["fp", "body", "3", "link", "{}", "dup_of"]).unwrap_err().is_protocol());
        // Six arguments need options last.
        assert_eq!(
            parse_args(&["fp", "body", "3", "link", "dup_of", "ngram"]),
            Err(DedupError::NotOptions { position: 6, got: "ngram".into() })
        );
        // Counts: 4 to 6, options included; the error is the declaration's (39P01).
        for n in [0, 1, 2, 3, 7, 8] {
            let args: Vec<&str> = ["fp", "body", "3", "link", "dup_of", "{}", "{}", "{}"][..n].to_vec();
            let e = parse_args(&args).unwrap_err();
            assert_eq!(e, DedupError::ArgCount { got: n, options: false, expected: DEDUP_SIGNATURE }, "{n}");
            assert!(e.is_protocol());
        }
        // Options after too few arguments.
        let e = parse_args(&["fp", "body", "3", "{}"]).unwrap_err();
        assert_eq!(e, DedupError::ArgCount { got: 3, options: true, expected: DEDUP_SIGNATURE });
        assert!(e.is_protocol());
        assert_eq!(
            DedupError::ArgCount { got: 3, options: false, expected: DEDUP_SIGNATURE }.to_string(),
            "expected 4 to 6 arguments (fp_column, text_column, max_distance, action [, link_column] [, options]), got 3"
        );
        assert_eq!(
            e.to_string(),
            "expected 4 to 6 arguments (fp_column, text_column, max_distance, action [, link_column] [, options]), \
             got 3 before the options"
        );
        assert_eq!(
            DedupError::OptionsNotLast { position: 5 }.to_string(),
            "argument 5 looks like options (it begins with \"{\"), but the options must be the last argument"
        );
    }

    #[test]
    fn update_args() {
        let a = parse_update_args(&["fp", "body"]).unwrap();
        assert_eq!(a, UpdateArgs { fp_column: "fp".into(), text_column: "body".into(), options: None });
        let a = parse_update_args(&["fp", "body", r#"{"definition": "0"}"#]).unwrap();
        assert_eq!(a.options.as_deref(), Some(r#"{"definition": "0"}"#));
        assert_eq!(
            parse_update_args(&["fp", "body", "x"]),
            Err(DedupError::NotOptions { position: 3, got: "x".into() })
        );
        assert_eq!(parse_update_args(&["fp", "{}", "body"]), Err(DedupError::OptionsNotLast { position: 2 }));
        for n in [0, 1, 4] {
            let args: Vec<&str> = ["fp", "body", "{}", "{}"][..n].to_vec();
            let e = parse_update_args(&args).unwrap_err();
            assert_eq!(e, DedupError::ArgCount { got: n, options: false, expected: UPDATE_SIGNATURE }, "{n}");
            assert!(e.is_protocol());
        }
        assert_eq!(
            parse_update_args(&["fp", "{}"]),
            Err(DedupError::ArgCount { got: 1, options: true, expected: UPDATE_SIGNATURE })
        );
        assert_eq!(
            DedupError::ArgCount { got: 1, options: false, expected: UPDATE_SIGNATURE }.to_string(),
            "expected 2 or 3 arguments (fp_column, text_column [, options]), got 1"
        );
    }

    #[test]
    fn query_text() {
        let keys = vec!["id".to_owned()];
        let q = CheckQuery {
            table: "public.docs",
            fp: "fp",
            ext_schema: "public",
            max_distance: 3,
            key_columns: &keys,
            with_link_value: true,
            exclude_ctid: true,
        };
        assert_eq!(
            check_query(&q),
            "SELECT t.id::pg_catalog.text, t.id, public.hamming(t.fp, $1) FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) AND t.ctid OPERATOR(pg_catalog.<>) $2 ORDER BY 3, t.id LIMIT 1"
        );
        let none: Vec<String> = vec![];
        let q = CheckQuery { key_columns: &none, with_link_value: false, exclude_ctid: false, ..q };
        assert_eq!(
            check_query(&q),
            "SELECT t.ctid::pg_catalog.text, NULL, public.hamming(t.fp, $1) FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) ORDER BY 3, t.ctid LIMIT 1"
        );
        // A composite key: the parts are joined with pg_catalog's ||, not whichever || the
        // session's search_path finds first.
        let two = vec!["a".to_owned(), "\"B\"".to_owned()];
        let q = CheckQuery { key_columns: &two, ..q };
        assert_eq!(
            check_query(&q),
            "SELECT t.a::pg_catalog.text OPERATOR(pg_catalog.||) ', ' OPERATOR(pg_catalog.||) t.\"B\"::pg_catalog.text, NULL, \
             public.hamming(t.fp, $1) FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) ORDER BY 3, t.a, t.\"B\" LIMIT 1"
        );
    }
}
