-- Dedup by resemblance of segment fingerprints (src/segments/trigger.rs): candidates
-- come through the GIN index on the segments column, by the new row's rare segments only.
-- The `_v3` C symbols default to definition 3; 2.x's (no suffix) are the `_v2` functions'.
CREATE FUNCTION simhash_segments_dedup_trigger() RETURNS trigger
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_trigger_d3';
COMMENT ON FUNCTION simhash_segments_dedup_trigger() IS
    'BEFORE INSERT OR UPDATE row trigger, arguments (segments_column, text_column, min_resemblance, reject|skip|link [, link_column] [, options]): sets segments_column = simhash_segments(text_column [, options]) and acts on an existing row whose segments have resemblance >= min_resemblance (0 < min_resemblance <= 1) and whose text the dedup decision calls the same passage (the most resembling such). Candidates are the rows sharing one of the new row''s segments that at most simhash.segment_max_rows rows have (default 1000): a passage repeated in more rows, such as a disclaimer, finds no candidates, but still counts in the resemblance. A NULL text or one without a segment is never a duplicate. The option "decision" (7.0.0) picks the dedup decision''s strictness, ''{"decision": "loose"}'', balanced by default, strict; or none, the measure alone';

CREATE FUNCTION simhash_segments_dedup_query(tbl regclass, VARIADIC trigger_args text[]) RETURNS text
    STABLE STRICT
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_segments_dedup_query_d3';
COMMENT ON FUNCTION simhash_segments_dedup_query(regclass, text[]) IS
    'The check query simhash_segments_dedup_trigger(trigger_args) runs on tbl for an INSERT ($1 = the new segments, $2 = simhash.segment_max_rows, $3 = min_resemblance): every candidate, most resembling first, with its text for the dedup decision; its index pre-check in a trailing comment';
