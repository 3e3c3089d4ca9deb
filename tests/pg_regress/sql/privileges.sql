-- Privileges (issue 11, part 3; docs/security.md):
-- 1. the dedup trigger's check runs with the table owner's rights, so a role with only
--    INSERT can load a table that has the trigger, under reject, skip and link;
-- 2. DETAIL (and skip's DEBUG1 message) names the existing row's key only to a user who
--    may SELECT every key column and is not under row-level security, as a UNIQUE
--    violation's DETAIL does;
-- 3. a hostile search_path cannot redirect the trigger's query or the extension's SQL and
--    PL/pgSQL functions to other objects;
-- 4. the extension is trusted: a database owner without superuser can create it.
-- Roles are cluster-wide: every one is named simhash_regress_* and dropped at the end.
CREATE EXTENSION IF NOT EXISTS simhash;
SET client_min_messages = warning;
DROP DATABASE IF EXISTS simhash_regress_trusted;
DROP ROLE IF EXISTS simhash_regress_owner, simhash_regress_inserter, simhash_regress_reader,
    simhash_regress_colreader, simhash_regress_attacker, simhash_regress_dbowner,
    simhash_regress_inserter_db;
RESET client_min_messages;
\set regress_db :DBNAME

-- priv_try(sql): 'ok', or the error as SQLSTATE: message / DETAIL (callable by every role).
CREATE FUNCTION priv_try(sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE st text; msg text; det text;
BEGIN
    EXECUTE sql;
    RETURN 'ok';
EXCEPTION WHEN OTHERS THEN
    GET STACKED DIAGNOSTICS st = RETURNED_SQLSTATE, msg = MESSAGE_TEXT, det = PG_EXCEPTION_DETAIL;
    RETURN st || ': ' || msg || coalesce(' DETAIL: ' || nullif(det, ''), '');
END $$;
-- priv_as(role, sql): priv_try(sql) as the role.
CREATE FUNCTION priv_as(role name, sql text) RETURNS text LANGUAGE plpgsql AS $$
DECLARE r text;
BEGIN
    EXECUTE format('SET ROLE %I', role);
    r := priv_try(sql);
    RESET ROLE;
    RETURN r;
END $$;

-- A real paragraph, a variant of it within distance 1..3, and an unrelated paragraph.
SELECT body AS orig, variant, d AS distance FROM (
    SELECT body, overlay(body placing '某' from length(body) / 2 for 1) AS variant,
           hamming(simhash(body), simhash(overlay(body placing '某' from length(body) / 2 for 1))) AS d, id
      FROM corpus WHERE length(body) BETWEEN 60 AND 200) x
 WHERE d BETWEEN 1 AND 3 ORDER BY id LIMIT 1 \gset
\echo distance :distance
SELECT body AS other FROM corpus WHERE length(body) BETWEEN 60 AND 200
   AND hamming(simhash(body), simhash(:'orig')) > 10 ORDER BY id LIMIT 1 \gset

CREATE ROLE simhash_regress_owner;
CREATE ROLE simhash_regress_inserter;
CREATE ROLE simhash_regress_reader;
CREATE ROLE simhash_regress_colreader;

-- Tables owned by a plain role, one per action; the original paragraph is in each.
CREATE TABLE priv_reject(id int PRIMARY KEY, body text, fp bigint);
CREATE TABLE priv_skip(id int PRIMARY KEY, body text, fp bigint);
CREATE TABLE priv_link(id int PRIMARY KEY, body text, fp bigint, dup_of int);
SELECT simhash_create_blocks(t, 'fp', 4, include_fingerprint => true)
  FROM unnest(ARRAY['priv_reject', 'priv_skip', 'priv_link']::regclass[]) t;
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON priv_reject
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON priv_skip
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'skip');
CREATE TRIGGER dedup BEFORE INSERT OR UPDATE OF body ON priv_link
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'link', 'dup_of');
INSERT INTO priv_reject(id, body) VALUES (1, :'orig');
INSERT INTO priv_skip(id, body) VALUES (1, :'orig');
INSERT INTO priv_link(id, body) VALUES (1, :'orig');
ALTER TABLE priv_reject OWNER TO simhash_regress_owner;
ALTER TABLE priv_skip OWNER TO simhash_regress_owner;
ALTER TABLE priv_link OWNER TO simhash_regress_owner;
GRANT INSERT ON priv_reject, priv_skip, priv_link TO simhash_regress_inserter;
GRANT SELECT, INSERT ON priv_reject TO simhash_regress_reader;
-- SELECT on every column but the key.
GRANT INSERT, SELECT (body, fp) ON priv_reject TO simhash_regress_colreader;

-- 1. INSERT only. A new text goes in; a near-duplicate is rejected as by a unique index
--    (23505), not with "permission denied", and DETAIL names no key.
SET ROLE simhash_regress_inserter;
SELECT priv_try(format('INSERT INTO priv_reject(id, body) VALUES (2, %L)', :'other'));
SELECT priv_try(format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
-- The same under REPEATABLE READ, where the check may run a second time.
BEGIN ISOLATION LEVEL REPEATABLE READ;
SELECT priv_try(format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
COMMIT;
-- skip: the row is not written; its DEBUG1 message names no key either.
SET client_min_messages = debug1;
INSERT INTO priv_skip(id, body) VALUES (3, :'variant');
RESET client_min_messages;
-- link: the row is written, linked to the original. The inserter chose no key, but the
-- table owner chose link: the key is the value the row gets.
INSERT INTO priv_link(id, body) VALUES (3, :'variant');
SELECT priv_try('SELECT count(*) FROM priv_reject');
RESET ROLE;
SELECT id, fp = simhash(body) AS fp_set FROM priv_reject ORDER BY id;
SELECT id FROM priv_skip ORDER BY id;
SELECT id, dup_of FROM priv_link ORDER BY id;
-- The user id is restored after the check query: the session is the inserter again.
SET ROLE simhash_regress_inserter;
INSERT INTO priv_link(id, body) VALUES (4, :'orig');
SELECT current_user;
RESET ROLE;
-- The check runs with the owner's rights, not the inserter's: with EXECUTE on hamming
-- granted to the inserter but not to the owner, the check fails. After the error (caught
-- in priv_try's subtransaction) the session is the inserter again.
REVOKE EXECUTE ON FUNCTION hamming(bigint, bigint) FROM PUBLIC;
GRANT EXECUTE ON FUNCTION hamming(bigint, bigint) TO simhash_regress_inserter;
SET ROLE simhash_regress_inserter;
SELECT priv_try(format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant')), current_user;
RESET ROLE;
GRANT EXECUTE ON FUNCTION hamming(bigint, bigint) TO PUBLIC;
REVOKE EXECUTE ON FUNCTION hamming(bigint, bigint) FROM simhash_regress_inserter;
-- The bulk functions run their query text as the caller: no way around SELECT there.
SELECT priv_as('simhash_regress_inserter', $$SELECT count(*) FROM simhash_duplicates('SELECT id::bigint, fp FROM priv_reject')$$);

-- 2. A role that may SELECT the table gets the key; one with SELECT on every column but
--    the key does not; SELECT on the key column alone is enough.
SELECT priv_as('simhash_regress_reader', format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
SELECT priv_as('simhash_regress_colreader', format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
GRANT SELECT (id) ON priv_reject TO simhash_regress_colreader;
SELECT priv_as('simhash_regress_colreader', format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
-- A composite key: SELECT on one of its columns is not enough.
CREATE TABLE priv_pk2(a int, b int, body text, fp bigint, PRIMARY KEY (a, b));
CREATE TRIGGER dedup BEFORE INSERT ON priv_pk2
    FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
INSERT INTO priv_pk2(a, b, body) VALUES (1, 1, :'orig');
ALTER TABLE priv_pk2 OWNER TO simhash_regress_owner;
GRANT INSERT, SELECT (a, body) ON priv_pk2 TO simhash_regress_colreader;
SELECT priv_as('simhash_regress_colreader', format('INSERT INTO priv_pk2(a, b, body) VALUES (1, 2, %L)', :'variant'));
GRANT SELECT (b) ON priv_pk2 TO simhash_regress_colreader;
SELECT priv_as('simhash_regress_colreader', format('INSERT INTO priv_pk2(a, b, body) VALUES (1, 2, %L)', :'variant'));
-- Row-level security: the check sees every row, as a unique index does (the policy hides
-- the original from the reader), and DETAIL never names a key under RLS, even to a role
-- with SELECT (as BuildIndexValueDescription); FORCE makes no difference.
ALTER TABLE priv_reject ENABLE ROW LEVEL SECURITY;
CREATE POLICY everything ON priv_reject TO simhash_regress_reader USING (id > 1) WITH CHECK (true);
SET ROLE simhash_regress_reader;
SELECT id FROM priv_reject ORDER BY id;
SELECT priv_try(format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
RESET ROLE;
ALTER TABLE priv_reject FORCE ROW LEVEL SECURITY;
SELECT priv_as('simhash_regress_reader', format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
ALTER TABLE priv_reject NO FORCE ROW LEVEL SECURITY;
ALTER TABLE priv_reject DISABLE ROW LEVEL SECURITY;
-- A superuser, and the table owner, see the key.
SELECT priv_try(format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));
SELECT priv_as('simhash_regress_owner', format('INSERT INTO priv_reject(id, body) VALUES (3, %L)', :'variant'));

-- 3. A hostile search_path. The attacker may insert into the tables, and puts first in its
--    search_path a schema with look-alikes of everything the trigger's query and the
--    extension's SQL functions use: functions, operators and a table of the same names.
--    Each look-alike reports that it ran, and as whom. None may run.
CREATE ROLE simhash_regress_attacker;
GRANT INSERT ON priv_reject, priv_pk2 TO simhash_regress_attacker;
CREATE SCHEMA simhash_regress_evil AUTHORIZATION simhash_regress_attacker;
SET ROLE simhash_regress_attacker;
SET search_path = simhash_regress_evil;
CREATE FUNCTION evil(what text) RETURNS void LANGUAGE plpgsql AS $$
BEGIN RAISE WARNING 'hijacked: % ran as %', what, current_user; END $$;
CREATE FUNCTION hamming(a bigint, b bigint) RETURNS int LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('hamming'); RETURN 0; END $$;
CREATE FUNCTION simhash_near(a bigint, b bigint, k int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('simhash_near'); RETURN true; END $$;
CREATE FUNCTION simhash_block(a bigint, i int, n int) RETURNS int LANGUAGE plpgsql IMMUTABLE AS $$
BEGIN PERFORM simhash_regress_evil.evil('simhash_block'); RETURN 0; END $$;
CREATE FUNCTION simhash_features_utf8(doc bytea, options jsonb) RETURNS TABLE(feature bytea, weight float8)
    LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('simhash_features_utf8'); RETURN; END $$;
CREATE FUNCTION convert_from(b bytea, enc name) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('convert_from'); RETURN 'x'; END $$;
CREATE FUNCTION convert_to(t text, enc name) RETURNS bytea LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('convert_to'); RETURN '\x78'; END $$;
CREATE FUNCTION textcat(a text, b text) RETURNS text LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('text || text'); RETURN a OPERATOR(pg_catalog.||) b; END $$;
CREATE FUNCTION jsonb_concat(a jsonb, b jsonb) RETURNS jsonb LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('jsonb || jsonb'); RETURN a OPERATOR(pg_catalog.||) b; END $$;
CREATE FUNCTION int4eq(a int, b int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('int = int'); RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE FUNCTION int4lt(a int, b int) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('int < int'); RETURN a OPERATOR(pg_catalog.<) b; END $$;
CREATE FUNCTION int8eq(a bigint, b bigint) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('bigint = bigint'); RETURN a OPERATOR(pg_catalog.=) b; END $$;
CREATE FUNCTION tidne(a tid, b tid) RETURNS boolean LANGUAGE plpgsql AS $$
BEGIN PERFORM simhash_regress_evil.evil('tid <> tid'); RETURN a OPERATOR(pg_catalog.<>) b; END $$;
CREATE OPERATOR || (LEFTARG = text, RIGHTARG = text, FUNCTION = textcat);
CREATE OPERATOR || (LEFTARG = jsonb, RIGHTARG = jsonb, FUNCTION = jsonb_concat);
CREATE OPERATOR = (LEFTARG = int, RIGHTARG = int, FUNCTION = int4eq);
CREATE OPERATOR < (LEFTARG = int, RIGHTARG = int, FUNCTION = int4lt);
CREATE OPERATOR = (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = int8eq);
CREATE OPERATOR <> (LEFTARG = tid, RIGHTARG = tid, FUNCTION = tidne);
CREATE OPERATOR <~> (LEFTARG = bigint, RIGHTARG = bigint, FUNCTION = hamming);
CREATE TABLE priv_reject(id int, body text, fp bigint);
CREATE TABLE priv_pk2(a int, b int, body text, fp bigint);
-- Look-alikes first, pg_catalog after them (pg_catalog is searched first unless listed).
SET search_path = simhash_regress_evil, pg_catalog, public;
SELECT public.priv_try(format('INSERT INTO public.priv_reject(id, body) VALUES (3, %L)', :'variant'));
SELECT public.priv_try(format('INSERT INTO public.priv_pk2(a, b, body) VALUES (1, 3, %L)', :'variant'));
-- The extension's SQL functions, and its PL/pgSQL function on a table of the attacker.
SELECT count(*) > 5 AS features FROM public.simhash_features(:'orig');
SELECT (SELECT count(*) FROM public.simhash_explain(:'orig', :'variant') WHERE in_a AND in_b) > 5 AS explained,
       (SELECT count(*) FROM public.simhash_explain_m1(:'orig', :'variant') WHERE in_a AND in_b) > 5 AS explained_m1;
SELECT public.simhash_similarity_measure_owners(:'orig', 3, 1) = public.simhash_similarity_owners_m1(:'orig', 3) AS owners_m1,
       public.simhash_similarity_measure_owners(:'orig', 3, 2) = public.simhash_similarity_owners(:'orig', 3) AS owners;
SELECT count(*) > 5 AS features FROM public.simhash_features(:'orig', '{"tokenizer": "ngram"}');
CREATE TABLE simhash_regress_evil.mine(id int PRIMARY KEY, fp bigint);
SELECT public.simhash_create_blocks('simhash_regress_evil.mine', 'fp', 4, true);
INSERT INTO simhash_regress_evil.mine VALUES (1, 12345);
SELECT fp_block0_of4 OPERATOR(pg_catalog.=) public.simhash_block(12345, 0, 4) AS block_is_the_extensions
  FROM simhash_regress_evil.mine;
RESET ROLE;
-- The generated column calls the extension's simhash_block (qualified when shown with
-- only pg_catalog in the search_path).
SET search_path = pg_catalog;
SELECT pg_get_expr(adbin, adrelid) AS generation FROM pg_attrdef
 WHERE adrelid = 'simhash_regress_evil.mine'::regclass ORDER BY adnum LIMIT 1;
RESET search_path;
-- Nothing got in.
SELECT count(*) AS rows FROM priv_reject;
SELECT count(*) AS rows FROM priv_pk2;
-- The extension's SQL and PL/pgSQL functions pin their names: pg_catalog qualified, or a
-- fixed search_path. (simhash_duplicates, simhash_segment_pairs and simhash_similarity_pairs call only
-- @extschema@.*_stream functions: a fixed search_path would stop PostgreSQL from inlining them, and so
-- from streaming; simhash_explain and simhash_segments_explain call only @extschema@ functions, as do
-- measure 1's SQL wrappers (_m1) and simhash_similarity_measure_owners, whose `=` is pg_catalog's,
-- named; and the procedure simhash_create_segments commits, which a procedure with a SET clause cannot.)
SELECT p.proname, l.lanname, p.proconfig FROM pg_proc p JOIN pg_language l ON l.oid = p.prolang
 WHERE l.lanname IN ('sql', 'plpgsql') AND p.oid IN
       (SELECT objid FROM pg_depend WHERE refclassid = 'pg_extension'::regclass
           AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'simhash') AND deptype = 'e')
 ORDER BY 1;

-- No function of the extension is SECURITY DEFINER.
SELECT count(*) AS security_definer FROM pg_proc
 WHERE prosecdef AND oid IN (SELECT objid FROM pg_depend WHERE refclassid = 'pg_extension'::regclass
           AND refobjid = (SELECT oid FROM pg_extension WHERE extname = 'simhash') AND deptype = 'e');

-- 4. Trusted: the owner of a database, without superuser, creates the extension (as
--    with pg_trgm). Its objects belong to the bootstrap superuser, the extension to the
--    database owner; a role without CREATE on the database (PUBLIC has none by default)
--    cannot create it.
CREATE ROLE simhash_regress_dbowner LOGIN;
CREATE DATABASE simhash_regress_trusted OWNER simhash_regress_dbowner;
\c simhash_regress_trusted simhash_regress_dbowner
SELECT rolsuper FROM pg_roles WHERE rolname = current_user;
CREATE EXTENSION simhash;
SELECT e.extname, pg_get_userbyid(e.extowner) AS extension_owner,
       pg_get_userbyid(p.proowner) AS function_owner
  FROM pg_extension e, pg_proc p WHERE e.extname = 'simhash' AND p.oid = 'simhash(text)'::regprocedure;
SELECT simhash(:'orig') = simhash(:'orig') AS works, hamming(simhash(:'orig'), simhash(:'variant')) = :distance AS same_distance;
CREATE TABLE docs(id int PRIMARY KEY, body text, fp bigint);
SELECT simhash_create_blocks('docs', 'fp', 4, true);
CREATE TRIGGER dedup BEFORE INSERT ON docs FOR EACH ROW EXECUTE FUNCTION simhash_dedup_trigger('fp', 'body', '3', 'reject');
INSERT INTO docs(id, body) VALUES (1, :'orig');
INSERT INTO docs(id, body) VALUES (2, :'variant');
DROP EXTENSION simhash CASCADE;
-- The script names its schema (@extschema@); a schema name that could break out of the
-- quoting is refused by PostgreSQL (15.4 and later).
CREATE SCHEMA "evil$$schema";
CREATE EXTENSION simhash SCHEMA "evil$$schema";
\c simhash_regress_trusted postgres
CREATE ROLE simhash_regress_inserter_db LOGIN;
\c simhash_regress_trusted simhash_regress_inserter_db
CREATE EXTENSION simhash;
\c :regress_db postgres
DROP DATABASE simhash_regress_trusted;

-- Cleanup: the tables and roles.
DROP TABLE priv_reject, priv_skip, priv_link, priv_pk2;
SET client_min_messages = warning;
DROP SCHEMA simhash_regress_evil CASCADE;
RESET client_min_messages;
DROP ROLE simhash_regress_owner, simhash_regress_inserter, simhash_regress_reader,
    simhash_regress_colreader, simhash_regress_attacker, simhash_regress_dbowner,
    simhash_regress_inserter_db;
DROP FUNCTION priv_as(name, text), priv_try(text);
