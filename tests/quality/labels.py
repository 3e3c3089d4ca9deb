"""Precision and recall by the labels: the judge of the similarity measure that is not the
measure (tests/quality/labels/pairs.tsv, 770 pairs labelled by reading; how they were drawn:
tests/quality/labels/sample.py). The last part of `make quality` (run.sh).

For each labelled pair: measure 2 and measure 1 (similarity and both containments, from
`quality_similarity pairs m=2` / `m=1`), and with --server DIR pg_trgm's `similarity(a, b)` and
`greatest(word_similarity(a, b), word_similarity(b, a))` (DIR/pg_trgm_labels.tsv, dumped by
run.sh; without a server pg_trgm's cells are "—"). Detectors, each a yes/no per pair:

  m2 sim >= 0.5           README's default: simhash_similarity(a, b) >= 0.5
  m2 dedup                the dedup trigger with min_containment: similarity >= 0.5 OR a
                          containment either way >= 0.8 (5.2.0's decision; 6.0's gate)
  decision                7.0's balanced: the gate (m2 dedup) AND quality_decision's "dup" (decision.py)
  m1 sim >= 0.5, m1 dedup the same under measure 1 (4.x)
  trgm >= 0.3 / 0.5       pg_trgm similarity (0.3: pg_trgm.similarity_threshold's default)
  wsim >= 0.6 / 0.5       pg_trgm word_similarity, the greater way round (0.6: its default)

Precision = label-1 pairs among the pairs a detector matches; recall = matched among the
label-1 pairs; per corpus, per length band (the shorter text under 100 characters, or 100 and
over) and overall. The sample over-weights the rare upper similarity bands on purpose, so its
precision is not what a user of a whole corpus sees; hence the corpus precision
(post-stratified):

  every pair of distinct texts of each whole corpus (sample.py's texts: distinct lines of 10+
  kept characters and at most 600 characters; pairs equal after normalization left out) at
  similarity >= 0.3, found exactly (`quality_similarity allpairs 0.3 2 m=2`; gamma 2: no
  containment pairs), counted per band b = [0.3,0.4) .. [0.9,1.0] and length class L: N(b, L).
  The labelled pairs drawn from that corpus (not the made-up edits), by their measured
  similarity, give each cell's labelled precision p(b, L) = k/n. Then the corpus precision at
  threshold t is
      P(t, L) = sum over b >= t of N(b, L) p(b, L)  /  sum over b >= t of N(b, L)
  (and over both classes for a corpus's "all"). A cell with no labelled pair takes its band's
  precision over both length classes (marked *); a band with none at all takes the nearest
  band above, else below (marked **). Within a band the labelled pairs are not a uniform draw
  (sample.py drew them by measure 1's bands, by a model of measure 2 without the figures'
  agreement, and by containment), so this is an estimate. The same for measure 1 by its bands.

The decision's corpus precision likewise, at similarity >= 0.5 only (allpairs with gamma 2 finds
no containment pairs): the corpus pairs at >= 0.5 are kept in the cache besides the counts and
decided each run; N_d(b, L) = those the decision accepts, p_d(b, L) = the labelled precision of
the band's labelled corpus pairs at >= 0.5 that it accepts (the same fallbacks), P_d =
sum N_d p_d / sum N_d: an estimate of `simhash_similarity >= 0.5 AND dup` over the whole corpus.

Short texts (tests/quality/labels/short_pairs.tsv, drawn by labels/short_sample.py: product
titles, log lines, addresses, reviews, headlines; same format and rule): m2 dedup and the
decision per corpus and length band and over all of them. When the blind second reading of the
same pairs is there (labels/short_pairs_second.tsv: `pair label reason`), the two readers'
agreement (share of equal labels, Cohen's kappa) and both detectors by the second reader's labels.

Targets (measure 2 at README's defaults): precision >= 0.95 for chinese and mixed, >= 0.90 for
japanese, for each length band (english is reported, without a target); recall by the labels
>= 0.95. 6.0's targets, the decision by pairs.tsv's labels: under 100 characters precision
>= 0.90 (chinese, english), >= 0.80 (japanese, mixed) and recall >= 0.85; 100 characters and over
precision >= 0.95 and recall no lower than m2 dedup's; its corpus precision beside, against the same
precision goals. Each is reported PASS/FAIL; none fails the run.

Where it lives: label_pairs.py (reading and measuring the pairs, the detectors, their counts and
the precision, recall and frontier tables), label_corpus.py (the corpus precision), label_short.py
(the short texts, the second reading's agreement); here the targets and main.

Writes DIR/labels.txt (--out) and prints it. Deterministic.

  python3 labels.py --tool quality_similarity --decision quality_decision --out DIR [--server DIR]
      [--corpora DIR] [--pairs FILE] [--short-pairs FILE] [--second FILE]
"""
from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from decision import Decider
from label_corpus import corpus_section
from label_pairs import CORPORA, GAMMA, HERE, LENGTHS, NONE, THETA, detector_tables, frontier_table, measure, read_pairs
from label_short import read_second, short_section
from tables import ratio, table

TARGET_PRECISION = {"chinese": 0.95, "mixed": 0.95, "japanese": 0.90}
TARGET_RECALL = 0.95
DECISION_PRECISION = {("<100", "chinese"): 0.90, ("<100", "english"): 0.90, ("<100", "japanese"): 0.80,
                      ("<100", "mixed"): 0.80, **{("100+", c): 0.95 for c in CORPORA}}
DECISION_RECALL = 0.85                              # under 100; 100 and over: m2 dedup's


# ---------------------------------------------------------------- targets

def verdict(ok: bool) -> str:
    return "PASS" if ok else "FAIL"


def targets(det: dict, corp: dict | None) -> list[str]:
    rows = []
    for c in CORPORA:
        for length in LENGTHS:
            goal = TARGET_PRECISION.get(c)
            cells = []
            for name in ("m2 sim>=0.5", "m2 dedup"):
                tp, n, _ = det[c, length, name]
                x = tp / n if n else float("nan")
                cells.append(f"{x:.3f}" + (f" {verdict(x >= goal)}" if goal else " (no target)"))
            if corp is None:
                cells.append(NONE)
            else:
                x = corp[c, 2, length, THETA]
                if x != x:
                    cells.append("- (no pair found)")
                else:
                    cells.append(f"{x:.3f}" + (f" {verdict(x >= goal)}" if goal else " (no target)"))
            for name in ("m2 dedup", "m2 sim>=0.5"):
                tp, _, pos = det[c, length, name]
                x = tp / pos if pos else float("nan")
                cells.append(f"{x:.3f}" + (f" {verdict(x >= TARGET_RECALL)}" if name == "m2 dedup" else ""))
            rows.append([c, length, f">= {goal}" if goal else "-", *cells])
    tp, _, pos = det["overall", "all", "m2 dedup"]
    rows.append(["overall", "all", "-", "", "", "", f"{tp / pos:.3f} {verdict(tp / pos >= TARGET_RECALL)}",
                 f"{det['overall', 'all', 'm2 sim>=0.5'][0] / pos:.3f}"])
    out = [f"Targets, measure 2 at README's defaults: precision >= 0.95 (chinese, mixed), >= 0.90 (japanese), "
           f"english without a target; recall by the labels >= {TARGET_RECALL} (the dedup trigger: similarity "
           f">= {THETA} or containment >= {GAMMA} either way)", ""]
    return out + table(["corpus", "length", "precision target", "labels: sim>=0.5", "labels: dedup",
                        "corpus: sim>=0.5", "recall: dedup", "recall: sim>=0.5 (info)"], rows, set())


def decision_targets(det: dict, corp: dict | None) -> list[str]:
    """6.0's targets for the decision by pairs.tsv's labels (module docs), its corpus precision
    beside: PASS/FAIL, reported."""
    rows = []
    for c in CORPORA:
        for length in LENGTHS:
            tp, n, pos = det[c, length, "decision"]
            gtp, gn, _ = det[c, length, "m2 dedup"]
            goal = DECISION_PRECISION[length, c]
            prec = tp / n if n else float("nan")
            if length == "<100":
                rgoal, rok = f">= {DECISION_RECALL}", pos and tp / pos >= DECISION_RECALL
            else:
                rgoal, rok = f">= m2 dedup's {gtp / pos:.3f}" if pos else "-", tp >= gtp
            x = NONE if corp is None else corp[c, "decision", length]
            shown = x if corp is None else "- (no pair found)" if x != x else f"{x:.3f} {verdict(x >= goal)}"
            rows.append([c, length, f">= {goal}", f"{ratio(tp, n)} {verdict(prec >= goal)}", shown, rgoal,
                         f"{ratio(tp, pos)} {verdict(bool(rok))}",
                         f"{ratio(gtp, gn, False)} / {ratio(gtp, pos, False)}"])
    out = ["Targets of 6.0, the decision (the gate AND quality_decision's dup) by the labels: under 100 characters",
           f"precision >= 0.90 (chinese, english), >= 0.80 (japanese, mixed), recall >= {DECISION_RECALL}; 100",
           "characters and over precision >= 0.95, recall no lower than m2 dedup's. The decision's corpus precision",
           f"(similarity >= {THETA} AND dup, post-stratified) beside, against the same goal. Reported, not failing",
           "the run.", ""]
    out += table(["corpus", "length", "precision target", "decision: precision", "corpus: decision", "recall target",
                  "decision: recall", "m2 dedup: precision / recall"], rows, set())
    cells = [c for r in rows for c in r if c.endswith(("PASS", "FAIL"))]
    failed = sum(c.endswith("FAIL") for c in cells)
    return out + ["", f"6.0 decision targets: {verdict(not failed)} ({failed} of {len(cells)} failed)"]


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--decision", required=True, help="quality_decision")
    ap.add_argument("--out", required=True)
    ap.add_argument("--pairs", type=Path, default=HERE / "labels" / "pairs.tsv")
    ap.add_argument("--short-pairs", type=Path, default=HERE / "labels" / "short_pairs.tsv",
                    help="the short texts' labelled pairs (skipped when missing)")
    ap.add_argument("--second", type=Path, default=HERE / "labels" / "short_pairs_second.tsv",
                    help="their second reading (skipped when missing)")
    ap.add_argument("--corpora", type=Path, default=HERE.parents[1] / "target" / "corpus")
    ap.add_argument("--server", type=Path, help="directory of the server's pg_trgm_labels.tsv")
    ap.add_argument("--no-corpus", action="store_true", help="skip the corpus precision")
    ap.add_argument("--cache", type=Path, help="where to keep the corpus pair counts (default: OUT/cache)")
    a = ap.parse_args()
    decider = Decider(a.decision)
    pairs = read_pairs(a.pairs)
    measure(pairs, a.tool, decider)
    if a.server:
        got = {}
        for line in (a.server / "pg_trgm_labels.tsv").read_text(encoding="utf-8").splitlines():
            pid, s, w = line.split("\t")
            got[pid] = (float(s), float(w))
        missing = [p.id for p in pairs if p.id not in got]
        if missing:
            print(f"labels: pg_trgm values missing for {len(missing)} pairs ({missing[:3]}...)", file=sys.stderr)
            return 1
        for p in pairs:
            p.trgm = got[p.id]
    n = Counter(p.corpus for p in pairs)
    report = [f"Labelled pairs (tests/quality/labels/pairs.tsv): {len(pairs)} ("
              + ", ".join(f"{c} {n[c]}" for c in CORPORA) + f"), {sum(p.label for p in pairs)} labelled 1; "
              f"pg_trgm {'from the server' if a.server else 'not measured (no server): ' + NONE}", ""]
    det_lines, det = detector_tables(pairs)
    report += det_lines + [""] + frontier_table(pairs)
    if a.short_pairs.exists():
        short = read_pairs(a.short_pairs)
        measure(short, a.tool, decider)
        second = a.second if a.second.exists() else None
        if second:
            read_second(second, short)
        report += [""] + short_section(short, a.short_pairs, second)
    corp = None
    if not a.no_corpus:
        lines, corp = corpus_section(pairs, a.tool, decider, a.corpora, a.cache or Path(a.out) / "cache")
        report += [""] + lines
    report += [""] + targets(det, corp) + [""] + decision_targets(det, corp)
    text = "\n".join(report) + "\n"
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "labels.txt").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
