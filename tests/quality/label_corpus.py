"""The corpus precision (post-stratified) of `make quality`'s labels.py: every pair of each whole
corpus at similarity >= 0.3 counted per band and length class, weighted by the labelled precision
of the band's labelled corpus pairs, for measure 2, measure 1 and 6.0's decision (the method and
its fallbacks: labels.py's docs). The corpus pair counts are kept in a cache (allpairs takes
minutes on the English corpus).

  corpus_section(pairs, binary, decider, corpus_dir, cache)   its report lines, and the estimates
                                                              labels.py's targets read
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections import Counter
from pathlib import Path

from decision import Decider
from label_pairs import BANDS, CORPORA, FRONTIER, LENGTHS, THETA, Pair, sample
from tables import table


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
    """The labelled precision of a cell, with its fallbacks (labels.py's docs): (p, mark)."""
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
