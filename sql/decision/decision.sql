-- The dedup decision (src/decision.rs; docs/decision.md): whether a reader would call two texts
-- the same passage. Every dedup path (the triggers, bulk pairs and clusters) finds its
-- candidates by its index and asks this of each; simhash_explain lists what it weighed.
CREATE FUNCTION simhash_same_passage(a text, b text, decision text DEFAULT 'balanced') RETURNS boolean
    IMMUTABLE STRICT PARALLEL SAFE COST 1000
    LANGUAGE c AS 'MODULE_PATHNAME', 'simhash_same_passage_d3';
COMMENT ON FUNCTION simhash_same_passage(text, text, text) IS
    'Whether a reader would call the two texts the same passage, by the dedup decision (7.0.0: a model fitted on labelled pairs over where they differ, a slot, a figure, against what a repost changes, sentences, a source line, a cut, typos), at the strictness decision names: loose, balanced or strict; what every dedup trigger and bulk function asks of its candidates';
