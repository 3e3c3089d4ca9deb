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
  decision                6.0's: the gate (m2 dedup) AND quality_decision's "dup" (decision.py)
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

Writes DIR/labels.txt (--out) and prints it. Deterministic.

  python3 labels.py --tool quality_similarity --decision quality_decision --out DIR [--server DIR]
      [--corpora DIR] [--pairs FILE] [--short-pairs FILE] [--second FILE]
"""
from __future__ import annotations

import argparse
import hashlib
import json
import subprocess
import sys
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

from decision import Decider, gate, run_tool
from tables import ratio, table

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "labels"))
import sample                                       # noqa: E402  (the draw: its corpora, filters, bands)

CORPORA = tuple(sample.CORPORA)                     # chinese, english, japanese, mixed
LENGTHS = ("<100", "100+")
BANDS = sample.BANDS                                # [0.3,0.4) .. [0.9,1.0]
THETA, GAMMA = 0.5, 0.8                             # README's defaults
FRONTIER = (0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9)
TARGET_PRECISION = {"chinese": 0.95, "mixed": 0.95, "japanese": 0.90}
TARGET_RECALL = 0.95
DECISION_PRECISION = {("<100", "chinese"): 0.90, ("<100", "english"): 0.90, ("<100", "japanese"): 0.80,
                      ("<100", "mixed"): 0.80, **{("100+", c): 0.95 for c in CORPORA}}
DECISION_RECALL = 0.85                              # under 100; 100 and over: m2 dedup's
NONE = "—"


@dataclass
class Pair:
    id: str
    corpus: str
    drawn: str
    label: int
    a: str
    b: str
    m: dict[int, tuple[float, float, float]] = field(default_factory=dict)   # measure -> (sim, a_in_b, b_in_a)
    trgm: tuple[float, float] | None = None                                  # (similarity, word_similarity)
    dup: bool | None = None                                                  # quality_decision's "dup"
    label2: int | None = None                                                # the second reader's label

    @property
    def length(self) -> str:
        return "<100" if sample.short(self.a, self.b) else "100+"

    @property
    def from_corpus(self) -> bool:
        return not self.drawn.startswith("edit")


def read_pairs(path: Path) -> list[Pair]:
    lines = [l.rstrip("\n") for l in path.read_text(encoding="utf-8").splitlines() if not l.startswith("#")]
    header, rows = lines[0].split("\t"), [l.split("\t") for l in lines[1:] if l]
    assert header == ["pair", "corpus", "drawn", "label", "reason", "a", "b"], header
    out = []
    for r in rows:
        assert len(r) == 7 and r[3] in ("0", "1"), r[:5]
        out.append(Pair(r[0], r[1], r[2], int(r[3]), r[5], r[6]))
    return out


def read_second(path: Path, pairs: list[Pair]) -> None:
    """The second reader's labels (`pair label reason`) onto `pairs` (label2)."""
    lines = [l for l in path.read_text(encoding="utf-8").splitlines() if l and not l.startswith("#")]
    assert lines[0].split("\t") == ["pair", "label", "reason"], lines[0]
    got = {}
    for l in lines[1:]:
        r = l.split("\t")
        assert len(r) == 3 and r[1] in ("0", "1"), r
        got[r[0]] = int(r[1])
    unknown = set(got) - {p.id for p in pairs}
    assert not unknown, sorted(unknown)[:3]
    for p in pairs:
        p.label2 = got.get(p.id)


def measure(pairs: list[Pair], tool: str, decider: Decider) -> None:
    """Measure 2 and 1 of each pair, and the decision of those through the gate."""
    for m in (2, 1):
        for p, line in zip(pairs, run_tool(tool, ["pairs", f"m={m}"], [[p.a, p.b] for p in pairs]), strict=True):
            p.m[m] = tuple(float(x) for x in line.split())
    decider.decide([(p.a, p.b) for p in pairs if gate(p.m[2])])
    for p in pairs:
        p.dup = decider.dup(p.a, p.b) if gate(p.m[2]) else False


# ---------------------------------------------------------------- detectors

DETECTORS = {
    "m2 sim>=0.5": lambda p: p.m[2][0] >= THETA,
    "m2 dedup": lambda p: gate(p.m[2]),
    "decision": lambda p: gate(p.m[2]) and p.dup,
    "m1 sim>=0.5": lambda p: p.m[1][0] >= THETA,
    "m1 dedup": lambda p: p.m[1][0] >= THETA or max(p.m[1][1:]) >= GAMMA,
    "trgm>=0.3": lambda p: None if p.trgm is None else p.trgm[0] >= 0.3,
    "trgm>=0.5": lambda p: None if p.trgm is None else p.trgm[0] >= 0.5,
    "wsim>=0.6": lambda p: None if p.trgm is None else p.trgm[1] >= 0.6,
    "wsim>=0.5": lambda p: None if p.trgm is None else p.trgm[1] >= 0.5,
}


def counts(pairs: list[Pair], found, label=lambda p: p.label) -> tuple[int, int, int] | None:
    """(true positives, matched, label-1 pairs), or None when the detector has no values;
    `label`: whose label (the second reader's: lambda p: p.label2)."""
    got = [found(p) for p in pairs]
    if any(g is None for g in got):
        return None
    tp = sum(g and label(p) == 1 for g, p in zip(got, pairs))
    return tp, sum(got), sum(label(p) == 1 for p in pairs)


def groups(pairs: list[Pair], corpora=CORPORA) -> list[tuple[str, str, list[Pair]]]:
    """(corpus, length, pairs) per corpus and length band, each corpus's all, and overall."""
    out = []
    for c in [*corpora, "overall"]:
        ps = [p for p in pairs if c in ("overall", p.corpus)]
        for length in (*LENGTHS, "all"):
            out.append((c, length, [p for p in ps if length in ("all", p.length)]))
    return out


def detector_tables(pairs: list[Pair]) -> tuple[list[str], dict]:
    prec, rec, results = [], [], {}
    for c, length, ps in groups(pairs):
        pcells, rcells = [], []
        for name, f in DETECTORS.items():
            k = counts(ps, f)
            results[c, length, name] = k
            pcells.append(NONE if k is None else ratio(k[0], k[1]))
            rcells.append(NONE if k is None else ratio(k[0], k[2]))
        pos = sum(p.label for p in ps)
        prec.append([c, length, f"{len(ps)}", f"{pos}", *pcells])
        rec.append([c, length, f"{len(ps)}", f"{pos}", *rcells])
    header = ["corpus", "length", "pairs", "label 1", *DETECTORS]
    right = set(range(2, len(header)))
    out = ["Precision by the labels (label-1 pairs among those matched) at README's defaults; the sample",
           "over-weights the upper bands (see the corpus precision below)", ""]
    out += table(header, prec, right)
    out += ["", "Recall by the labels (matched among the label-1 pairs; edits, quotations and corpus pairs)", ""]
    out += table(header, rec, right)
    return out, results


def frontier_table(pairs: list[Pair]) -> list[str]:
    rows = []
    for c, length, ps in groups(pairs):
        cells = []
        for t in FRONTIER:
            tp, n, pos = counts(ps, lambda p: p.m[2][0] >= t)
            cells.append(f"{ratio(tp, n, False)} / {ratio(tp, pos, False)}")
        rows.append([c, length, *cells])
    out = ["Measure 2's frontier by the labels: precision / recall of simhash_similarity >= t", ""]
    return out + table(["corpus", "length", *(f"t = {t}" for t in FRONTIER)], rows, set(range(2, 2 + len(FRONTIER))))


# ---------------------------------------------------------------- corpus precision

def band_index(x: float) -> int | None:
    b = sample.band_of(x, BANDS)
    return None if b is None else BANDS.index(b)


def corpus_texts(name: str, corpus_dir: Path) -> tuple[list[str], list[str]]:
    """sample.py's texts of a corpus and their normalized (measure 2's kept) strings."""
    _, files, _ = sample.CORPORA[name]
    lines = list(dict.fromkeys(line for f in files for line in sample.read_corpus(corpus_dir / f)))
    texts = [t for t in lines if len(t) <= sample.MAX_LEN and len(sample.kept(t, False)) >= sample.MIN_KEPT]
    return texts, [sample.kept(t, False) for t in texts]


def corpus_counts(binary: str, texts: list[str], norm: list[str], m: int,
                  cache: Path | None) -> tuple[Counter, list[tuple[int, int, float]]]:
    """(band, length) -> the corpus pairs at similarity >= 0.3 under measure m, and the pairs
    (i, j, similarity) at >= THETA (for the decision). Both are kept in `cache` under the hash of the
    binary, its arguments and its input: allpairs at 0.3 takes minutes on the English corpus,
    and the same inputs give the same pairs."""
    args = ["allpairs", str(BANDS[0][0]), "2", f"m={m}"]
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in texts)
    key = hashlib.sha256(b"counts, pairs >= theta\n" + Path(binary).read_bytes() + json.dumps(args).encode()
                         + data.encode()).hexdigest()[:24]
    file = cache / f"allpairs-{key}.json" if cache else None
    if file and file.exists():
        d = json.loads(file.read_text())
        return Counter({(b, length): n for b, length, n in d["counts"]}), [tuple(x) for x in d["above"]]
    n, above = Counter(), []
    out = subprocess.run([binary, *args], input=data, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        i, j, s = line.split()[:3]
        i, j = int(i), int(j)
        if norm[i] == norm[j]:
            continue
        b = band_index(float(s))
        if b is not None:
            n[b, "<100" if sample.short(texts[i], texts[j]) else "100+"] += 1
        if float(s) >= THETA:
            above.append((i, j, float(s)))
    if file:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps({"counts": sorted([b, length, k] for (b, length), k in n.items()), "above": above}))
    return n, above


def decided_counts(decider: Decider, texts: list[str], above: list[tuple[int, int, float]]) -> Counter:
    """(band, length) -> the corpus pairs at similarity >= THETA (measure 2) the decision accepts."""
    decider.decide([(texts[i], texts[j]) for i, j, _ in above])
    n = Counter()
    for i, j, x in above:
        if decider.dup(texts[i], texts[j]):
            n[band_index(x), "<100" if sample.short(texts[i], texts[j]) else "100+"] += 1
    return n


def band_precision(pairs: list[Pair], m: int, accept=lambda p: True) -> dict[tuple[int, str], tuple[int, int]]:
    """(band, length) -> (label-1, labelled) of one corpus's labelled corpus pairs under measure m
    (those `accept` accepts)."""
    out: dict = {}
    for p in pairs:
        b = band_index(p.m[m][0])
        if p.from_corpus and b is not None and accept(p):
            k, n = out.get((b, p.length), (0, 0))
            out[b, p.length] = (k + p.label, n + 1)
    return out


def cell_precision(lab: dict, b: int, length: str) -> tuple[float, str]:
    """The labelled precision of a cell, with its fallbacks (module docs): (p, mark)."""
    k, n = lab.get((b, length), (0, 0))
    if n:
        return k / n, ""
    k, n = (sum(lab.get((b, l), (0, 0))[i] for l in LENGTHS) for i in (0, 1))
    if n:
        return k / n, "*"
    for d in range(1, len(BANDS)):
        for nb in (b + d, b - d):
            if 0 <= nb < len(BANDS):
                k, n = (sum(lab.get((nb, l), (0, 0))[i] for l in LENGTHS) for i in (0, 1))
                if n:
                    return k / n, "**"
    return float("nan"), "**"


def post_stratified(N: Counter, lab: dict, t: float, lengths) -> tuple[float, int, int]:
    """(P(t), corpus pairs at >= t, of them in fallback cells)."""
    num = den = fb = 0
    for b, (lo, _) in enumerate(BANDS):
        if lo < t - 1e-9:
            continue
        for length in lengths:
            n = N[b, length]
            if n:
                p, mark = cell_precision(lab, b, length)
                num, den, fb = num + n * p, den + n, fb + (n if mark else 0)
    return (num / den if den else float("nan")), den, fb


def estimate(p: float, den: int, fb: int) -> str:
    """A post-stratified precision as a cell: "0.500 of 12 (3 fb)"."""
    return ("-" if p != p else f"{p:.3f}") + f" of {den:,}" + (f" ({fb:,} fb)" if fb else "")


def corpus_section(pairs: list[Pair], binary: str, decider: Decider, corpus_dir: Path,
                   cache: Path | None) -> tuple[list[str], dict]:
    bands_rows, prec_rows, dec_rows, results = [], [], [], {}
    top = [b for b, (lo, _) in enumerate(BANDS) if lo >= THETA - 1e-9]
    for c in CORPORA:
        texts, norm = corpus_texts(c, corpus_dir)
        ps = [p for p in pairs if p.corpus == c]
        for m in (2, 1):
            N, above = corpus_counts(binary, texts, norm, m, cache)
            lab = band_precision(ps, m)
            if m == 2:
                Nd = decided_counts(decider, texts, above)
                labd = band_precision(ps, 2, lambda p: p.m[2][0] >= THETA and p.dup)
                for length in (*LENGTHS, "all"):
                    ls = LENGTHS if length == "all" else (length,)
                    pd, dend, fbd = post_stratified(Nd, labd, THETA, ls)
                    results[c, "decision", length] = pd
                    cells = []
                    for b in top:
                        k, n = (sum(labd.get((b, l), (0, 0))[i] for l in ls) for i in (0, 1))
                        cells.append(f"{sum(Nd[b, l] for l in ls):,}/{sum(N[b, l] for l in ls):,} ({k}/{n})")
                    dec_rows.append([c, length, estimate(*post_stratified(N, lab, THETA, ls)), estimate(pd, dend, fbd),
                                     *cells])
            for length in LENGTHS:
                cells = []
                for b in range(len(BANDS)):
                    k, n = lab.get((b, length), (0, 0))
                    p, mark = cell_precision(lab, b, length)
                    shown = "-" if p != p else f"{p:.2f}{mark}"
                    cells.append(f"{N[b, length]:,} × {shown} ({k}/{n})")
                bands_rows.append([c, f"m{m}", length, *cells])
            for length in (*LENGTHS, "all"):
                ls = LENGTHS if length == "all" else (length,)
                cells = []
                for t in FRONTIER:
                    p, den, fb = post_stratified(N, lab, t, ls)
                    results[c, m, length, t] = p
                    cells.append(estimate(p, den, fb))
                prec_rows.append([c, f"m{m}", length, *cells])
        print(f"labels: {c}: {len(texts):,} texts, corpus pairs counted", file=sys.stderr, flush=True)
    out = ["Corpus precision (post-stratified): per band, the corpus's pairs N (every pair of distinct texts,",
           "exactly) × the labelled precision of the band's labelled corpus pairs (label 1 / labelled); * = the",
           "band over both length classes (no labelled pair in the cell), ** = the nearest labelled band", ""]
    out += table(["corpus", "measure", "length", *(f"{lo:.1f}-{hi:.1f}" for lo, hi in BANDS)], bands_rows,
                 set(range(3, 3 + len(BANDS))))
    out += ["", "P(t) = sum over bands >= t of N(b, L) p(b, L) / sum of N(b, L): the estimated precision of",
            "`simhash_similarity >= t` over all pairs of each whole corpus ('of N': the corpus pairs at >= t;",
            "'fb': of them, in cells whose precision is a fallback)", ""]
    out += table(["corpus", "measure", "length", *(f"t = {t}" for t in FRONTIER)], prec_rows,
                 set(range(3, 3 + len(FRONTIER))))
    out += ["", f"The decision's corpus precision: P_d = sum over bands >= {THETA} of N_d(b, L) p_d(b, L) / sum of",
            f"N_d(b, L), N_d = the corpus pairs at similarity >= {THETA} the decision accepts, p_d = the labelled",
            "precision of the labelled corpus pairs it accepts (the same fallbacks); per band: N_d / N (label 1 /",
            "labelled, accepted)", ""]
    out += table(["corpus", "length", f"m2 sim >= {THETA}: P", "decision: P_d",
                  *(f"{BANDS[b][0]:.1f}-{BANDS[b][1]:.1f}" for b in top)], dec_rows, set(range(2, 4 + len(top))))
    return out, results


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


# ---------------------------------------------------------------- short texts

SHORT_DETECTORS = ("m2 dedup", "decision")


def short_table(pairs: list[Pair], label, corpora: tuple[str, ...]) -> list[str]:
    """Precision / recall of SHORT_DETECTORS per corpus and length band, by `label`."""
    rows = []
    for c, length, ps in groups(pairs, corpora):
        if not ps and c != "overall":
            continue
        cells = []
        for name in SHORT_DETECTORS:
            tp, n, pos = counts(ps, DETECTORS[name], label)
            cells += [ratio(tp, n), ratio(tp, pos)]
        rows.append([c, length, f"{len(ps)}", f"{sum(label(p) for p in ps)}", *cells])
    header = ["corpus", "length", "pairs", "label 1",
              *(f"{name}: {what}" for name in SHORT_DETECTORS for what in ("precision", "recall"))]
    return table(header, rows, set(range(2, len(header))))


def kappa(xs: list[tuple[int, int]]) -> float:
    """Cohen's kappa of two readers' 0/1 labels."""
    n = len(xs)
    po = sum(a == b for a, b in xs) / n
    a1, b1 = sum(a for a, _ in xs) / n, sum(b for _, b in xs) / n
    pe = a1 * b1 + (1 - a1) * (1 - b1)
    return (po - pe) / (1 - pe) if pe < 1 else float("nan")


def agreement(pairs: list[Pair], corpora: tuple[str, ...]) -> list[str]:
    rows = []
    for c in (*corpora, "overall"):
        xs = [(p.label, p.label2) for p in pairs if c in ("overall", p.corpus) and p.label2 is not None]
        if not xs:
            continue
        eq = sum(a == b for a, b in xs)
        rows.append([c, f"{len(xs)}", f"{eq / len(xs):.3f} {eq}/{len(xs)}", f"{kappa(xs):.3f}",
                     f"{sum(a > b for a, b in xs)}", f"{sum(a < b for a, b in xs)}"])
    return table(["corpus", "pairs read twice", "equal labels", "Cohen's kappa", "first 1, second 0",
                  "first 0, second 1"], rows, set(range(1, 6)))


def short_section(pairs: list[Pair], path: Path, second: Path | None) -> list[str]:
    corpora = tuple(dict.fromkeys(p.corpus for p in pairs))
    n = Counter(p.corpus for p in pairs)
    shown = path.relative_to(HERE.parents[1]) if path.is_relative_to(HERE.parents[1]) else path
    out = [f"Short texts ({shown}): {len(pairs)} pairs (" + ", ".join(f"{c} {n[c]}" for c in corpora)
           + f"), {sum(p.label for p in pairs)} labelled 1.",
           "m2 dedup (5.2.0's decision, the gate) and the decision (the gate AND quality_decision's dup): precision /",
           "recall by the labels", ""]
    out += short_table(pairs, lambda p: p.label, corpora)
    if second is None:
        return out + ["", "No second reading (labels/short_pairs_second.tsv): no agreement reported"]
    read = [p for p in pairs if p.label2 is not None]
    out += ["", f"The two readers ({second.name}: a blind second reading, {len(read)} of the {len(pairs)} pairs): "
            "agreement", ""]
    out += agreement(read, corpora)
    out += ["", "The same detectors by the second reader's labels", ""]
    return out + short_table(read, lambda p: p.label2, corpora)


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
