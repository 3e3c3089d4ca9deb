"""Exact similarity and its index (issue 34): the third part of `make quality` (run.sh).

On languages.py's sets (Chinese paragraphs, articles and short texts; English, Japanese and
mixed paragraphs and short texts; the English technical documentation corpus when present),
by the one judge (judge.py):

- recall of `simhash_similarity(a, b) >= theta` over the nine repost edits (the pairs the
  judge accepts), and of `simhash_containment(excerpt, original) >= gamma` and
  `simhash_containment(original, merged) >= gamma` over the excerpts and merged texts, per
  threshold (the frontier);
- corpus precision: every pair of distinct corpus paragraphs at similarity >= theta (or
  either containment >= gamma), found exactly (prefix filtering, quality_similarity
  allpairs), judged near-duplicates (3-gram Jaccard >= 0.5) or quotations (>= 0.8 of the
  smaller in the other);
- the index: of every pair at similarity >= 0.5 (edits and corpus pairs, each text in turn
  the query), the share a lookup finds (the query's sketch keys shared with the row's index
  keys, at least `required` of them: keys.rs); of every pair at containment >= 0.8, the share
  a containment lookup finds (the query's index keys shared with the row's, at least
  CONTAINMENT_KEYS or as many as the query has), both ways round.

With --server DIR (run.sh, unless QUALITY_NO_SERVER=1), the server's answers on each corpus's
distinct paragraphs (id = their place in order of first occurrence) against the brute force
(quality_similarity allpairs): simhash_similarity_pairs at 0.5 must equal it, pair for pair and value for value
(any difference fails the run); the self-join through a simhash_ops index at similarity 0.5
and, for rows of 60 characters or more, at containment 0.8 (query in row) are reported as
the share of the brute force's pairs they find, and must return no pair it does not.

  python3 similarity.py --tool quality_similarity --out DIR [--sets chinese,english,...] [--server DIR]
"""
from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

import languages
from edits import KINDS
from judge import accepts, containment, grams, jaccard, token_grams
from tables import table

THETAS = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)      # the tool's "m" list
FRONTIER = (0.4, 0.5, 0.55, 0.6, 0.7, 0.8)
GAMMAS = (0.5, 0.6, 0.7, 0.8, 0.9)
DEFAULT_THETA = 0.5                               # README's advice
DEFAULT_GAMMA = 0.8
INDEX_THETA, INDEX_GAMMA = 0.5, 0.8               # the index recall targets
WINDOW = 24                                       # keys.rs W
SHORT_QUERY = 2 * WINDOW                          # lookup.rs: a shorter containment query reads every row
CONTAINMENT_KEYS = 2                              # keys a containment lookup asks for (gin.rs)


class Tool:
    """quality_similarity, with every text's keys and every pair's measures computed once."""

    def __init__(self, binary: str):
        self.binary = binary
        self.keys: dict[str, dict] = {}
        self.measures: dict[tuple[str, str], tuple[float, float, float]] = {}

    def run(self, args: list[str], lines: list) -> list[str]:
        data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
        out = subprocess.run([self.binary, *args], input=data, capture_output=True, text=True, check=True)
        return out.stdout.splitlines()

    def texts(self, texts: list[str]) -> None:
        new = list(dict.fromkeys(t for t in texts if t not in self.keys))
        for t, line in zip(new, self.run(["texts"], new)):
            d = json.loads(line)
            self.keys[t] = {"q": d["q"], "m": dict(zip(THETAS, d["m"])), "sim": set(d["sim"]),
                            "idx": set(d["idx"])}

    def pairs(self, pairs: list[tuple[str, str]]) -> None:
        new = list(dict.fromkeys(p for p in pairs if p not in self.measures))
        for p, line in zip(new, self.run(["pairs"], [list(p) for p in new])):
            self.measures[p] = tuple(float(x) for x in line.split())

    def allpairs(self, texts: list[str], theta: float, gamma: float) -> list[tuple[int, int, float, float, float]]:
        out = self.run(["allpairs", str(theta), str(gamma)], texts)
        return [(int(i), int(j), float(s), float(a), float(b)) for i, j, s, a, b in (l.split() for l in out)]

    def found_similar(self, query: str, row: str, theta: float) -> bool:
        q, r = self.keys[query], self.keys[row]
        return len(q["sim"] & r["idx"]) >= q["m"][theta]

    def found_containing(self, query: str, row: str) -> bool:
        q, r = self.keys[query], self.keys[row]
        if q["q"] < SHORT_QUERY:
            return True                           # the lookup reads every row
        return len(q["idx"] & r["idx"]) >= min(CONTAINMENT_KEYS, len(q["idx"]))


def frontier(tool: Tool, s, name: str) -> tuple[list[list[str]], dict]:
    rows, means = [], {}
    g = {}

    def gr(t):
        if t not in g:
            g[t] = grams(t)
        return g[t]

    for length, kinds in s.edited.items():
        per_theta = {t: [] for t in FRONTIER}
        for kind in KINDS:
            kept = [p for p in kinds[kind] if accepts(gr(p[0]), gr(p[1]))]
            tool.pairs(kept)
            for t in FRONTIER:
                per_theta[t].append(sum(tool.measures[p][0] >= t for p in kept) / len(kept) if kept else 1.0)
        cont = {}
        for kind in ("excerpt 60%", "merged"):
            kept = [p for p in kinds[kind] if accepts(gr(p[0]), gr(p[1]), True)]
            tool.pairs(kept)
            # excerpt: (original, excerpt): the excerpt in the original; merged: (original,
            # merged): the original in the merged text.
            value = (lambda p: tool.measures[p][2]) if kind == "excerpt 60%" else (lambda p: tool.measures[p][1])
            cont[kind] = {gm: sum(value(p) >= gm for p in kept) / len(kept) if kept else 1.0 for gm in GAMMAS}
        mean = {t: sum(v) / len(v) for t, v in per_theta.items()}
        means[name, length] = (mean, cont)
        rows.append([name, length, *(f"{mean[t]:.3f}" for t in FRONTIER),
                     *(f"{cont['excerpt 60%'][gm]:.3f} / {cont['merged'][gm]:.3f}" for gm in (0.5, 0.8))])
    return rows, means


def cell(good: int, n: int) -> str:
    return f"{100 * good / n:.1f}% {good}/{n}" if n else "- 0/0"


def precision(tool: Tool, corpus: list[str], name: str, quick: bool) -> tuple[list[list[str]], list]:
    """Per threshold, the corpus pairs found that the judge accepts, and those the strict
    judge accepts (judge.py)."""
    found = tool.allpairs(corpus, min(FRONTIER), 2.0 if quick else min(GAMMAS))
    g = [grams(t) for t in corpus]
    tg = [token_grams(t) for t in corpus]
    cells = []
    for t in FRONTIER:
        ps = [(i, j) for i, j, s, _, _ in found if s >= t]
        good = sum(jaccard(g[i], g[j]) >= 0.5 for i, j in ps)
        strict = sum(jaccard(tg[i], tg[j]) >= 0.5 for i, j in ps)
        cells.append(f"{cell(good, len(ps))}; strict {cell(strict, len(ps))}")
    for gm in (() if quick else (DEFAULT_GAMMA,)):
        ps = [(i, j) for i, j, _, a, b in found if max(a, b) >= gm]
        good = sum(containment(g[i], g[j]) >= 0.8 for i, j in ps)
        cells.append(f"{100 * good / len(ps):.1f}% {good}/{len(ps)}" if ps else "- 0/0")
    return [[name, *cells]], found


def index_recall(tool: Tool, s, corpus_pairs, corpus: list[str]) -> tuple[int, int, int, int]:
    """(found, pairs) at similarity >= INDEX_THETA and at containment >= INDEX_GAMMA, each
    text of a pair in turn the query."""
    pairs = [p for kinds in s.edited.values() for ps in kinds.values() for p in ps]
    tool.pairs(pairs)
    sim = [p for p in pairs if tool.measures[p][0] >= INDEX_THETA]
    sim += [(corpus[i], corpus[j]) for i, j, x, _, _ in corpus_pairs if x >= INDEX_THETA]
    con = [(a, b) for a, b in pairs if tool.measures[a, b][1] >= INDEX_GAMMA]          # a in b
    con += [(b, a) for a, b in pairs if tool.measures[a, b][2] >= INDEX_GAMMA]
    con += [(corpus[i], corpus[j]) for i, j, _, x, _ in corpus_pairs if x >= INDEX_GAMMA]
    con += [(corpus[j], corpus[i]) for i, j, _, _, x in corpus_pairs if x >= INDEX_GAMMA]
    tool.texts([t for p in sim + con for t in p])
    fs = sum(tool.found_similar(a, b, INDEX_THETA) for a, b in sim) + sum(tool.found_similar(b, a, INDEX_THETA) for a, b in sim)
    # (inner, outer): the inner text looked up by containment in rows (query in row), and
    # the outer text's rows looked up as contained in it (row in query).
    fc = sum(tool.found_containing(a, b) for a, b in con) + sum(tool.found_containing(b, a) for a, b in con)
    # The winnowing guarantee holds for a contained text of WINDOW shingles or more.
    long = [(a, b) for a, b in con if tool.keys[a]["q"] >= WINDOW]
    fl = sum(tool.found_containing(a, b) for a, b in long) + sum(tool.found_containing(b, a) for a, b in long)
    return fs, 2 * len(sim), fc, 2 * len(con), fl, 2 * len(long)


def server_check(name: str, lines: list[str], brute: list, server: Path) -> tuple[list[str], bool]:
    """The server's pairs and lookups on one corpus against the brute force `brute`, every pair
    at similarity or containment above the checks' thresholds (module docs)."""
    def read(f: str) -> list[tuple]:
        rows = [l.split("\t") for l in (server / f).read_text().splitlines() if l]
        return [(int(r[0]), int(r[1]), *(float(x) for x in r[2:])) for r in rows]
    want = {(i + 1, j + 1): x for i, j, x, _, _ in brute if x >= INDEX_THETA}
    got = {(a, b): x for a, b, x in read(f"similarity_pairs_{name}.tsv")}
    differ = len(set(got.items()) ^ set(want.items()))
    index = {(a, b) for a, b, _ in read(f"similarity_index_{name}.tsv")}
    contained = {(i + 1, j + 1) for i, j, _, a, _ in brute if a >= INDEX_GAMMA and len(lines[i]) >= 60}
    contained |= {(j + 1, i + 1) for i, j, _, _, b in brute if b >= INDEX_GAMMA and len(lines[j]) >= 60}
    cindex = {(a, b) for a, b in read(f"containment_index_{name}.tsv")}
    extra = len(index - set(want)) + len(cindex - contained)
    ok = differ == 0 and extra == 0
    return [name, f"{len(got):,}", f"{len(want):,}", str(differ),
            f"{len(index & set(want)) / max(1, len(want)):.4f}", f"{len(cindex & contained) / max(1, len(contained)):.4f}",
            str(extra)], ok


def run(tool: Tool, sets: dict, quick: bool = False, found_by_set: dict | None = None) -> list[str]:
    out = []
    front, prec, idx, means = [], [], [], {}
    for name, s in sets.items():
        rows, m = frontier(tool, s, name)
        front += rows
        means.update(m)
        prows, found = precision(tool, s.corpus, name, quick)
        prec += prows
        if found_by_set is not None:
            found_by_set[name] = found
        if quick:
            print(f"similarity: {name} done", file=sys.stderr, flush=True)
            continue
        fs, ns, fc, nc, fl, nl = index_recall(tool, s, found, s.corpus)
        idx.append([name, f"{fs / ns:.4f} ({ns - fs} of {ns:,} missed)", f"{fc / nc:.4f} ({nc - fc} of {nc:,} missed)",
                    f"{fl / nl:.4f} ({nl - fl} of {nl:,} missed)"])
        print(f"similarity: {name} done", file=sys.stderr, flush=True)
    out += ["Recall: mean over the nine repost edits (judge-accepted pairs) at similarity >= theta; "
            "excerpts / merged texts at containment >= gamma", ""]
    out += table(["set", "length", *(f"sim >= {t}" for t in FRONTIER), "cont >= 0.5", "cont >= 0.8"], front, right=set())
    out += ["", "Corpus precision (pairs the judge accepts / pairs found)", ""]
    out += table(["set", *(f"sim >= {t}" for t in FRONTIER), *(() if quick else (f"cont >= {DEFAULT_GAMMA}",))], prec,
                 right=set())
    if quick:
        return out
    out += ["", f"The index: pairs at similarity >= {INDEX_THETA} found by a lookup at {INDEX_THETA}, "
            f"pairs at containment >= {INDEX_GAMMA} found by a containment lookup", ""]
    out += table(["set", "similarity", "containment", f"containment, inner text of {WINDOW}+ shingles"], idx, right=set())
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpora", default=str(Path(__file__).resolve().parents[2] / "target" / "corpus"))
    ap.add_argument("--sets", default="chinese,english,pydocs,japanese,mixed")
    ap.add_argument("--quick", action="store_true", help="the frontier and similarity precision only")
    ap.add_argument("--server", type=Path, help="directory of the server's similarity_*_NAME.tsv")
    a = ap.parse_args()
    corpora = Path(a.corpora)
    sets = {}
    for name in a.sets.split(","):
        sets[name] = (languages.chinese_set(corpora / "peoples_daily_199801.txt") if name == "chinese"
                      else languages.new_set(name, corpora))
    tool = Tool(a.tool)
    found: dict = {}
    report = run(tool, sets, a.quick, found)
    ok = True
    if a.server:
        rows = []
        for name, s in sets.items():
            row, good = server_check(name, s.corpus, found[name], a.server)
            rows.append(row)
            ok &= good
        report += ["", f"The server against the brute force, on each corpus's distinct paragraphs: simhash_similarity_pairs "
                   f"at {INDEX_THETA}, and the self-join through a simhash_ops index at similarity {INDEX_THETA} and "
                   f"at containment {INDEX_GAMMA} (rows of 60+ characters). Any difference in the pairs, or a "
                   "lookup pair the brute force has not, fails the run.", ""]
        report += table(["set", "server pairs", "brute force", "differ", "index: similarity recall",
                         "containment recall", "not in brute force"], rows, right=set(range(1, 7)))
    text = "\n".join(report) + "\n"
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "similarity.txt").write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
