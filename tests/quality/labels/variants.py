"""How measure 2 was chosen: candidate measures against the labelled pairs (pairs.tsv).

A Python model of the shingles of crates/simhash-core/src/similarity/shingles.rs (without its
traditional-to-simplified folding, as sample.py), and candidates beside it:

  m1              every digit read as 0 (measure 1, 4.x)
  m2 W=w          digits as written, shingles of width w (5: the measure's)
  digits xN       digits as written, each shingle holding a digit counted N times (N copies)
  IDF a=A         digits as written, shingles weighted by log(N / df)^A, df over the pair's own
                  corpus (the table's own statistics: the best a fixed table could do)
  figures min     digits as written, times |F∩G| / min(|F|, |G|) of the figures (1 if either
                  has none)
  figures +1      digits as written, times (|F∩G| + 1) / (min(|F|, |G|) + 1): measure 2

Prints, per candidate, precision / recall by the labels of `similarity >= t` for t = 0.5, 0.6
and 0.7, per corpus and length band (the shorter text under 100 characters, or 100+), and the
similarity of four pairs that differ only in figures. Deterministic.

  python3 tests/quality/labels/variants.py [--corpora DIR]   (target/corpus by default; the IDF
  candidates need the corpora, the others only pairs.tsv)
"""
from __future__ import annotations

import argparse
import math
import re
import sys
import unicodedata
from collections import Counter
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
from sample import kept, shingles, width  # noqa: E402  (the measure's Python model)

THRESHOLDS = (0.5, 0.6, 0.7)
FIGURE = re.compile(r"\d+(?:[.,]\d+)*")
CORPORA = {"chinese": ["peoples_daily_199801.txt"], "english": ["english.txt", "pydocs.txt"],
           "japanese": ["japanese.txt"], "mixed": ["mixed.txt"]}
FIGURES_ONLY = [
    ("Changed in version 3.6: Accepts a path-like object.", "Changed in version 3.8: Accepts a path-like object."),
    ("New in version 3.6.", "New in version 3.8."),
    ("Invoice 1041: total 250.00 EUR due 2024-03-01", "Invoice 7782: total 990.15 EUR due 2025-11-30"),
    ("上证指数１１３７．５３　１１４１．５９", "上证指数１１２０．１１　１１３０．２２"),
]


def read_pairs() -> list[dict]:
    rows = []
    for line in (HERE / "pairs.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("pair\t"):
            continue
        pair, corpus, drawn, label, reason, a, b = line.split("\t")
        rows.append({"pair": pair, "corpus": corpus, "label": label == "1", "a": a, "b": b,
                     "short": min(len(a), len(b)) < 100})
    return rows


def shingles_w(k: str, w: int) -> frozenset[str]:
    ws = [width(c) for c in k]
    out = set()
    for i in range(len(k)):
        acc = 0
        for j in range(i, max(-1, i - w), -1):
            acc += ws[j]
            if acc >= w:
                out.add(k[j:i + 1])
                break
    if not out and k:
        out.add(k)
    return frozenset(out)


def jaccard(a, b) -> float:
    return len(a & b) / len(a | b) if a and b else 0.0


def weighted(a, b, weight) -> float:
    if not a or not b:
        return 0.0
    return sum(weight(s) for s in a & b) / sum(weight(s) for s in a | b)


def figures(t: str) -> frozenset[str]:
    return frozenset(FIGURE.findall(unicodedata.normalize("NFKC", t)))


def agreement(a: str, b: str, plus: int) -> float:
    f, g = figures(a), figures(b)
    if not plus and (not f or not g):
        return 1.0
    return (len(f & g) + plus) / (min(len(f), len(g)) + plus)


def candidates(df: dict | None):
    m2 = lambda t: shingles(kept(t, False))  # noqa: E731
    out = {"m1": lambda a, b: jaccard(shingles(kept(a, True)), shingles(kept(b, True)))}
    for w in (4, 5, 6, 7):
        out[f"m2 W={w}"] = lambda a, b, w=w: jaccard(shingles_w(kept(a, False), w), shingles_w(kept(b, False), w))
    for n in (2, 4):
        def rep(t, n=n):
            return frozenset((s, i) for s in m2(t) for i in range(n if any(c.isdigit() for c in s) else 1))
        out[f"digits x{n}"] = lambda a, b, rep=rep: jaccard(rep(a), rep(b))
    if df:
        for alpha in (1.0, 2.0):
            out[f"IDF a={alpha:g}"] = None, alpha
    out["figures min"] = lambda a, b: jaccard(m2(a), m2(b)) * agreement(a, b, 0)
    out["figures +1"] = lambda a, b: jaccard(m2(a), m2(b)) * agreement(a, b, 1)
    return out


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--corpora", default=str(HERE.parents[2] / "target/corpus"))
    args = ap.parse_args()
    rows = read_pairs()
    df, n = {}, {}
    if all((Path(args.corpora) / f).exists() for fs in CORPORA.values() for f in fs):
        for corpus, files in CORPORA.items():
            lines = set()
            for f in files:
                lines.update(ln.replace("\\\\", "\\") for ln in (Path(args.corpora) / f).read_text(encoding="utf-8").splitlines())
            df[corpus] = Counter(s for t in lines for s in shingles(kept(t, False)))
            n[corpus] = len(lines)
    cells = [(c, s) for c in CORPORA for s in (True, False)]
    head = "candidate        " + " ".join(f"{c[:3]} {'<100' if s else '100+':4}      " for c, s in cells)
    for t in THRESHOLDS:
        print(f"\nprecision / recall by the labels of similarity >= {t}\n{head}")
        for name, fn in candidates(df).items():
            if isinstance(fn, tuple):
                alpha = fn[1]
                fn = lambda a, b, c, alpha=alpha: weighted(  # noqa: E731
                    shingles(kept(a, False)), shingles(kept(b, False)),
                    lambda s: math.log((n[c] + 1) / (df[c].get(s, 0) + 1)) ** alpha)
            else:
                fn = (lambda f: lambda a, b, c: f(a, b))(fn)
            out = []
            for corpus, short in cells:
                sel = [r for r in rows if r["corpus"] == corpus and r["short"] == short]
                hit = [r for r in sel if fn(r["a"], r["b"], corpus) >= t]
                tp = sum(r["label"] for r in hit)
                pos = sum(r["label"] for r in sel)
                out.append(f"{tp / len(hit) if hit else float('nan'):4.2f}/{tp / pos if pos else float('nan'):4.2f}")
            print(f"{name:16s} " + " ".join(f"{x:14s}" for x in out))
    print("\npairs that differ only in figures: similarity under each candidate")
    for name, fn in candidates(None).items():
        print(f"{name:16s} " + " ".join(f"{fn(a, b):5.2f}" for a, b in FIGURES_ONLY))
    return 0


if __name__ == "__main__":
    sys.exit(main())
