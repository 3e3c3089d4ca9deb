"""What the quality benchmark measures: `make quality` (quality.py).

Hamming distances of pairs and their stats (recall within k, medians, NULLs); the
near-duplicate judge (judge.py); precision over the whole corpus from
every close pair found by brute force.
"""
from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from edits import KINDS, Bench, Pair
from judge import NEAR_DUP, grams, jaccard, near as judged_near
from systems import Fingerprints

KS = (3, 6, 10)
NULL = 99                            # the distance of a pair with a NULL fingerprint


# ---------------------------------------------------------------- measures

@dataclass
class Stats:
    pairs: int
    nulls: int
    within: dict[int, int]
    median: float | None
    minimum: int | None

    def rate(self, k: int) -> float:
        return self.within[k] / self.pairs if self.pairs else float("nan")


def distances(pairs: list[Pair], fps: Fingerprints) -> np.ndarray:
    a = [fps[x] for x, _ in pairs]
    b = [fps[y] for _, y in pairs]
    null = np.array([x is None or y is None for x, y in zip(a, b)], dtype=bool)
    fa = np.array([x or 0 for x in a], dtype=np.int64).view(np.uint64)
    fb = np.array([y or 0 for y in b], dtype=np.int64).view(np.uint64)
    return np.where(null, NULL, np.bitwise_count(fa ^ fb).astype(np.int64))


def stats(pairs: list[Pair], fps: Fingerprints) -> Stats:
    d = distances(pairs, fps)
    real = d[d != NULL]
    return Stats(len(d), int((d == NULL).sum()), {k: int((d <= k).sum()) for k in KS},
                 float(np.median(real)) if len(real) else None,
                 int(real.min()) if len(real) else None)


@dataclass
class Precision:
    kept: int                                   # corpus texts fingerprinted
    pairs: dict[int, list[tuple[int, int, int, float]]]   # k -> (id1, id2, distance, jaccard)


def set_aside(fp: int | None) -> bool:
    return fp is None or fp == 0


def close_pairs(ids: np.ndarray, fps: np.ndarray, k: int, chunk: int = 256):
    """Every (id1, id2, distance) with id1 < id2 and distance <= k, by brute force."""
    out = []
    for s in range(0, len(fps), chunk):
        d = np.bitwise_count(fps[s:s + chunk, None] ^ fps[None, s:])
        i, j = np.nonzero(d <= k)
        keep = j > i
        i, j = i[keep], j[keep]
        out += zip(ids[s + i].tolist(), ids[s + j].tolist(), d[i, j].tolist())
    return sorted(out)


def corpus_precision(corpus: list[str], fps: Fingerprints, gram_cache: list) -> Precision:
    kept = [(i + 1, fps[t]) for i, t in enumerate(corpus) if not set_aside(fps[t])]
    ids = np.array([i for i, _ in kept], dtype=np.int64)
    arr = np.array([f for _, f in kept], dtype=np.int64).view(np.uint64)
    found = close_pairs(ids, arr, max(KS[:2]))
    judged = [(a, b, d, jaccard(gram_cache[a - 1][0], gram_cache[b - 1][0]),
               jaccard(gram_cache[a - 1][1], gram_cache[b - 1][1])) for a, b, d in found]
    return Precision(len(kept), {k: [p for p in judged if p[2] <= k] for k in KS[:2]})


@dataclass
class Result:
    edited: dict[tuple[str, str], Stats]
    target: Stats
    negatives: dict[str, Stats]
    precision: Precision


def measure(bench: Bench, fps: Fingerprints, gram_cache: list) -> Result:
    return Result({(length, kind): stats(pairs, fps)
                   for length, kinds in bench.edited.items() for kind, pairs in kinds.items()},
                  stats(bench.target, fps),
                  {name: stats(pairs, fps) for name, pairs in bench.negatives.items()},
                  corpus_precision(bench.corpus, fps, gram_cache))


def mean_recall(res: Result, length: str, k: int) -> float:
    return float(np.mean([res.edited[length, kind].rate(k) for kind in KINDS]))


def near(pairs, raw: bool = False) -> int:
    """Pairs judged near-duplicates (`raw`: with digits as written)."""
    return sum(judged_near(p[4 if raw else 3]) for p in pairs)


def precision_of(pairs, raw: bool = False) -> float:
    return near(pairs, raw) / len(pairs) if pairs else 1.0


def by_length(corpus: list[str], pairs, lo: int, hi: int):
    return [p for p in pairs if lo <= min(len(corpus[p[0] - 1]), len(corpus[p[1] - 1])) < hi]
