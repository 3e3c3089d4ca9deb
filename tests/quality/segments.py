"""Segment fingerprints against simhash() and the Python baseline: `make quality` (quality.py).

Systems, on the pairs of segment_pairs.py:
  1.0 r@3     simhash() under definition 1, the pair within 3 bits (`quality_fp --options`);
  python r@3  the python-jieba baseline (systems.py), within 3 bits;
  judge       not a system: the share of pairs that the corpus precision's judge (3-gram
              Jaccard >= 0.5) itself calls near-duplicates, what a system agreeing with it
              would find;
  segments    `quality_fp --segments --options SEGMENT_OPTIONS`: the distinct segment
              fingerprints of each text, matched exactly. Per pair, the resemblance
              2|A∩B| / (|A|+|B|) and the containment max(|A∩B|/|A|, |A∩B|/|B|) (either way);
              a pair is found as a near-duplicate when resemblance >= θ, as a shared passage
              when containment >= θc; a text without segments (fewer than 6 features)
              shares nothing.
Negatives (edits.py's): the pairs matched at each threshold, a count (the target is 0).
Corpus precision: every pair of corpus lines that shares a segment, found exactly through an
inverted index of the segments, judged as measure.py judges (3-gram Jaccard >= 0.5).
The targets of issue 19 are judged at DEFAULT_THETA and DEFAULT_THETA_C.
Last, tolerance.py's table: segments matched within k bits (opt-in since 2.1.0).
"""
from __future__ import annotations

import json
import os
import sys
from collections import Counter, defaultdict
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from edits import KINDS, Bench, Pair
from judge import accepts, grams, jaccard, near
from measure import Result, distances, precision_of
from segment_pairs import NEW_KINDS, SegmentBench, build
from systems import Fingerprints, python_jieba, quality_fp, run_fp
from tables import table
import tolerance

THETAS = (0.4, 0.5, 0.6, 0.7)           # resemblance thresholds measured
THETAS_C = (0.5, 0.6, 0.8)              # containment thresholds measured
DEFAULT_THETA = 0.7                     # the defaults the targets are judged at (definition 3 advice)
DEFAULT_THETA_C = 0.5
TARGET_RECALL = {"paragraphs": 0.97, "articles": 0.97, "short": 0.85}   # mean over the 9 repost edits
TARGET_TRADITIONAL = 0.95               # traditional copies, by resemblance
TARGET_CONTAINMENT = 0.95               # excerpts and merged texts, by containment
TARGET_PRECISION = 0.95                 # corpus precision by resemblance
SEGMENT_OPTIONS = os.environ.get("QUALITY_SEGMENT_OPTIONS", "{}")   # the default definition
# QUALITY_SEGMENT_RULES=SPEC: `quality_fp --segments --rules SPEC` instead (candidate rules).
SEGMENT_RULES = os.environ.get("QUALITY_SEGMENT_RULES")
SEGMENT_ARGS = ("--segments", "--rules", SEGMENT_RULES) if SEGMENT_RULES else ("--segments", "--options", SEGMENT_OPTIONS)
DEFINITION_1 = ("--options", '{"definition":"1"}')
K = 3                                   # the whole-text fingerprints' distance
SENTENCE_EDITS = tuple(k for k in KINDS if not k.startswith("chars"))   # no random character edits: a mean row too
WORST = 5                               # corpus pairs listed, lowest Jaccard first

Segments = dict[str, frozenset[int]]    # text -> its segment fingerprints


def segment_sets(binary: str, texts: list[str]) -> Segments:
    lines = run_fp(binary, SEGMENT_ARGS, texts)
    return {t: frozenset(json.loads(v)) for t, v in zip(texts, lines)}


def overlap(a: frozenset[int], b: frozenset[int]) -> tuple[float, float]:
    """(resemblance, containment either way) of two segment sets."""
    shared = len(a & b)
    if not shared:
        return 0.0, 0.0
    return 2 * shared / (len(a) + len(b)), max(shared / len(a), shared / len(b))


@dataclass
class PairStats:
    pairs: int
    empty: int                  # pairs with a text without segments
    resemblance: np.ndarray
    containment: np.ndarray
    r_fp: float                 # 1.0 within K
    r_py: float                 # python-jieba within K
    judge: float                # judge.accepts: 3-gram Jaccard >= 0.5

    def found(self, theta: float, containment: bool = False) -> float:
        values = self.containment if containment else self.resemblance
        return float((values >= theta).mean()) if self.pairs else float("nan")

    def matched(self, theta: float, containment: bool = False) -> int:
        return int(((self.containment if containment else self.resemblance) >= theta).sum())


def pair_stats(pairs: list[Pair], segs: Segments, fp: Fingerprints, py: Fingerprints, judged: bool = True) -> PairStats:
    """`judged`: whether to judge each pair's texts too (not for the 400,000 negatives, whose row shows no judge)."""
    both = np.array([overlap(segs[a], segs[b]) for a, b in pairs]).reshape(-1, 2)
    empty = sum(not segs[a] or not segs[b] for a, b in pairs)
    rate = (lambda f: float((distances(pairs, f) <= K).mean())) if pairs else (lambda f: float("nan"))
    judge = float(np.mean([accepts(grams(a), grams(b)) for a, b in pairs])) if pairs and judged \
        else float("nan")
    return PairStats(len(pairs), empty, both[:, 0], both[:, 1], rate(fp), rate(py), judge)


# ---------------------------------------------------------------- corpus precision

@dataclass
class CorpusPair:
    a: int
    b: int
    shared: int
    resemblance: float
    containment: float
    jaccard: float


def corpus_pairs(corpus: list[str], segs: Segments, gram_cache: list) -> tuple[list[CorpusPair], int]:
    """Every pair of corpus lines (1-based) sharing a segment, and the longest posting list."""
    index = defaultdict(list)
    for i, text in enumerate(corpus, 1):
        for s in segs[text]:
            index[s].append(i)
    shared = Counter()
    for ids in index.values():
        for x, a in enumerate(ids):
            shared.update((a, b) for b in ids[x + 1:])
    out = []
    for (a, b), n in sorted(shared.items()):
        res, cont = overlap(segs[corpus[a - 1]], segs[corpus[b - 1]])
        out.append(CorpusPair(a, b, n, res, cont, jaccard(gram_cache[a - 1][0], gram_cache[b - 1][0])))
    return out, max(map(len, index.values()), default=0)


def precision_cell(pairs: list[CorpusPair]) -> str:
    n = sum(near(p.jaccard) for p in pairs)
    return f"{100 * n / len(pairs) if pairs else 100:5.1f}% {n}/{len(pairs)}"


# ---------------------------------------------------------------- report

def recall_cells(s: PairStats) -> list[str]:
    return [f"{s.r_fp:.3f}", f"{s.r_py:.3f}", f"{s.judge:.3f}", " ".join(f"{s.found(t):.3f}" for t in THETAS),
            " ".join(f"{s.found(t, True):.3f}" for t in THETAS_C), f"{s.empty}"]


def mean_found(stats: dict[str, PairStats], theta: float, containment: bool = False,
               kinds: tuple[str, ...] = KINDS) -> float:
    return float(np.mean([stats[k].found(theta, containment) for k in kinds]))


def mean_row(length: str, by_kind: dict[str, PairStats], kinds: tuple[str, ...], label: str) -> list[str]:
    means = [float(np.mean([getattr(by_kind[k], a) for k in kinds])) for a in ("r_fp", "r_py", "judge")]
    return [length, label, "", *(f"{m:.3f}" for m in means),
            " ".join(f"{mean_found(by_kind, t, False, kinds):.3f}" for t in THETAS),
            " ".join(f"{mean_found(by_kind, t, True, kinds):.3f}" for t in THETAS_C), ""]


def main_table(stats: dict[tuple[str, str], PairStats], lengths: list[str], neg: dict[str, PairStats],
               corpus: list[CorpusPair], fp_prec: list[str]) -> list[str]:
    header = ["set", "row", "pairs", f"1.0 r@{K}", f"python r@{K}", "judge",
              "resemblance >= " + " ".join(map(str, THETAS)), "containment >= " + " ".join(map(str, THETAS_C)),
              "empty"]
    rows = []
    for length in lengths:
        by_kind = {k: s for (l, k), s in stats.items() if l == length}
        for kind in (*KINDS, *NEW_KINDS):
            rows.append([length, kind, f"{by_kind[kind].pairs:,}", *recall_cells(by_kind[kind])])
        rows.append(mean_row(length, by_kind, KINDS, f"mean ({len(KINDS)} repost edits)"))
        rows.append(mean_row(length, by_kind, SENTENCE_EDITS, "  mean without chars1%, chars3%"))
    for name, s in neg.items():
        rows.append(["negatives", f"{name} (pairs matched)", f"{s.pairs:,}", "", "", "",
                     " ".join(str(s.matched(t)) for t in THETAS),
                     " ".join(str(s.matched(t, True)) for t in THETAS_C), f"{s.empty}"])
    for t in THETAS:
        rows.append(["corpus", f"resemblance >= {t}: precision near/pairs", "", *fp_prec, "",
                     precision_cell([p for p in corpus if p.resemblance >= t]), "", ""])
    for t in THETAS_C:
        rows.append(["corpus", f"containment >= {t}: precision near/pairs", "", "", "", "", "",
                     precision_cell([p for p in corpus if p.containment >= t]), ""])
    return table(header, rows, right={2, 3, 4, 5, 8})


def targets(stats: dict[tuple[str, str], PairStats], lengths: list[str], neg: dict[str, PairStats],
            corpus: list[CorpusPair]) -> list[str]:
    t, tc = DEFAULT_THETA, DEFAULT_THETA_C
    hard = {n: s.matched(t) for n, s in neg.items() if n.startswith("hard")}
    judged = [p for p in corpus if p.resemblance >= t]
    prec = sum(near(p.jaccard) for p in judged) / len(judged) if judged else 1.0

    def per_length(kind: str, containment: bool) -> tuple[float, str]:
        found = {l: stats[l, kind].found(tc if containment else t, containment) for l in lengths}
        return min(found.values()), ", ".join(f"{l} {x:.3f}" for l, x in found.items())

    checks = [(mean_found({k: s for (l, k), s in stats.items() if l == length}, t) >= want,
               f"mean recall of the {len(KINDS)} repost edits, {length}, resemblance >= {t}: "
               f"{mean_found({k: s for (l, k), s in stats.items() if l == length}, t):.3f} >= {want}")
              for length, want in TARGET_RECALL.items()]
    low, text = per_length("traditional", False)
    checks.append((low >= TARGET_TRADITIONAL, f"traditional copies, resemblance >= {t}: {text} (each >= "
                                              f"{TARGET_TRADITIONAL})"))
    for kind in ("excerpt 60%", "merged"):
        low, text = per_length(kind, True)
        checks.append((low >= TARGET_CONTAINMENT, f"{kind}, containment >= {tc}: {text} (each >= "
                                                  f"{TARGET_CONTAINMENT})"))
    checks.append((prec >= TARGET_PRECISION, f"corpus precision, resemblance >= {t}: {100 * prec:.1f}% "
                                             f"({len(judged)} pairs) >= {100 * TARGET_PRECISION:.0f}%"))
    checks.append((not any(hard.values()), "hard negatives matched, resemblance >= "
                                           f"{t}: " + ", ".join(f"{n[6:]} {c}" for n, c in hard.items())))
    return [f"{'met    ' if ok else 'NOT MET'}  {line}" for ok, line in checks]


def worst_pairs(corpus: list[str], pairs: list[CorpusPair]) -> list[str]:
    judged = sorted((p for p in pairs if p.resemblance >= DEFAULT_THETA), key=lambda p: (p.jaccard, p.a, p.b))
    out = [f"segments: the {WORST} corpus pairs at resemblance >= {DEFAULT_THETA} with the lowest Jaccard"]
    for p in judged[:WORST]:
        out.append(f"  {p.a:>5} {p.b:>5}  shared={p.shared} R={p.resemblance:.2f} C={p.containment:.2f} "
                   f"J={p.jaccard:.2f}  {corpus[p.a - 1][:24]!r}  {corpus[p.b - 1][:24]!r}")
    return out


def save_pairs(out: Path, corpus: list[CorpusPair]) -> None:
    with open(out / "corpus_pairs_segments.tsv", "w") as f:
        f.write("id1\tid2\tshared\tresemblance\tcontainment\tjaccard\n")
        f.writelines(f"{p.a}\t{p.b}\t{p.shared}\t{p.resemblance:.3f}\t{p.containment:.3f}\t{p.jaccard:.3f}\n"
                     for p in corpus)


def run(binary: str, bench: Bench, fps: dict[str, Fingerprints], res: dict[str, Result], gram_cache: list,
        out: Path) -> list[str]:
    """The segments section of the report."""
    sb: SegmentBench = build(bench)
    texts = list(dict.fromkeys([*bench.corpus, *(t for p in sb.pairs() for t in p)]))
    extra = [t for t in texts if t not in fps["1.0"]]
    print(f"quality: segments of {len(texts):,} texts ({SEGMENT_OPTIONS}); 1.0 and python-jieba of "
          f"{len(extra):,} more", file=sys.stderr, flush=True)
    segs = segment_sets(binary, texts)
    fp = {**fps["1.0"], **quality_fp(binary, DEFINITION_1, extra)}
    py = {**fps["python-jieba"], **python_jieba(extra)}
    stats = {(l, k): pair_stats(ps, segs, fp, py) for l, kinds in sb.edited.items() for k, ps in kinds.items()}
    neg = {name: pair_stats(ps, segs, fp, py, judged=False) for name, ps in sb.negatives.items()}
    corpus, longest = corpus_pairs(bench.corpus, segs, gram_cache)
    save_pairs(out, corpus)
    lengths = list(sb.edited)
    fp_prec = [f"{100 * precision_of(res[s].precision.pairs[K]):.1f}%" for s in ("1.0", "python-jieba")]
    with_segments = sum(bool(segs[t]) for t in bench.corpus)
    return [
        f"Segments ({SEGMENT_OPTIONS}) against simhash() definition 1 within {K} and python-jieba within {K}",
        *sb.notes,
        "",
        *main_table(stats, lengths, neg, corpus, fp_prec),
        "",
        "resemblance, containment: share of pairs at or above each threshold; empty: pairs with a text without "
        "segments.",
        f"corpus: {with_segments:,} of {len(bench.corpus):,} lines have segments; {len(corpus):,} pairs share "
        f"one; the most lines sharing one segment: {longest} (corpus_pairs_segments.tsv)",
        *worst_pairs(bench.corpus, corpus),
        "",
        f"Targets, segments at resemblance >= {DEFAULT_THETA} and containment >= {DEFAULT_THETA_C}:",
        *targets(stats, lengths, neg, corpus),
        "",
        *tolerance.lines(sb.edited, segs, bench.corpus, corpus, TARGET_RECALL, TARGET_PRECISION),
    ]
