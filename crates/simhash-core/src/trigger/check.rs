//! The dedup trigger's check query: the SQL text that finds the nearest existing row within
//! the bound, through the block indexes.

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
/// controls while the query runs with the table owner's rights (src/trigger/check.rs): the
/// table and the extension's functions are schema-qualified, every operator is written
/// `OPERATOR(pg_catalog.op)`, casts name `pg_catalog` types, and ORDER BY sorts by the
/// types' default btree operator classes, which are found without the `search_path`.
pub fn check_query(q: &CheckQuery<'_>) -> String {
    let (keys, key_text) = key_expressions(q.key_columns);
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

/// The key columns qualified with the alias `t` (`t.ctid` when there are none), and the key
/// as one text, the parts joined with `, ` by pg_catalog's `||`.
pub(super) fn key_expressions(key_columns: &[String]) -> (Vec<String>, String) {
    let ctid = ["ctid".to_owned()];
    let keys: Vec<String> =
        if key_columns.is_empty() { &ctid[..] } else { key_columns }.iter().map(|c| format!("t.{c}")).collect();
    let key_text = keys
        .iter()
        .map(|c| format!("{c}::pg_catalog.text"))
        .collect::<Vec<_>>()
        .join(" OPERATOR(pg_catalog.||) ', ' OPERATOR(pg_catalog.||) ");
    (keys, key_text)
}

#[cfg(test)]
mod tests {
    use super::*;

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
