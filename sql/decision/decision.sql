-- The dedup decision (src/decision.rs; docs/decision.md): whether a reader would call two texts
-- the same passage. Every dedup path of 6.0 (the triggers, bulk pairs and clusters) finds its
-- candidates by its index and asks this of each; simhash_explain lists what it weighed.
CREATE FUNCTION simhash_same_passage(a text, b text) RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_same_passage';
COMMENT ON FUNCTION simhash_same_passage(text, text) IS
    'Whether a reader would call the two texts the same passage, by the dedup decision: where they differ (a slot, a figure) against what a repost changes (sentences, a source line, a cut, typos); what every dedup trigger and bulk function asks of its candidates';
