-- SQL-level fuzzing of the extension's functions (issue 11, part 5), loaded by
-- tests/integration/fuzz_sql.sh into a database with the extension and a table
-- corpus(id, body). Inputs are generated inside the server from random() after setseed(),
-- so a batch is reproducible from its seed: SELECT * FROM fuzz_batch(<seed>, <calls>).
-- Each call runs in its own EXCEPTION block, which records the SQLSTATE; fuzz_batch
-- returns the counts per function and SQLSTATE ('00000': no error), and keeps in
-- fuzz_internal the first internal errors (XX...) with the input that raised them.

CREATE TABLE fuzz_internal(target text, sqlstate text, message text, input text);

-- Paragraphs to mutate: real Chinese text reaches jieba's dictionary paths.
CREATE TABLE fuzz_para AS SELECT row_number() OVER () AS n, body FROM corpus WHERE id % 97 = 0;

-- Rows for the bulk functions: few distinct fingerprints, repeated ids, NULL fingerprints.
CREATE TABLE fuzz_rows AS
SELECT (g % 40)::bigint AS id,
       CASE WHEN g % 17 = 0 THEN NULL WHEN g % 5 = 0 THEN 0 ELSE (g % 7) * 1234567890123 END AS fp
  FROM generate_series(1, 120) g;

-- Segment rows for simhash_similar and the bulk segment functions: paragraphs (so that rows
-- share segments), repeated ids, NULL, empty and repeating arrays, random and extreme values.
CREATE TABLE fuzz_seg AS
SELECT (n % 50)::bigint AS id, simhash_segments(body) AS segs FROM fuzz_para
UNION ALL SELECT 1000 + g, CASE g % 4 WHEN 0 THEN NULL WHEN 1 THEN '{}'
                                      WHEN 2 THEN ARRAY[g, g, NULL, -9223372036854775808]
                                      ELSE ARRAY[9223372036854775807, g % 3] END
  FROM generate_series(1, 40) g;
CREATE INDEX ON fuzz_seg USING gin (segs);
-- Tables with the segment dedup trigger, one per action.
CREATE TABLE fuzz_dedup_reject(id bigserial PRIMARY KEY, body text, segs bigint[]);
CREATE TABLE fuzz_dedup_skip(id bigserial PRIMARY KEY, body text, segs bigint[]);
CREATE TABLE fuzz_dedup_link(id bigserial PRIMARY KEY, body text, segs bigint[], dup_of bigint);
CREATE INDEX ON fuzz_dedup_reject USING gin (segs);
CREATE INDEX ON fuzz_dedup_skip USING gin (segs);
CREATE INDEX ON fuzz_dedup_link USING gin (segs);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON fuzz_dedup_reject FOR EACH ROW
    EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.5', 'reject');
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON fuzz_dedup_skip FOR EACH ROW
    EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '0.3', 'skip', '{"max_distance": 8}');
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON fuzz_dedup_link FOR EACH ROW
    EXECUTE FUNCTION simhash_segments_dedup_trigger('segs', 'body', '1', 'link', 'dup_of', '{"definition": "1"}');
-- Tables with the similarity dedup trigger: through a simhash_ops index, and without one.
CREATE TABLE fuzz_sim_reject(id bigserial PRIMARY KEY, body text);
CREATE TABLE fuzz_sim_link(id bigserial PRIMARY KEY, body text, dup_of bigint);
CREATE INDEX ON fuzz_sim_reject USING gin (body simhash_ops);
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON fuzz_sim_reject FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.6', 'reject', '{"min_containment": 0.8}');
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE ON fuzz_sim_link FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger('body', '0.3', 'link', 'dup_of');
-- Measure 1's trigger (_m1 since 5.0.0) beside it: the table key measure 2's takes, no other
-- lock (one more would deadlock the two sessions' batches, each one transaction).
CREATE TRIGGER dedup_m1 BEFORE INSERT OR UPDATE ON fuzz_sim_link FOR EACH ROW
    EXECUTE FUNCTION simhash_similarity_dedup_trigger_m1('body', '0.3', 'link', 'dup_of');

-- Tables for simhash_nearest: 4 and 2 block indexes (fuzz_rows has none).
CREATE TABLE fuzz_nn AS SELECT id, fp FROM fuzz_rows;
SELECT simhash_create_blocks('fuzz_nn', 'fp', 4);
CREATE TABLE fuzz_nn2 AS SELECT id, fp FROM fuzz_rows;
SELECT simhash_create_blocks('fuzz_nn2', 'fp', 2);

CREATE FUNCTION fuzz_int(lo int, hi int) RETURNS int LANGUAGE sql VOLATILE AS
$$ SELECT lo + floor(random() * (hi - lo + 1))::int $$;

-- A random code point that text can hold (no NUL, no surrogates): mostly from the ranges
-- where normalization, segmentation and case mapping have special cases.
CREATE FUNCTION fuzz_cp() RETURNS int LANGUAGE plpgsql VOLATILE AS $$
DECLARE r int := floor(random() * 20);
BEGIN
    RETURN CASE r
        WHEN 0 THEN fuzz_int(32, 126)                   -- ASCII
        WHEN 1 THEN fuzz_int(32, 126)
        WHEN 2 THEN fuzz_int(1, 31)                     -- controls, DEL, C1
        WHEN 3 THEN (ARRAY[127, 128, 133, 159, 160, 173])[fuzz_int(1, 6)]
        WHEN 4 THEN fuzz_int(19968, 40959)              -- CJK ideographs
        WHEN 5 THEN fuzz_int(19968, 20200)
        WHEN 6 THEN fuzz_int(768, 879)                  -- combining marks
        WHEN 7 THEN (ARRAY[12441, 12442, 8413, 6832, 1619, 3633, 820, 801])[fuzz_int(1, 8)]
        WHEN 8 THEN fuzz_int(4352, 4607)                -- Hangul jamo
        WHEN 9 THEN fuzz_int(44032, 55203)              -- Hangul syllables
        WHEN 10 THEN fuzz_int(65280, 65519)             -- half/full-width forms
        WHEN 11 THEN fuzz_int(65536, 1114111)           -- supplementary planes
        WHEN 12 THEN fuzz_int(131072, 173791)           -- CJK extension B
        WHEN 13 THEN (ARRAY[931, 963, 962, 304, 305, 223, 7838, 64257, 8490, 8491, 65018, 12849,
                            119834, 453, 8544, 8555])[fuzz_int(1, 16)] -- case and compatibility specials
        WHEN 14 THEN (ARRAY[65534, 65535, 65279, 8205, 8203, 8238, 8232, 8233, 12288, 57344,
                            63743, 983040, 1114111, 1114110, 917505, 65533])[fuzz_int(1, 16)]
        WHEN 15 THEN (ARRAY[1632, 1633, 1641, 2406, 65296, 65305, 46, 44, 12290, 65292,
                            8230, 183, 12539])[fuzz_int(1, 13)] -- other digits, dots, punctuation
        WHEN 16 THEN (ARRAY[32, 9, 10, 13, 11, 12])[fuzz_int(1, 6)]
        WHEN 17 THEN fuzz_int(1536, 1791)               -- Arabic
        ELSE CASE WHEN random() < 0.5 THEN fuzz_int(1, 55295) ELSE fuzz_int(57344, 1114111) END
    END;
END $$;

CREATE FUNCTION fuzz_chars(len int) RETURNS text LANGUAGE sql VOLATILE AS
$$ SELECT coalesce(string_agg(chr(fuzz_cp()), ''), '') FROM generate_series(1, len) $$;

-- A random text: empty, random code points, a mutated paragraph, or (rarely) long and
-- repetitive, up to about a megabyte.
CREATE FUNCTION fuzz_text() RETURNS text LANGUAGE plpgsql VOLATILE AS $$
DECLARE r int := floor(random() * 1000); p text;
BEGIN
    IF r < 30 THEN RETURN ''; END IF;
    IF r < 32 THEN RETURN repeat(fuzz_chars(fuzz_int(1, 8)), fuzz_int(1000, 100000)::int); END IF;
    IF r < 40 THEN RETURN repeat(chr(fuzz_cp()), fuzz_int(1, 5000)::int); END IF;
    IF r < 300 THEN
        SELECT body INTO p FROM fuzz_para WHERE n = fuzz_int(1, (SELECT count(*)::int FROM fuzz_para));
        p := coalesce(p, '');
        FOR j IN 1 .. fuzz_int(0, 4) LOOP
            p := overlay(p placing fuzz_chars(fuzz_int(0, 3)::int)
                         from fuzz_int(1, length(p) + 1)::int for fuzz_int(0, 3)::int);
        END LOOP;
        RETURN p;
    END IF;
    RETURN fuzz_chars(fuzz_int(1, CASE WHEN r < 900 THEN 12 ELSE 120 END)::int);
END $$;

CREATE FUNCTION fuzz_number() RETURNS jsonb LANGUAGE sql VOLATILE AS $$
SELECT (ARRAY['0', '1', '2', '3', '-1', '32', '33', '1000', '1001', '6', '2147483648', '4294967296',
              '9223372036854775808', '18446744073709551616', '2.5', '1.0', '-0', '1e300', '1e400',
              '-1e400', '1e-400', '123456789012345678901234567890', '0.1',
              (random() * 100)::text, fuzz_int(-100, 100)::text])[fuzz_int(1, 25)]::jsonb $$;

-- A random JSON value, nesting at most `depth` deep.
CREATE FUNCTION fuzz_value(depth int) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE r int := floor(random() * CASE WHEN depth > 0 THEN 10 ELSE 8 END);
BEGIN
    RETURN CASE r
        WHEN 0 THEN 'null'::jsonb
        WHEN 1 THEN to_jsonb(random() < 0.5)
        WHEN 2 THEN fuzz_number()
        WHEN 3 THEN fuzz_number()
        WHEN 4 THEN to_jsonb((ARRAY['jieba', 'ngram', 'tf', 'tfidf', 'binary', '0', '1', '1.0', '0.3.0',
                                    '2', '', ' 1 ', '1.', '.1', 'JIEBA', 'Ngram', 'icu', '-1',
                                    '１'])[fuzz_int(1, 19)])
        WHEN 5 THEN to_jsonb(fuzz_chars(fuzz_int(0, 6)::int))
        WHEN 6 THEN to_jsonb(fuzz_int(-5, 40))
        WHEN 7 THEN to_jsonb((ARRAY['definition', 'tokenizer', 'n', 'weighting', 'min_features'])[fuzz_int(1, 5)])
        WHEN 8 THEN (SELECT coalesce(jsonb_agg(fuzz_value(depth - 1)), '[]') FROM generate_series(1, fuzz_int(0, 3)))
        ELSE fuzz_options(depth - 1)
    END;
END $$;

-- Random options: mostly objects with the real keys (and typos) and random values;
-- sometimes valid ones, other top-level types, deep nesting or numbers beyond f64.
CREATE FUNCTION fuzz_options(depth int DEFAULT 2) RETURNS jsonb LANGUAGE plpgsql VOLATILE AS $$
DECLARE r int := floor(random() * 20); o jsonb := '{}'; d int;
BEGIN
    IF r = 0 THEN RETURN '{}'; END IF;
    IF r <= 4 THEN
        -- Valid, or nearly.
        IF random() < 0.5 THEN o := o || jsonb_build_object('definition', (ARRAY['0', '1', '1.0'])[fuzz_int(1, 3)]); END IF;
        IF random() < 0.5 THEN o := o || jsonb_build_object('tokenizer', (ARRAY['jieba', 'ngram'])[fuzz_int(1, 2)]); END IF;
        IF random() < 0.3 THEN o := o || jsonb_build_object('n', fuzz_int(0, 33)); END IF;
        IF random() < 0.5 THEN o := o || jsonb_build_object('weighting', (ARRAY['tfidf', 'tf', 'binary'])[fuzz_int(1, 3)]); END IF;
        IF random() < 0.3 THEN o := o || jsonb_build_object('min_features', fuzz_int(0, 1001)); END IF;
        RETURN o;
    END IF;
    IF r = 5 THEN RETURN fuzz_value(depth); END IF;
    IF r = 6 THEN
        d := fuzz_int(1, 400);
        RETURN CASE WHEN random() < 0.5 THEN (repeat('[', d) || repeat(']', d))::jsonb
                    ELSE (repeat('{"n":', d) || '1' || repeat('}', d))::jsonb END;
    END IF;
    FOR j IN 1 .. fuzz_int(1, 4) LOOP
        o := o || jsonb_build_object(
            (ARRAY['definition', 'tokenizer', 'n', 'weighting', 'min_features', 'definition', 'tokenizer',
                   'n', 'weighting', 'min_features', '', 'N', 'tokenizer ', 'tokeniser', 'min_feature',
                   fuzz_chars(fuzz_int(1, 4)::int)])[fuzz_int(1, 16)],
            fuzz_value(depth));
    END LOOP;
    RETURN o;
END $$;

CREATE FUNCTION fuzz_weight() RETURNS float8 LANGUAGE sql VOLATILE AS $$
SELECT CASE floor(random() * 12)::int
    WHEN 0 THEN 'NaN'::float8 WHEN 1 THEN 'Infinity' WHEN 2 THEN '-Infinity' WHEN 3 THEN 0
    WHEN 4 THEN '-0' WHEN 5 THEN 1e308 WHEN 6 THEN -1e308 WHEN 7 THEN 5e-324
    WHEN 8 THEN NULL ELSE (random() - 0.3) * 100 END $$;

CREATE FUNCTION fuzz_features(len int) RETURNS text[] LANGUAGE sql VOLATILE AS $$
SELECT coalesce(array_agg(CASE WHEN random() < 0.08 THEN NULL ELSE fuzz_chars(fuzz_int(0, 6)::int) END), '{}')
  FROM generate_series(1, len) $$;

CREATE FUNCTION fuzz_weights(len int) RETURNS float8[] LANGUAGE sql VOLATILE AS $$
SELECT coalesce(array_agg(fuzz_weight()), '{}') FROM generate_series(1, len) $$;

CREATE FUNCTION fuzz_bigint() RETURNS bigint LANGUAGE sql VOLATILE AS $$
SELECT CASE floor(random() * 6)::int
    WHEN 0 THEN (ARRAY[0, -1, 1, 9223372036854775807, -9223372036854775808, 4294967295, 65535,
                       -4294967296])[fuzz_int(1, 8)]
    ELSE ((random() * 4294967296)::bigint << 32) # (random() * 4294967296)::bigint END $$;

CREATE FUNCTION fuzz_small() RETURNS int LANGUAGE sql VOLATILE AS $$
SELECT CASE floor(random() * 4)::int
    WHEN 0 THEN (ARRAY[-2147483648, 2147483647, -1, 0, 1, 2, 3, 4, 15, 16, 17, 31, 32, 63, 64, 65,
                       -65, 100, 1000])[fuzz_int(1, 19)]
    ELSE fuzz_int(-2, 20) END $$;

CREATE FUNCTION fuzz_query() RETURNS text LANGUAGE sql VOLATILE AS $$
SELECT (ARRAY['SELECT id, fp FROM fuzz_rows',
              'SELECT id, fp FROM fuzz_rows WHERE fp IS NOT NULL',
              'SELECT id + 1000 * (fp % 3), fp FROM fuzz_rows',
              'SELECT fp, id FROM fuzz_rows WHERE fp IS NOT NULL',
              'SELECT NULL::bigint, 1::bigint',
              'SELECT 1::bigint, NULL::bigint',
              'SELECT id::int, fp FROM fuzz_rows',
              'SELECT id, fp, 1 FROM fuzz_rows',
              'SELECT id FROM fuzz_rows',
              'SELECT g::bigint, 0::bigint FROM generate_series(1, 300) g',
              'SELECT g::bigint, (g % 3)::bigint FROM generate_series(1, 200) g',
              'SELECT 1::bigint, 2::bigint WHERE false',
              'INSERT INTO fuzz_rows VALUES (1, 1) RETURNING id, fp',
              'SELEC 1', '', ';', 'SELECT 1/0', 'SELECT id, fp FROM no_such_table',
              'SELECT 1::bigint, 2::bigint; SELECT 3::bigint, 4::bigint',
              fuzz_chars(fuzz_int(0, 10)::int)])[fuzz_int(1, 20)] $$;

CREATE FUNCTION fuzz_seg_query() RETURNS text LANGUAGE sql VOLATILE AS $$
SELECT (ARRAY['SELECT id, segs FROM fuzz_seg',
              'SELECT id, segs FROM fuzz_seg WHERE segs IS NOT NULL',
              'SELECT id % 3, segs FROM fuzz_seg',
              'SELECT segs, id FROM fuzz_seg',
              'SELECT id::int, segs FROM fuzz_seg',
              'SELECT id, segs::int[] FROM fuzz_seg WHERE false',
              'SELECT id, ARRAY[segs, segs] FROM fuzz_seg WHERE segs IS NOT NULL AND cardinality(segs) = 2',
              'SELECT id FROM fuzz_seg',
              'SELECT g::bigint, ARRAY[1::bigint, g % 2] FROM generate_series(1, 300) g',
              'SELECT NULL::bigint, ARRAY[1::bigint]',
              'SELECT 1::bigint, NULL::bigint[]',
              'SELEC 1', '', 'SELECT 1/0',
              fuzz_chars(fuzz_int(0, 10)::int)])[fuzz_int(1, 15)] $$;

CREATE FUNCTION fuzz_theta() RETURNS float8 LANGUAGE sql VOLATILE AS $$
SELECT CASE floor(random() * 8)::int
    WHEN 0 THEN (ARRAY['NaN'::float8, 'Infinity', '-Infinity', 0, -0.5, 1, 1.5, 5e-324])[fuzz_int(1, 8)]
    ELSE random() END $$;

-- `n` random calls after setseed(seed): counts per target and SQLSTATE.
CREATE FUNCTION fuzz_batch(seed float8, n int)
RETURNS TABLE(target text, sqlstate text, calls bigint) LANGUAGE plpgsql VOLATILE AS $$
DECLARE
    outcomes text[] := '{}';
    fn text; st text; msg text; input text;
    t text; t2 text; o jsonb; f text[]; w float8[]; a bigint; b bigint; i int; m int; k int;
    r bigint; ok boolean; len int; th float8;
BEGIN
    PERFORM setseed(seed);
    SET LOCAL client_min_messages = warning;
    -- Load the library first: before, simhash.max_distance is a placeholder that takes any
    -- value, and the library's load turns a bad one into a WARNING (PostgreSQL's rule for
    -- custom settings; shared_preload_libraries avoids it).
    PERFORM simhash_max_distance();
    FOR c IN 1 .. n LOOP
        st := '00000'; input := NULL;
        BEGIN
            CASE floor(random() * 24)::int
            WHEN 0, 1 THEN
                fn := 'simhash(text)'; t := fuzz_text(); input := t;
                r := simhash(t);
            WHEN 2, 3, 4 THEN
                fn := 'simhash(text, jsonb)'; t := fuzz_text(); o := fuzz_options(); input := o::text;
                IF random() < 0.3 THEN
                    -- The options as text (2.2.0), whole or cut short.
                    fn := 'simhash(text, text)';
                    input := CASE WHEN random() < 0.8 THEN o::text ELSE left(o::text, fuzz_int(0, 12)::int) END;
                    r := simhash(t, input);
                ELSE
                    r := simhash(t, o);
                END IF;
            WHEN 5 THEN
                fn := 'simhash_v0(text, jsonb)'; t := fuzz_text(); o := fuzz_options(); input := o::text;
                r := CASE WHEN random() < 0.3 THEN simhash_v0(t) ELSE simhash_v0(t, o) END;
            WHEN 6 THEN
                fn := 'simhash_features(text, jsonb)'; t := fuzz_text(); o := fuzz_options(); input := o::text;
                SELECT count(*) INTO r FROM simhash_features(t, o);
            WHEN 7, 8 THEN
                fn := 'simhash(text[], float8[])';
                len := CASE WHEN random() < 0.01 THEN fuzz_int(100, 3000) ELSE fuzz_int(0, 6) END;
                f := fuzz_features(len);
                w := fuzz_weights(CASE WHEN random() < 0.8 THEN len ELSE fuzz_int(0, 7)::int END);
                CASE floor(random() * 8)::int
                WHEN 0 THEN f := ARRAY[f, f]; w := ARRAY[w, w];         -- two-dimensional
                WHEN 1 THEN f := ARRAY[f]; w := ARRAY[w];               -- 1 x len
                WHEN 2 THEN f := '[0:1]={a,b}'; w := '[5:6]={1,2}';    -- other lower bounds
                WHEN 3 THEN f := '{}'; w := '{}';
                ELSE NULL;
                END CASE;
                input := f::text || ' ' || w::text;
                r := simhash(f, w);
            WHEN 9 THEN
                fn := 'hamming'; a := fuzz_bigint(); b := fuzz_bigint();
                r := hamming(a, b) + (a <~> b);
            WHEN 10 THEN
                fn := 'simhash_block'; a := fuzz_bigint(); i := fuzz_small(); m := fuzz_small();
                input := format('%s, %s, %s', a, i, m);
                r := simhash_block(a, i, m);
            WHEN 11 THEN
                fn := 'simhash_probes'; a := fuzz_bigint(); i := fuzz_small(); m := fuzz_small(); k := fuzz_small();
                input := format('%s, %s, %s, %s', a, i, m, k);
                r := cardinality(simhash_probes(a, i, m, k));
            WHEN 12, 13 THEN
                fn := 'simhash_near'; a := fuzz_bigint(); b := fuzz_bigint(); k := fuzz_small();
                input := format('%s, %s, %s', a, b, k);
                IF random() < 0.5 THEN
                    ok := simhash_near(a, b, k);
                ELSE
                    fn := '~= (simhash.max_distance)';
                    PERFORM set_config('simhash.max_distance', k::text, true);
                    ok := a ~= b;
                END IF;
            WHEN 16 THEN
                -- Key routing over shards: shard counts and blocks at the edges.
                a := fuzz_bigint(); b := fuzz_bigint(); i := fuzz_small(); m := fuzz_small(); k := fuzz_small();
                input := format('%s, %s, %s, %s, %s', a, b, i, k, m);
                CASE floor(random() * 3)::int
                WHEN 0 THEN fn := 'simhash_key_owner'; r := simhash_key_owner(a, i, k, m);
                WHEN 1 THEN fn := 'simhash_key_owners'; r := cardinality(simhash_key_owners(a, k, m));
                ELSE fn := 'simhash_pair_owner'; r := simhash_pair_owner(a, b, k, m);
                END CASE;
            WHEN 17 THEN
                fn := 'simhash_components'; t := fuzz_query(); input := t;
                SELECT count(*) INTO r FROM simhash_components(t);
            WHEN 18 THEN
                -- Nearest neighbours through block indexes: 2 and 4 blocks, or none.
                fn := 'simhash_nearest'; a := fuzz_bigint(); i := fuzz_small();
                t := (ARRAY['fuzz_nn', 'fuzz_nn2', 'fuzz_rows'])[fuzz_int(1, 3)];
                input := format('%s, %s, %s', t, a, i);
                SELECT count(*) INTO r FROM simhash_nearest(t::regclass, 'fp', a, i);
            WHEN 19 THEN
                fn := 'simhash_segments(text, jsonb)'; t := fuzz_text(); o := fuzz_options(); input := o::text;
                IF random() < 0.3 THEN
                    -- Why two texts match (2.2.0), with the option max_distance, in range or not.
                    fn := 'simhash_explain';
                    IF random() < 0.5 THEN
                        o := o || jsonb_build_object('max_distance', fuzz_small());
                    END IF;
                    input := o::text;
                    SELECT count(*) INTO r FROM simhash_explain(t, fuzz_text(), o);
                ELSE
                    r := cardinality(CASE WHEN random() < 0.3 THEN simhash_segments(t) ELSE simhash_segments(t, o) END);
                END IF;
            WHEN 20 THEN
                -- Segment arrays: random bigints and NULLs, repeats, and a text's own segments.
                fn := 'simhash_resemblance/containment';
                a := fuzz_bigint(); b := fuzz_bigint(); t := fuzz_text(); input := format('%s, %s', a, b);
                k := fuzz_small();
                IF random() < 0.5 THEN
                    r := (simhash_resemblance(ARRAY[a, b, NULL, a], simhash_segments(t)) * 1000)::bigint;
                ELSIF random() < 0.5 THEN
                    r := (simhash_containment(simhash_segments(t), ARRAY[b, a]) * 1000)::bigint;
                ELSE
                    -- Within k bits (2.1.0); k outside 0..64 is 22023.
                    input := format('%s, %s, %s', a, b, k);
                    r := (CASE WHEN random() < 0.5 THEN simhash_resemblance(simhash_segments(t), ARRAY[a, b, NULL], k)
                          ELSE simhash_containment(ARRAY[b, a, b], simhash_segments(t), k) END * 1000)::bigint;
                END IF;
            WHEN 21 THEN
                fn := 'simhash_segment_pairs/clusters'; t := fuzz_seg_query(); th := fuzz_theta(); k := fuzz_small();
                input := format('%s, %s, %s', t, th, k);
                b := CASE WHEN random() < 0.5 THEN 0 ELSE fuzz_small() END;
                input := input || ', ' || b;
                IF random() < 0.5 THEN
                    SELECT count(*) INTO r FROM simhash_segment_pairs(t, th, k, b::int);
                ELSE
                    SELECT count(*) INTO r FROM simhash_segment_clusters(t, th, k, b::int);
                END IF;
            WHEN 22 THEN
                -- The dedup trigger, under random bounds of frequent passages.
                fn := 'simhash_segments_dedup_trigger'; t := fuzz_text(); k := fuzz_small(); input := t;
                IF random() < 0.3 THEN
                    PERFORM set_config('simhash.segment_max_rows', k::text, true);
                END IF;
                CASE floor(random() * 5)::int
                WHEN 0 THEN INSERT INTO fuzz_dedup_reject(body) VALUES (t);
                WHEN 1 THEN INSERT INTO fuzz_dedup_skip(body) VALUES (t);
                WHEN 2 THEN UPDATE fuzz_dedup_link SET body = t WHERE id = (SELECT max(id) FROM fuzz_dedup_link);
                     INSERT INTO fuzz_dedup_link(body) VALUES (t);
                -- The similarity dedup trigger, by its index and by a scan (with measure 1's).
                WHEN 3 THEN fn := 'simhash_similarity_dedup_trigger'; INSERT INTO fuzz_sim_reject(body) VALUES (t);
                ELSE fn := 'simhash_similarity_dedup_trigger';
                     UPDATE fuzz_sim_link SET body = t WHERE id = (SELECT max(id) FROM fuzz_sim_link);
                     INSERT INTO fuzz_sim_link(body) VALUES (t);
                END CASE;
            WHEN 23 THEN
              IF random() < 0.2 THEN
                -- The check query of a segment dedup trigger, from fuzzed arguments.
                fn := 'simhash_segments_dedup_query';
                t := (ARRAY['fuzz_dedup_reject', 'fuzz_dedup_link', 'fuzz_seg', 'fuzz_rows'])[fuzz_int(1, 4)];
                f := ARRAY['segs', 'body', fuzz_theta()::text, (ARRAY['reject', 'skip', 'link', 'x'])[fuzz_int(1, 4)]]
                     || fuzz_features(fuzz_int(0, 2)::int);
                input := t || ' ' || f::text;
                IF random() < 0.5 THEN
                    SELECT length(simhash_segments_dedup_query(t::regclass, VARIADIC f)) INTO r;
                ELSE
                    -- The similarity trigger's: a text column, a bound, an action, perhaps
                    -- a link column and options (min_containment or fuzzed ones).
                    fn := 'simhash_similarity_dedup_query';
                    t := (ARRAY['fuzz_sim_reject', 'fuzz_sim_link', 'fuzz_seg', 'fuzz_rows'])[fuzz_int(1, 4)];
                    f := ARRAY[(ARRAY['body', 'segs', 'id'])[fuzz_int(1, 3)], fuzz_theta()::text,
                               (ARRAY['reject', 'skip', 'link', 'x'])[fuzz_int(1, 4)]]
                         || CASE fuzz_int(1, 4) WHEN 1 THEN ARRAY[]::text[] WHEN 2 THEN ARRAY['dup_of']
                                 WHEN 3 THEN ARRAY[format('{"min_containment": %s}', fuzz_theta())]
                                 ELSE fuzz_features(1) END;
                    input := t || ' ' || f::text;
                    -- Measure 1's every third time (not by random(): the inputs stay as they were).
                    IF c % 3 > 0 THEN
                        SELECT length(simhash_similarity_dedup_query(t::regclass, VARIADIC f)) INTO r;
                    ELSE
                        fn := 'simhash_similarity_dedup_query_m1';
                        SELECT length(simhash_similarity_dedup_query_m1(t::regclass, VARIADIC f)) INTO r;
                    END IF;
                END IF;
              ELSE
                fn := 'simhash_similar'; t := fuzz_text(); th := fuzz_theta(); k := fuzz_small(); a := fuzz_bigint();
                b := CASE WHEN random() < 0.5 THEN 0 ELSE fuzz_small() END;
                input := format('%s, %s, %s, %s', th, k, b, t);
                SELECT count(*) INTO r FROM simhash_similar('fuzz_seg', 'segs',
                    CASE WHEN random() < 0.7 THEN simhash_segments(t) ELSE ARRAY[a, NULL, a] END, th, k, b::int);
              END IF;
            ELSE
                t := fuzz_query(); k := fuzz_small(); input := format('%s, %s', t, k);
                IF random() < 0.33 THEN
                    fn := 'simhash_duplicates'; SELECT count(*) INTO r FROM simhash_duplicates(t, k);
                ELSIF random() < 0.5 THEN
                    -- The two-query form: a batch against a corpus, the corpus through a
                    -- cursor that each fetch finds again by name.
                    fn := 'simhash_duplicates(b, c)'; t2 := fuzz_query();
                    input := format('%s, %s, %s', t, t2, k);
                    SELECT count(*) INTO r FROM simhash_duplicates(t, t2, k);
                ELSE
                    fn := 'simhash_clusters'; SELECT count(*) INTO r FROM simhash_clusters(t, k);
                END IF;
            END CASE;
        EXCEPTION WHEN OTHERS THEN
            GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT;
            IF st LIKE 'XX%' AND (SELECT count(*) FROM fuzz_internal) < 50 THEN
                INSERT INTO fuzz_internal VALUES (fn, st, msg, left(input, 2000));
            END IF;
        END;
        outcomes := outcomes || (fn || '|' || st);
    END LOOP;
    RETURN QUERY SELECT split_part(x, '|', 1), split_part(x, '|', 2), count(*)
                   FROM unnest(outcomes) x GROUP BY 1, 2;
END $$;
