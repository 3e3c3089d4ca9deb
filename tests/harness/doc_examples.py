#!/usr/bin/env python3
"""Runs every ```sql example of README.md and docs/*.md on a real server, as written
(tests/integration/doc_examples.sh; issue 30: a newcomer's first examples must not fail).

Each file's examples run in order in one database of their own, as a reader follows the
page, after the fixture below creates the tables the page assumes and never creates. A block
listed in FRESH runs instead in a database of its own (with the fixture), when the page
shows it before the table it needs; docs/scaling-out.md's shard and coordinator set-ups run
in two databases, the coordinator's server pointed at the shard's (its similarity copies'
shard set-up too, in the shard's). A statement followed by the
lines

    -- ERROR:  <message>
    -- DETAIL:  <detail>

is expected to fail with exactly that message (and DETAIL); any other error fails the test
with the page and line of the statement. Prints one line per block; exits 1 on any failure.

Usage: doc_examples.py ROOT   (PGHOST, PGPORT and PGUSER of a running cluster, the
extension installed, the corpus in target/corpus)
"""

import os
import re
import subprocess
import sys
import tempfile

ROOT = sys.argv[1]
CORPUS = os.path.join(ROOT, "target/corpus/peoples_daily_199801.txt")

# What the pages assume exists: a table of news paragraphs (README creates its own).
NEWS = f"""
CREATE EXTENSION IF NOT EXISTS simhash;
CREATE TABLE news(id serial PRIMARY KEY, body text NOT NULL, fp bigint);
CREATE TEMP TABLE corpus_lines(body text);
\\copy corpus_lines FROM '{CORPUS}'
INSERT INTO news(body) SELECT body FROM corpus_lines LIMIT 2000;
UPDATE news SET fp = simhash(body);
"""
# A table of documents with a fingerprint, and one to import from.
DOCS = NEWS + """
CREATE TABLE docs(id bigint PRIMARY KEY, body text, fp bigint, dup_of bigint);
INSERT INTO docs(id, body, fp) SELECT id, body, fp FROM news;
"""

# Rows to import (docs/fingerprints.md's staged load).
CRAWL = """
CREATE TABLE crawl_import(body text);
INSERT INTO crawl_import VALUES ('中共中央总书记、国家主席江泽民发表1998年新年讲话。');
"""

FIXTURES = {
    "README.md": "CREATE EXTENSION simhash;",
    "docs/fingerprint.md": DOCS,
    "docs/fingerprints.md": NEWS + CRAWL,
    "docs/similarity.md": NEWS,
    "docs/decision.md": NEWS,
    "docs/performance.md": NEWS + "CREATE TABLE docs AS SELECT id, body FROM news;",
    "docs/segments.md": NEWS + "CALL simhash_create_segments('news', 'body');",
    "docs/scaling-out.md": "",
}
# (page, the first line of a block): run in a database of its own, after this fixture.
FRESH = {
    # README's first block creates the extension and indexes a news table it has not made yet.
    ("README.md", "CREATE EXTENSION simhash;"): f"""
CREATE TABLE news(id serial PRIMARY KEY, body text NOT NULL);
\\copy news(body) FROM '{CORPUS}'
""",
    ("docs/segments.md", "CREATE TRIGGER docs_dedup BEFORE INSERT OR UPDATE OF body, body_segments ON docs FOR EACH ROW"):
        NEWS + """
CREATE TABLE docs(id bigint PRIMARY KEY, body text, body_segments bigint[]);""",
}
# The coordinator of docs/scaling-out.md: the role its user mapping names, and the pair
# tables of shards 1 and 2, which its "... likewise" comments leave out (empty local tables
# here); after its set-up, server shard0 pointed at the database of the shard set-up.
COORDINATOR_BEFORE = """
DO $$ BEGIN CREATE ROLE app; EXCEPTION WHEN duplicate_object THEN NULL; END $$;
CREATE TABLE doc_pairs_1 (id1 bigint, id2 bigint, distance int);
CREATE TABLE doc_pairs_2 (id1 bigint, id2 bigint, distance int);
CREATE TABLE doc_sim_pairs_1 (id1 bigint, id2 bigint, similarity float8);
CREATE TABLE doc_sim_pairs_2 (id1 bigint, id2 bigint, similarity float8);
"""
# The shard's bulk-pairs set-up names servers shard1 and shard2, "as the coordinator has":
# here both point back at the shard's own database, whose docs stand in for theirs.
SHARD_PEERS = """
CREATE EXTENSION IF NOT EXISTS postgres_fdw;
CREATE SERVER shard1 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '{host}', dbname 'doc_examples_shard0');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard1;
CREATE SERVER shard2 FOREIGN DATA WRAPPER postgres_fdw OPTIONS (host '{host}', dbname 'doc_examples_shard0');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard2;
"""
COORDINATOR_AFTER = """
ALTER SERVER shard0 OPTIONS (SET host '{host}', SET dbname 'doc_examples_shard0');
CREATE USER MAPPING FOR CURRENT_USER SERVER shard0;
"""

failures = 0
databases = []


def psql(db, script, path=None):
    """Runs script in db: (exit status, stderr)."""
    with tempfile.NamedTemporaryFile("w", suffix=".sql", delete=False) as f:
        f.write(script)
    try:
        p = subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", db, "-f", f.name],
                           stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        return p.returncode, p.stderr.replace(f.name, path or "script")
    finally:
        os.unlink(f.name)


def database(name, fixture):
    subprocess.run(["dropdb", "--if-exists", name], check=True, stderr=subprocess.DEVNULL)
    subprocess.run(["createdb", name], check=True)
    databases.append(name)
    rc, err = psql(name, "SET client_min_messages = warning;\n" + fixture)
    if rc != 0:
        sys.exit(f"FAIL fixture of {name}: {err}")


def blocks(page):
    """The ```sql blocks of a page: (line of the first SQL line, lines)."""
    out, cur = [], None
    with open(os.path.join(ROOT, page), encoding="utf-8") as f:
        for n, line in enumerate(f, 1):
            if cur is None and line.rstrip() == "```sql":
                cur = (n + 1, [])
            elif cur is not None and line.rstrip() == "```":
                out.append(cur)
                cur = None
            elif cur is not None:
                cur[1].append(line.rstrip("\n"))
    return out


def statements(lines):
    """(first line index, last line index, expected error, expected detail) per statement:
    a statement ends at a line ending in ';' (before any -- comment) outside $$ bodies."""
    out, start, dollar = [], None, False
    for i, line in enumerate(lines):
        code = line if dollar else line.split("--", 1)[0]
        if start is None and code.strip():
            start = i
        if line.count("$$") % 2:
            dollar = not dollar
        if start is not None and not dollar and code.rstrip().endswith(";"):
            error = detail = None
            for follow in lines[i + 1:]:
                m = re.match(r"--\s*(ERROR|DETAIL):\s+(.*)", follow)
                if not m:
                    break
                if m.group(1) == "ERROR":
                    error = m.group(2)
                else:
                    detail = m.group(2)
            out.append((start, i, error, detail))
            start = None
    return out


def run_block(page, first, lines, db):
    """Runs one block in db; prints ok or FAIL with the page and line."""
    global failures
    script, where = [], []   # the script, and for each of its lines the page's line
    expected = {}
    found = statements(lines)
    # Text after the last statement that is not a comment: an unterminated statement, which
    # psql would never run (a signature belongs in a plain ``` block).
    rest = [i for i in range(found[-1][1] + 1 if found else 0, len(lines)) if lines[i].split("--", 1)[0].strip()]
    if rest:
        failures += 1
        print(f"FAIL {page}:{first}\n     {page}:{first + rest[0]}: not a complete SQL statement (no ';')")
        return
    for s, e, error, detail in found:
        if error:
            script.append("\\set ON_ERROR_STOP 0")
            where.append(first + s)
        for i in range(s, e + 1):
            script.append(lines[i])
            where.append(first + i)
        if error:
            expected[first + e] = (error, detail)
            script.append("\\set ON_ERROR_STOP 1")
            where.append(first + e)
    rc, err = psql(db, "\n".join(script) + "\n", "script")
    problems = []
    # psql:script:LINE: ERROR:  message, then DETAIL:, HINT:, CONTEXT: lines.
    for m in re.finditer(r"psql:script:(\d+): ERROR:  (.*)\n((?:(?!psql:).*\n)*)", err):
        line = where[int(m.group(1)) - 1]
        got_detail = re.search(r"^DETAIL:  (.*)$", m.group(3), re.M)
        want = expected.pop(line, None)
        if want is None:
            problems.append(f"{page}:{line}: ERROR:  {m.group(2)}")
        elif want[0] != m.group(2) or (want[1] is not None and (not got_detail or got_detail.group(1) != want[1])):
            problems.append(f"{page}:{line}: expected ERROR:  {want[0]} / DETAIL:  {want[1]}; "
                            f"got ERROR:  {m.group(2)} / DETAIL:  {got_detail and got_detail.group(1)}")
    for line, (error, _) in expected.items():
        problems.append(f"{page}:{line}: expected ERROR:  {error}, the statement succeeded")
    if rc != 0 and not problems:
        problems.append(f"{page}:{first}: psql exited with {rc}: {err.strip()}")
    if problems:
        failures += 1
        print(f"FAIL {page}:{first}")
        for p in problems:
            print(f"     {p}")
    else:
        print(f"ok   {page}:{first}")


def main():
    host = os.environ["PGHOST"]
    pages = ["README.md"] + sorted("docs/" + f for f in os.listdir(os.path.join(ROOT, "docs")) if f.endswith(".md"))
    for page in pages:
        found = blocks(page)
        if not found:
            continue
        slug = re.sub(r"\W", "_", os.path.splitext(os.path.basename(page))[0].lower())
        db = f"doc_examples_{slug}"
        database(db, FIXTURES.get(page, ""))
        for n, (first, lines) in enumerate(found, 1):
            if page == "docs/scaling-out.md" and n == 1:
                database("doc_examples_shard0", "")
                run_block(page, first, lines, "doc_examples_shard0")
                continue
            if page == "docs/scaling-out.md" and lines[0].startswith("-- Bulk pairs by similarity:"):
                rc, err = psql("doc_examples_shard0", SHARD_PEERS.format(host=host))
                if rc != 0:
                    sys.exit(f"FAIL the shard's peer servers: {err}")
                run_block(page, first, lines, "doc_examples_shard0")  # a shard's, as block 1
                continue
            if page == "docs/scaling-out.md" and lines[0].startswith("-- On shard 0 of 3, after the set-up"):
                run_block(page, first, lines, "doc_examples_shard0")  # band ranges: the same shard's
                continue
            if page == "docs/scaling-out.md" and lines[0].startswith("-- Copies:"):
                run_block(page, first, lines, "doc_examples_shard0")  # a shard's, as block 1
                continue
            if page == "docs/scaling-out.md" and n == 2:
                psql(db, COORDINATOR_BEFORE)
                run_block(page, first, lines, db)
                rc, err = psql(db, COORDINATOR_AFTER.format(host=host))
                if rc != 0:
                    sys.exit(f"FAIL pointing the coordinator at the shards: {err}")
                continue
            if (page, lines[0]) in FRESH:
                own = f"{db}_{n}"
                database(own, FRESH[(page, lines[0])])
                run_block(page, first, lines, own)
            else:
                run_block(page, first, lines, db)
    for db in databases:
        subprocess.run(["dropdb", "--if-exists", db], stderr=subprocess.DEVNULL)
    subprocess.run(["psql", "-X", "-q", "-d", "postgres", "-c", "DROP ROLE IF EXISTS app"])
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
