-- simhash_nearest (src/fingerprints/search/nearest.rs): the n rows of a table nearest a query fingerprint,
-- exactly, through the table's block indexes (multi-index hashing). Rows are identified
-- by ctid: join back with JOIN t ON t.ctid = nn.ctid in the same statement (README.md,
-- "Nearest neighbours"). STABLE: its queries see the caller's snapshot.
CREATE FUNCTION simhash_nearest(tbl regclass, fp_column name, query bigint, n int)
    RETURNS TABLE(ctid tid, fp bigint, distance int)
    STABLE STRICT PARALLEL RESTRICTED ROWS 10
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_nearest_wrapper';
COMMENT ON FUNCTION simhash_nearest(regclass, name, bigint, int) IS
    'The n rows of tbl nearest query in Hamming distance on fp_column (NULLs never), exact, by ascending (distance, ctid); needs a complete block set (simhash_create_blocks); n between 1 and 10000';
