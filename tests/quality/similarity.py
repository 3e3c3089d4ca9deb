"""Exact similarity and its index (issue 34): the third part of `make quality` (run.sh).

Measure 2 (5.0.0, `quality_similarity ... m=2`) throughout, measure 1 (4.x, `m=1`) beside it
for comparison. On languages.py's sets (Chinese paragraphs, articles and short texts; English,
Japanese and mixed paragraphs and short texts; the English technical documentation corpus
when present):

- recall over the repost edits: every edited pair of the eight edits other than "numbers
  changed" is a positive (a repost that changed its figures is other content to measure 2, and
  the labels decide it: tests/quality/labels.py), with no judge filtering them: the mean over
  the eight kinds of the share at `simhash_similarity(a, b) >= theta` (the frontier), and of
  the excerpts and merged texts the share at `simhash_containment(excerpt, original)` and
  `simhash_containment(original, merged)` >= gamma; per kind at README's 0.5; "numbers
  changed" reported apart, as the share still matched (not a recall). Targets (PASS/FAIL):
  >= 0.97 for paragraphs and articles and >= 0.95 for short texts at similarity >= 0.5, >= 0.95
  for the excerpts and the merged texts at containment >= 0.8;
- the same recall under the dedup decision (7.0's balanced) (decision.py: the measure, then
  `quality_decision`'s "dup" at its defaults): the mean over the eight kinds of the share at
  similarity >= 0.5 AND dup, the excerpts and merged texts at containment >= 0.8 AND dup, beside
  the measure alone (5.2.0) with the difference, and per kind at 0.5; reported as "decision
  recall within 0.01 of 5.2.0's" PASS/FAIL per set and length (each of the three; not failing
  the run);
- the stock-index check (chinese): People's Daily's index quote lines ("上证指数１１９４·１０…",
  every line of an index name followed by figures only) and the all-figures quote lines of
  the same tables ("４４·８００·３８３…"), each table a day: every pair of lines of different
  days must score <= 0.3 under measure 2 (the max and the pairs above 0.3);
- the corpus pairs found at each threshold (counts only: their precision is judged by the
  labels, tests/quality/labels.py, not here);
- the index: of every pair at similarity >= 0.5 (edits and corpus pairs, each text in turn
  the query), the share a lookup finds (the query's sketch keys shared with the row's index
  keys, at least `required` of them: keys.rs); of every pair at containment >= 0.8, the share
  a containment lookup finds (the query's index keys shared with the row's, at least
  CONTAINMENT_KEYS or as many as the query has), both ways round.

The 3-gram judge (judge.py) judges nothing here: it is essentially measure 1 itself, so it can
be no judge of the measure's precision.

With --server DIR (run.sh, unless QUALITY_NO_SERVER=1), the server's answers on each corpus's
distinct paragraphs (id = their place in order of first occurrence) against the brute force
(quality_similarity allpairs): simhash_similarity_pairs at 0.5 (the measure alone) must equal it, pair for pair
and value for value, but for pairs at exactly 0.5 within the miss bound (any other difference fails the run); the self-join through a simhash_ops index at similarity 0.5
and, for rows of 60 characters or more, at containment 0.8 (query in row) are reported as
the share of the brute force's pairs they find, and must return no pair it does not.

  python3 similarity.py --tool quality_similarity --decision quality_decision --out DIR
      [--sets chinese,english,...] [--server DIR]
"""
from __future__ import annotations

import argparse
import json
import re
import sys
import unicodedata
from pathlib import Path

import languages
from decision import Decider, gate, run_tool
from edits import KINDS, read_corpus
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
NOT_REPOST = "numbers changed"                    # other figures: not a positive under measure 2
REPOSTS = tuple(k for k in KINDS if k != NOT_REPOST)
CONTAINMENT = ("excerpt 60%", "merged")
TARGET_RECALL = {"paragraphs": 0.97, "articles": 0.97, "short": 0.95}
TARGET_CONTAINMENT = 0.95
DECISION_WITHIN = 0.01                            # the decision's recall against the measure alone's
STOCK_MAX = 0.3                                   # index quotes of different days: at most this similar
STOCK_NAMES = ("上证指数", "深证成指", "沪深", "上证30", "上证a股", "上证b股", "深证指数", "成份指数", "成分指数",
               "深证a股", "深证b股")              # after NFKC and lowercasing
FIGURES = re.compile(r"[0-9·.\-+%]+")             # a quote's figures, after NFKC


class Tool:
    """quality_similarity under measure `m`, with every text's keys and every pair's measures
    computed once."""

    def __init__(self, binary: str, m: int = 2):
        self.binary = binary
        self.m = m
        self.keys: dict[str, dict] = {}
        self.measures: dict[tuple[str, str], tuple[float, float, float]] = {}

    def run(self, args: list[str], lines: list) -> list[str]:
        return run_tool(self.binary, [*args, f"m={self.m}"], lines)

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


def share(xs: list[bool]) -> float:
    return sum(xs) / len(xs) if xs else float("nan")


def contained(tool: Tool, kind: str, p: tuple[str, str]) -> float:
    """excerpt: (original, excerpt): the excerpt in the original; merged: (original, merged):
    the original in the merged text."""
    return tool.measures[p][2] if kind == "excerpt 60%" else tool.measures[p][1]


def verdict(x: float, goal: float) -> str:
    return f"{x:.3f} {'PASS' if x >= goal else 'FAIL'}"


def recall(tools: dict[int, Tool], decider: Decider, s, name: str) -> dict[str, list[list[str]]]:
    """The recall tables' rows of one set (module docs): "frontier", "kinds", "targets", and
    the decision's: "decision", "decision kinds", "decision verdicts" (one line each)."""
    rows = {"frontier": [], "kinds": [], "targets": [], "decision": [], "decision kinds": [], "decision verdicts": []}
    for length, kinds in s.edited.items():
        for tool in tools.values():
            tool.pairs([p for ps in kinds.values() for p in ps])
        for k, row in zip(("decision", "decision kinds", "decision verdicts"),
                          decision_recall(tools[2], decider, kinds, name, length)):
            rows[k].append(row)
        sim = {m: {k: {t: share([tool.measures[p][0] >= t for p in kinds[k]]) for t in FRONTIER}
                   for k in (*REPOSTS, NOT_REPOST)} for m, tool in tools.items()}
        cont = {m: {k: {g: share([contained(tool, k, p) >= g for p in kinds[k]]) for g in GAMMAS}
                    for k in CONTAINMENT} for m, tool in tools.items()}
        mean = {m: {t: sum(sim[m][k][t] for k in REPOSTS) / len(REPOSTS) for t in FRONTIER} for m in tools}
        n = sum(len(kinds[k]) for k in REPOSTS)
        rows["frontier"].append([name, length, f"{n:,}", *(f"{mean[2][t]:.3f}" for t in FRONTIER),
                                 *(f"{cont[2]['excerpt 60%'][g]:.3f} / {cont[2]['merged'][g]:.3f}" for g in (0.5, 0.8)),
                                 f"{mean[1][DEFAULT_THETA]:.3f}",
                                 f"{cont[1]['excerpt 60%'][DEFAULT_GAMMA]:.3f} / {cont[1]['merged'][DEFAULT_GAMMA]:.3f}"])
        rows["kinds"].append([name, length, *(f"{sim[2][k][DEFAULT_THETA]:.3f} ({sim[1][k][DEFAULT_THETA]:.3f})"
                                              for k in (*REPOSTS, NOT_REPOST))])
        goal = TARGET_RECALL.get(length, TARGET_RECALL["paragraphs"])
        rows["targets"].append([name, length, f">= {goal}", verdict(mean[2][DEFAULT_THETA], goal),
                                f"{mean[1][DEFAULT_THETA]:.3f}",
                                *(verdict(cont[2][k][DEFAULT_GAMMA], TARGET_CONTAINMENT) for k in CONTAINMENT),
                                *(f"{cont[1][k][DEFAULT_GAMMA]:.3f}" for k in CONTAINMENT),
                                f"{sim[2][NOT_REPOST][DEFAULT_THETA]:.3f} ({sim[1][NOT_REPOST][DEFAULT_THETA]:.3f})"])
    return rows


def decision_recall(tool: Tool, decider: Decider, kinds: dict, name: str, length: str) -> tuple[list, list, str]:
    """One set and length under the decision (7.0's balanced) against the measure alone (5.2.0): the row of
    the means, the row per kind at DEFAULT_THETA, the "within DECISION_WITHIN" line."""
    decider.decide([p for ps in kinds.values() for p in ps if gate(tool.measures[p])])

    def dup(p):
        return gate(tool.measures[p]) and decider.dup(*p)
    sim = {k: (share([tool.measures[p][0] >= DEFAULT_THETA for p in kinds[k]]),
               share([tool.measures[p][0] >= DEFAULT_THETA and dup(p) for p in kinds[k]]))
           for k in (*REPOSTS, NOT_REPOST)}
    cont = {k: (share([contained(tool, k, p) >= DEFAULT_GAMMA for p in kinds[k]]),
                share([contained(tool, k, p) >= DEFAULT_GAMMA and dup(p) for p in kinds[k]])) for k in CONTAINMENT}
    mean = tuple(sum(sim[k][i] for k in REPOSTS) / len(REPOSTS) for i in (0, 1))
    three = {"similarity": mean, "excerpts": cont["excerpt 60%"], "merged": cont["merged"]}
    cells = [c for old, new in three.values() for c in (f"{old:.3f}", f"{new:.3f}", f"{new - old:+.3f}")]
    row = [name, length, f"{sum(len(kinds[k]) for k in REPOSTS):,}", *cells]
    kinds_row = [name, length, *(f"{sim[k][1]:.3f} ({sim[k][1] - sim[k][0]:+.3f})" for k in (*REPOSTS, NOT_REPOST))]
    ok = all(old - new <= DECISION_WITHIN + 1e-9 for old, new in three.values())
    line = (f"{name} {length}: decision recall within {DECISION_WITHIN} of 5.2.0's: {'PASS' if ok else 'FAIL'} ("
            + ", ".join(f"{k} {new - old:+.3f}" for k, (old, new) in three.items()) + ")")
    return row, kinds_row, line


def found_counts(found: list, name: str) -> list[list[str]]:
    """The corpus pairs found per threshold: counts, no verdict."""
    return [[name, *(f"{sum(s >= t for _, _, s, _, _ in found):,}" for t in FRONTIER),
             f"{sum(max(a, b) >= DEFAULT_GAMMA for _, _, _, a, b in found):,}"]]


def stock_lines(lines: list[str]) -> list[tuple[int, str]]:
    """(day, line) of every index quote line of People's Daily's market tables: a table starts at
    its header line ("名称前周收盘上周开盘…"), each table one day; its lines are an index name
    followed by figures only, or figures only (the closing quotes under the second header)."""
    out, day, inside = [], -1, False
    for line in lines:
        t = unicodedata.normalize("NFKC", line).lower()
        if t.startswith("名称") and "收盘" in t:
            day, inside = day + 1, True
            continue
        if not inside:
            continue
        name = next((n for n in STOCK_NAMES if t.startswith(n)), None)
        rest = t[len(name):] if name else t
        if FIGURES.fullmatch(rest) and sum(c.isdigit() for c in rest) >= 4:
            out.append((day, line))
        elif "收盘" not in t:                     # the second header ("上周收盘涨跌幅成交金额") goes on
            inside = False
    return out


def stock_check(tools: dict[int, Tool], corpus_path: Path) -> tuple[list[str], bool]:
    quotes = list(dict.fromkeys(stock_lines(read_corpus(corpus_path))))
    pairs = [(a, b) for x, (da, a) in enumerate(quotes) for db, b in quotes[x + 1:] if da != db and a != b]
    rows = []
    for m, tool in tools.items():
        tool.pairs(pairs)
        sims = [tool.measures[p][0] for p in pairs]
        top = max(range(len(pairs)), key=lambda i: sims[i])
        over = sum(x > STOCK_MAX for x in sims)
        rows.append([f"measure {m}", f"{len(pairs):,}", f"{sims[top]:.3f}", f"{over:,}",
                     ("PASS" if over == 0 else "FAIL") if m == 2 else "(comparison)",
                     f"{pairs[top][0][:16]} / {pairs[top][1][:16]}"])
    days = len({d for d, _ in quotes})
    out = [f"Stock-index check (People's Daily): {len(quotes)} index quote lines of {days} market tables "
           f"(days); every pair of lines of different days must score <= {STOCK_MAX} under measure 2", ""]
    out += table(["measure", "pairs", "max", f"> {STOCK_MAX}", "target", "the max pair (first 16 characters)"], rows,
                 right={1, 2, 3})
    return out, rows[0][3] == "0"


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
    # Banding misses a pair at exactly the threshold with probability at most 10⁻³ (the miss
    # bound, docs/similarity.md): such misses are allowed, up to that share and one; any other
    # difference (a pair above it missed, a value, a pair the brute force has not) is not.
    missed = set(want) - set(got)
    at_theta = [p for p in missed if want[p] < INDEX_THETA + 1e-9]
    bound_ok = len(at_theta) == len(missed) and len(at_theta) <= max(1, len(want) // 1000)
    differ = len(set(got.items()) ^ set(want.items())) - (len(at_theta) if bound_ok else 0)
    index = {(a, b) for a, b, _ in read(f"similarity_index_{name}.tsv")}
    contained = {(i + 1, j + 1) for i, j, _, a, _ in brute if a >= INDEX_GAMMA and len(lines[i]) >= 60}
    contained |= {(j + 1, i + 1) for i, j, _, _, b in brute if b >= INDEX_GAMMA and len(lines[j]) >= 60}
    cindex = {(a, b) for a, b in read(f"containment_index_{name}.tsv")}
    extra = len(index - set(want)) + len(cindex - contained)
    ok = differ == 0 and extra == 0
    # The decided pairs, templates joined against every pair banded and framed: reported.
    joined, banded = ({(a, b) for a, b, _ in read(f"decided_pairs_{t}_{name}.tsv")} for t in ("join", "band"))
    templates = f"{len(banded):,}: {len(banded - joined)} missed, {len(joined - banded)} added"
    return [name, f"{len(got):,}", f"{len(want):,}", f"{differ}" + (f" ({len(at_theta)} at {INDEX_THETA} missed)" if at_theta and bound_ok else ""),
            f"{len(index & set(want)) / max(1, len(want)):.4f}", f"{len(cindex & contained) / max(1, len(contained)):.4f}",
            str(extra), templates], ok


def run(tools: dict[int, Tool], decider: Decider, sets: dict, quick: bool = False, found_by_set: dict | None = None,
        corpus_path: Path | None = None) -> tuple[list[str], bool]:
    tool = tools[2]
    out, ok = [], True
    rec = {}
    counts, idx = [], []
    for name, s in sets.items():
        for k, rows in recall(tools, decider, s, name).items():
            rec.setdefault(k, []).extend(rows)
        found = tool.allpairs(s.corpus, min(FRONTIER), 2.0 if quick else DEFAULT_GAMMA)
        counts += found_counts(found, name)
        if found_by_set is not None:
            found_by_set[name] = found
        if quick:
            print(f"similarity: {name} done", file=sys.stderr, flush=True)
            continue
        fs, ns, fc, nc, fl, nl = index_recall(tool, s, found, s.corpus)
        idx.append([name, f"{fs / ns:.4f} ({ns - fs} of {ns:,} missed)", f"{fc / nc:.4f} ({nc - fc} of {nc:,} missed)",
                    f"{fl / nl:.4f} ({nl - fl} of {nl:,} missed)"])
        print(f"similarity: {name} done", file=sys.stderr, flush=True)
    out += [f"Recall over the repost edits, measure 2: the mean over the {len(REPOSTS)} edits other than "
            f"\"{NOT_REPOST}\" (every pair a positive, no judge) at similarity >= theta; excerpts / merged texts at "
            f"containment >= gamma; measure 1 beside at README's {DEFAULT_THETA} and {DEFAULT_GAMMA}", ""]
    out += table(["set", "length", "pairs", *(f"m2 sim >= {t}" for t in FRONTIER), "m2 cont >= 0.5",
                  "m2 cont >= 0.8", "m1 sim >= 0.5", "m1 cont >= 0.8"], rec["frontier"], right=set(range(2, 13)))
    out += ["", f"Per edit at similarity >= {DEFAULT_THETA}: measure 2 (measure 1); \"{NOT_REPOST}\" is no "
            "positive (other figures: the labels judge it), shown as the share still matched", ""]
    out += table(["set", "length", *REPOSTS, NOT_REPOST], rec["kinds"], right=set(range(2, 3 + len(REPOSTS))))
    out += ["", f"Targets, measure 2: recall >= 0.97 (paragraphs, articles), >= 0.95 (short) at similarity >= "
            f"{DEFAULT_THETA}; excerpts and merged texts >= {TARGET_CONTAINMENT} at containment >= {DEFAULT_GAMMA} "
            f"(measure 1 beside, no target)", ""]
    out += table(["set", "length", "target", f"m2 sim >= {DEFAULT_THETA}", "m1", "m2 excerpts", "m2 merged",
                  "m1 excerpts", "m1 merged", f"{NOT_REPOST}: m2 (m1)"], rec["targets"], right=set())
    ok_targets = all("FAIL" not in c for r in rec["targets"] for c in r)
    out += ["", f"Recall targets: {'PASS' if ok_targets else 'FAIL'}"]
    out += ["", "Recall over the repost edits under the dedup decision, 7.0's balanced (the measure AND quality_decision's dup): the "
            f"mean over the {len(REPOSTS)} edits",
            f"at similarity >= {DEFAULT_THETA}, excerpts / merged texts at containment >= {DEFAULT_GAMMA}; 5.2.0 = the "
            "measure alone, then the decision and the difference", ""]
    out += table(["set", "length", "pairs", f"sim >= {DEFAULT_THETA}: 5.2.0", "decision", "diff",
                  f"excerpts, cont >= {DEFAULT_GAMMA}: 5.2.0", "decision", "diff", "merged: 5.2.0", "decision", "diff"],
                 rec["decision"], right=set(range(2, 12)))
    out += ["", f"Per edit at similarity >= {DEFAULT_THETA} AND dup: the decision (its difference from the measure "
            f"alone); \"{NOT_REPOST}\" is no positive, shown as the share still matched", ""]
    out += table(["set", "length", *REPOSTS, NOT_REPOST], rec["decision kinds"], right=set(range(2, 3 + len(REPOSTS))))
    out += ["", f"The decision's recall against 5.2.0's, each of the three within {DECISION_WITHIN} (reported, not "
            "failing the run):", *rec["decision verdicts"]]
    if corpus_path is not None:
        lines, _ = stock_check(tools, corpus_path)
        out += [""] + lines
    out += ["", "Corpus pairs found by measure 2 (distinct paragraphs, exactly; counts only: precision is judged by "
            "the labels, labels.txt)", ""]
    out += table(["set", *(f"sim >= {t}" for t in FRONTIER), *(() if quick else (f"cont >= {DEFAULT_GAMMA}",))],
                 [r if not quick else r[:-1] for r in counts], right=set(range(1, 2 + len(FRONTIER))))
    if quick:
        return out, ok
    out += ["", f"The index: pairs at similarity >= {INDEX_THETA} found by a lookup at {INDEX_THETA}, "
            f"pairs at containment >= {INDEX_GAMMA} found by a containment lookup", ""]
    out += table(["set", "similarity", "containment", f"containment, inner text of {WINDOW}+ shingles"], idx, right=set())
    return out, ok


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--tool", required=True)
    ap.add_argument("--decision", required=True, help="quality_decision")
    ap.add_argument("--out", required=True)
    ap.add_argument("--corpora", default=str(Path(__file__).resolve().parents[2] / "target" / "corpus"))
    ap.add_argument("--sets", default="chinese,english,pydocs,japanese,mixed")
    ap.add_argument("--quick", action="store_true", help="the recall tables and the pair counts only")
    ap.add_argument("--server", type=Path, help="directory of the server's similarity_*_NAME.tsv")
    a = ap.parse_args()
    corpora = Path(a.corpora)
    sets = {}
    for name in a.sets.split(","):
        sets[name] = (languages.chinese_set(corpora / "peoples_daily_199801.txt") if name == "chinese"
                      else languages.new_set(name, corpora))
    tools = {2: Tool(a.tool, 2), 1: Tool(a.tool, 1)}
    found: dict = {}
    report, ok = run(tools, Decider(a.decision), sets, a.quick, found,
                     corpora / "peoples_daily_199801.txt" if "chinese" in sets else None)
    if a.server:
        rows = []
        for name, s in sets.items():
            row, good = server_check(name, s.corpus, found[name], a.server)
            rows.append(row)
            ok &= good
        report += ["", f"The server against the brute force, on each corpus's distinct paragraphs: simhash_similarity_pairs "
                   f"at {INDEX_THETA}, and the self-join through a simhash_ops index at similarity {INDEX_THETA} and "
                   f"at containment {INDEX_GAMMA} (rows of 60+ characters), the bulk run under simhash.decision = 'none'. "
                   "Any difference in the pairs but pairs at exactly the threshold within the miss bound, or a "
                   "lookup pair the brute force has not, fails the run.", ""]
        report += ["The decided pairs (simhash.decision balanced) with the table's templates joined, against every "
                   "pair banded and decided with the frame (simhash.bulk_templates = 'band'; docs/similarity.md, "
                   "\"Templates in bulk runs\"): the pairs banded, those the join misses and adds.", ""]
        report += table(["set", "server pairs", "brute force", "differ", "index: similarity recall",
                         "containment recall", "not in brute force", "decided pairs, templates joined"], rows,
                        right=set(range(1, 7)))
    text = "\n".join(report) + "\n"
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "similarity.txt").write_text(text)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
