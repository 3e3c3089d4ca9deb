//! What every dedup trigger's check query shares: the table and key it reads
//! ([`QueryTarget`]) and how it selects that key ([`KeyExprs`]). The measures' own queries
//! are `fingerprints::trigger::check_query`, `segments::trigger::segments_check_query` and
//! `similarity::trigger::similarity_check_query`.

/// What every check query reads and returns, already quoted for SQL by the caller
/// (PostgreSQL's `quote_identifier`, which knows the server's keyword list): shared by
/// [`CheckQuery`], `SegmentsCheckQuery` and `SimilarityCheckQuery`.
#[derive(Debug, Clone, Copy)]
pub struct QueryTarget<'a> {
    /// Schema-qualified table, e.g. `public.docs`.
    pub table: &'a str,
    /// The extension's schema, so that its functions resolve whatever the inserting
    /// session's `search_path`.
    pub ext_schema: &'a str,
    /// The key columns (the primary key); empty means use `ctid`.
    pub key_columns: &'a [String],
    /// Whether to return the (single) key column itself, for `link`.
    pub with_link_value: bool,
    /// Whether to exclude the row being updated: `ctid <>` the query's last parameter.
    pub exclude_ctid: bool,
    /// The text column the dedup decision reads (`crate::decision`), when the trigger asks
    /// it: the query then returns that column fourth and every candidate, best first, with
    /// no LIMIT, and the SQL layer reads them until the decision calls one the same passage.
    pub decide: Option<&'a str>,
}

impl QueryTarget<'_> {
    /// ` LIMIT 1`, unless the decision reads every candidate.
    pub(crate) fn limit(&self) -> &'static str {
        if self.decide.is_some() {
            ""
        } else {
            " LIMIT 1"
        }
    }
}

/// How the check queries select the key of a [`QueryTarget`].
pub(crate) struct KeyExprs {
    /// The key columns qualified with the alias `t` (`t.ctid` when there are none).
    pub keys: Vec<String>,
    /// The key as one text, the parts joined with `, ` by pg_catalog's `||`.
    pub text: String,
    /// The link value: the (single) key column, or `NULL`.
    pub link: String,
}

impl KeyExprs {
    pub(crate) fn of(target: &QueryTarget<'_>) -> KeyExprs {
        let ctid = ["ctid".to_owned()];
        let columns = if target.key_columns.is_empty() { &ctid[..] } else { target.key_columns };
        let keys: Vec<String> = columns.iter().map(|c| format!("t.{c}")).collect();
        let text = keys
            .iter()
            .map(|c| format!("{c}::pg_catalog.text"))
            .collect::<Vec<_>>()
            .join(" OPERATOR(pg_catalog.||) ', ' OPERATOR(pg_catalog.||) ");
        let link = if target.with_link_value { keys[0].clone() } else { "NULL".to_owned() };
        KeyExprs { keys, text, link }
    }

    /// The keys named for an outer query to sort by: `t.id AS o0, t.b AS o1`.
    pub(crate) fn named(&self) -> String {
        self.keys.iter().enumerate().map(|(i, k)| format!("{k} AS o{i}")).collect::<Vec<_>>().join(", ")
    }

    /// Those names as the outer query reads them: `{prefix}o0, {prefix}o1`.
    pub(crate) fn names(&self, prefix: &str) -> String {
        (0..self.keys.len()).map(|i| format!("{prefix}o{i}")).collect::<Vec<_>>().join(", ")
    }
}

#[cfg(test)]
impl<'a> QueryTarget<'a> {
    /// The target the check queries' tests read: `public.docs` keyed by `keys`, with the link
    /// value, excluding the updated row.
    pub(crate) fn docs(keys: &'a [String]) -> QueryTarget<'a> {
        QueryTarget {
            table: "public.docs",
            ext_schema: "public",
            key_columns: keys,
            with_link_value: true,
            exclude_ctid: true,
            decide: None,
        }
    }
}
