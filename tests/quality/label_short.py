"""The short texts of `make quality`'s labels.py (labels/short_pairs.tsv): m2 dedup and 6.0's
decision by their labels per corpus and length band, and, when the blind second reading is there
(labels/short_pairs_second.tsv), the two readers' agreement (equal labels, Cohen's kappa) and the
same detectors by the second reader's labels.

  read_second(path, pairs)              the second reader's labels onto the pairs (label2)
  short_section(pairs, path, second)    the section's report lines
"""
from __future__ import annotations

from collections import Counter
from pathlib import Path

from label_pairs import DETECTORS, HERE, Pair, counts, groups
from tables import ratio, table


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
