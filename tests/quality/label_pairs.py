"""The labelled pairs of `make quality`'s labels.py: reading them, measuring them, the detectors
and the counts and tables every section of labels.py shares.

  Pair, read_pairs(path)            a pairs.tsv (`pair corpus drawn label reason a b`), a Pair a row
  measure(pairs, tool, decider)     measure 2 and 1 of each pair and 6.0's decision (decision.py)
  DETECTORS                         the yes/no detectors of labels.py's docs, by name
  counts, groups                    (true positives, matched, label-1 pairs) of a detector; the
                                    (corpus, length band) groups of the tables
  detector_tables, frontier_table   precision and recall by pairs.tsv's labels; measure 2's frontier

Also the draw's module (labels/sample.py: its corpora, filters, bands) as `sample`, and the
constants the sections share (README's defaults, the bands, the frontier's thresholds).
"""
from __future__ import annotations

import sys
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
