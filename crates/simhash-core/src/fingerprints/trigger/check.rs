//! The fingerprint dedup trigger's check query: the SQL text that finds the nearest
//! existing row within the bound, through the block indexes.

use crate::trigger::{KeyExprs, QueryTarget};

/// The pieces of the Hamming check query.
#[derive(Debug, Clone)]
pub struct CheckQuery<'a> {
    pub target: QueryTarget<'a>,
    /// The fingerprint column.
    pub fp: &'a str,
    pub max_distance: u32,
}

/// The check query: the nearest existing row within `max_distance` of `$1` (bigint), as
/// `(key text, link value or NULL, distance int)`, ties broken by key (with the decision:
/// every such row in that order, and its text). `simhash_near(fp,
/// $1, <const k>)` is what the planner support function rewrites into block-index probes.
/// Every column is qualified with the alias `t`: an unqualified `ORDER BY id` would pick
/// the output column `id::text` (also named `id`) and sort keys as strings. The ORDER BY
/// also keeps the plan on the block indexes: with a bare `LIMIT 1` the planner, hoping to
/// meet a match early, chose a sequential scan of a small table (seen in the regression test).
///
/// Nothing in it resolves through the inserting session's `search_path`, which the inserter
/// controls while the query runs with the table owner's rights (src/trigger/check.rs): the
/// table and the extension's functions are schema-qualified, every operator is written
/// `OPERATOR(pg_catalog.op)`, casts name `pg_catalog` types, and ORDER BY sorts by the
/// types' default btree operator classes, which are found without the `search_path`.
pub fn check_query(q: &CheckQuery<'_>) -> String {
    let t = &q.target;
    let k = KeyExprs::of(t);
    let exclude = if t.exclude_ctid { " AND t.ctid OPERATOR(pg_catalog.<>) $2" } else { "" };
    format!(
        "SELECT {key_text}, {link}, {s}.hamming(t.{fp}, $1){doc} FROM ONLY {table} AS t \
         WHERE {s}.simhash_near(t.{fp}, $1, {max}){exclude} ORDER BY 3, {order}{limit}",
        doc = t.decide.map(|c| format!(", t.{c}")).unwrap_or_default(),
        limit = t.limit(),
        key_text = k.text,
        link = k.link,
        s = t.ext_schema,
        fp = q.fp,
        table = t.table,
        max = q.max_distance,
        order = k.keys.join(", "),
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn query_text() {
        let keys = vec!["id".to_owned()];
        let target = QueryTarget::docs(&keys);
        let q = CheckQuery { target, fp: "fp", max_distance: 3 };
        assert_eq!(
            check_query(&q),
            "SELECT t.id::pg_catalog.text, t.id, public.hamming(t.fp, $1) FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) AND t.ctid OPERATOR(pg_catalog.<>) $2 ORDER BY 3, t.id LIMIT 1"
        );
        let none: Vec<String> = vec![];
        let target = QueryTarget { key_columns: &none, with_link_value: false, exclude_ctid: false, ..target };
        let q = CheckQuery { target, ..q };
        assert_eq!(
            check_query(&q),
            "SELECT t.ctid::pg_catalog.text, NULL, public.hamming(t.fp, $1) FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) ORDER BY 3, t.ctid LIMIT 1"
        );
        // A composite key: the parts are joined with pg_catalog's ||, not whichever || the
        // session's search_path finds first.
        let two = vec!["a".to_owned(), "\"B\"".to_owned()];
        let q = CheckQuery { target: QueryTarget { key_columns: &two, ..target }, ..q };
        assert_eq!(
            check_query(&q),
            "SELECT t.a::pg_catalog.text OPERATOR(pg_catalog.||) ', ' OPERATOR(pg_catalog.||) t.\"B\"::pg_catalog.text, NULL, \
             public.hamming(t.fp, $1) FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) ORDER BY 3, t.a, t.\"B\" LIMIT 1"
        );
        // The decision reads every candidate and its text.
        let q = CheckQuery { target: QueryTarget { decide: Some("body"), ..target }, ..q };
        assert_eq!(
            check_query(&q),
            "SELECT t.ctid::pg_catalog.text, NULL, public.hamming(t.fp, $1), t.body FROM ONLY public.docs AS t \
             WHERE public.simhash_near(t.fp, $1, 3) ORDER BY 3, t.ctid"
        );
    }
}
