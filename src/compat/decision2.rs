//! Decision 2 (6.0.0's: hunks priced by hand-set rules against 5% of the shorter text), kept
//! reachable as the `_d2` functions (sql/compat/decision2.sql; docs/decision.md, "6.0's
//! decision"): each entry point here is current code called with `Decision::D2`, on 6.0.0's C
//! symbols, which a database not yet updated from 6.0.0 also calls under the unsuffixed names.

use pgrx::prelude::*;
use simhash_core::similarity::Version;
use simhash_core::Definition;

use crate::trigger::Decision;

v1_function!(
    /// `simhash_dedup_trigger()` since 6.0.0 (definition 3 by default): the candidates within
    /// `max_distance` bits, nearest first, and the first the dedup decision calls the same
    /// passage as the new text (docs/decision.md). 5.x's is `simhash_dedup_trigger_d1()`, on the
    /// symbol `simhash_dedup_trigger_v3`.
    pg_finfo_simhash_dedup_trigger_d2, simhash_dedup_trigger_d2 => crate::fingerprints::trigger::dedup_body, Definition::V3, false, Decision::D2
);

v1_function!(
    /// `simhash_dedup_query(tbl regclass, VARIADIC trigger_args text[]) → text` since 6.0.0: the
    /// check query of `simhash_dedup_trigger(trigger_args...)`, which returns every candidate and
    /// its text for the dedup decision.
    pg_finfo_simhash_dedup_query_d2, simhash_dedup_query_d2 => crate::fingerprints::trigger::fp_dedup_query, Decision::D2, "simhash_dedup_query_d2"
);

v1_function!(
    /// `simhash_segments_dedup_trigger()` since 6.0.0: definition 3 by default; the candidates,
    /// most resembling first, and the first the dedup decision calls the same passage as the new
    /// text (docs/decision.md).
    pg_finfo_simhash_segments_dedup_trigger_d2, simhash_segments_dedup_trigger_d2 => crate::segments::trigger::dedup_body, Definition::V3, Decision::D2
);

v1_function!(
    /// `simhash_segments_dedup_query(tbl, VARIADIC trigger_args)` since 6.0.0: the query of
    /// `simhash_segments_dedup_trigger`, which returns every candidate and its text.
    pg_finfo_simhash_segments_dedup_query_d2, simhash_segments_dedup_query_d2 => crate::segments::trigger::query_of, Definition::V3, Decision::D2
);

v1_function!(
    /// `simhash_similarity_dedup_trigger()` since 6.0.0, used as `BEFORE INSERT OR UPDATE OF body
    /// ... FOR EACH ROW EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.5', 'reject'
    /// [, link_column] [, '{"min_containment": 0.8}'])`: the candidates, most similar first, and
    /// the first the dedup decision calls the same passage as the new text (docs/decision.md).
    pg_finfo_simhash_similarity_dedup_trigger_d2, simhash_similarity_dedup_trigger_d2 => crate::similarity::trigger::dedup_trigger, Version::M2, Decision::D2
);

v1_function!(
    /// `simhash_similarity_dedup_query(tbl regclass, VARIADIC trigger_args text[]) → text` since
    /// 6.0.0: the check query of `simhash_similarity_dedup_trigger(trigger_args...)`, which
    /// returns every candidate and its text for the dedup decision.
    pg_finfo_simhash_similarity_dedup_query_d2, simhash_similarity_dedup_query_d2 => crate::similarity::trigger::query, Version::M2, Decision::D2, "simhash_similarity_dedup_query_d2"
);

pgrx::extension_sql_file!(
    "../../sql/compat/decision2.sql",
    name = "decision2",
    requires = [
        "trigger",
        "segments_trigger",
        "similarity_trigger",
        "decision",
        "similarity_explain",
        "similarity_pairs",
        "batch",
        simhash_explain_decision_utf8,
        simhash_similarity_pairs_d2,
        simhash_similarity_clusters_d2,
        simhash_clusters,
        simhash_duplicates,
        simhash_duplicates_corpus
    ]
);
