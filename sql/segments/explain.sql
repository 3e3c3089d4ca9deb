-- Why two texts resemble each other (src/segments/explain.rs; docs/segments.md): one row per
-- segment of either text, the text it covers, and its partner in the other text. The credits
-- (1 exact, 0.5 within max_distance bits, 0 none) add up to the resemblance and the
-- containments, given on every row: simhash_resemblance and simhash_containment of the two
-- texts' simhash_segments. Qualified names, as in simhash_features (sql/fingerprints/), which
-- prepends the definition to the options likewise (simhash_explain_utf8 defaults to 2, for
-- 2.2.0's simhash_explain, simhash_explain_v2 since 3.0.0).
--
-- This was simhash_explain(a, b, options DEFAULT '{}') until 4.0.0, whose simhash_explain(a, b)
-- explains the similarity (sql/similarity/explain.sql); the three-argument simhash_explain
-- stays, without the default (which would make a two-argument call ambiguous).
CREATE FUNCTION simhash_segments_explain(a text, b text, options jsonb DEFAULT '{}')
    RETURNS TABLE(side text, segment int, sentences text, fingerprint bigint, matched text, partner int,
                  distance int, credit float8, resemblance float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT e.side, e.segment, pg_catalog.convert_from(e.sentences, 'UTF8'), e.fingerprint, e.matched,
                 e.partner, e.distance, e.credit, e.resemblance, e.a_in_b, e.b_in_a
          FROM @extschema@.simhash_explain_utf8(pg_catalog.convert_to(a, 'UTF8'), pg_catalog.convert_to(b, 'UTF8'),
                                                '{"definition": "3"}'::pg_catalog.jsonb OPERATOR(pg_catalog.||) options) AS e $$;
COMMENT ON FUNCTION simhash_segments_explain(text, text, jsonb) IS
    'Each segment of a and of b (definition 3 unless the options name another): the text it covers, its fingerprint, its partner in the other text (exact, near within max_distance bits with the distance, or none) and its credit (1, 0.5, 0); resemblance, a_in_b and b_in_a are what the credits add up to: simhash_resemblance and simhash_containment of the two texts'' segments. Options: those of simhash_segments, plus "max_distance" (0 to 64; only 0 under definition 3, whose segments are shingle hashes)';

CREATE FUNCTION simhash_explain(a text, b text, options jsonb)
    RETURNS TABLE(side text, segment int, sentences text, fingerprint bigint, matched text, partner int,
                  distance int, credit float8, resemblance float8, a_in_b float8, b_in_a float8)
    STABLE STRICT PARALLEL SAFE
    LANGUAGE sql
    AS $$ SELECT * FROM @extschema@.simhash_segments_explain(a, b, options) $$;
COMMENT ON FUNCTION simhash_explain(text, text, jsonb) IS
    'simhash_segments_explain(a, b, options): each segment of a and of b, its partner and credit (3.x''s simhash_explain; the two-argument simhash_explain explains the similarity since 4.0.0)';
