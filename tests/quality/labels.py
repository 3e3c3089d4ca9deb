"""Precision and recall by the labels: the judge of the similarity measure that is not the
measure (tests/quality/labels/pairs.tsv, 770 pairs labelled by reading; how they were drawn:
tests/quality/labels/sample.py). The last part of `make quality` (run.sh).

For each labelled pair: measure 2 and measure 1 (similarity and both containments, from
`quality_similarity pairs m=2` / `m=1`), and with --server DIR pg_trgm's `similarity(a, b)` and
`greatest(word_similarity(a, b), word_similarity(b, a))` (DIR/pg_trgm_labels.tsv, dumped by
run.sh; without a server pg_trgm's cells are "—"). Detectors, each a yes/no per pair:

  m2 sim >= 0.5           README's default: simhash_similarity(a, b) >= 0.5
  m2 dedup                the dedup trigger with min_containment: similarity >= 0.5 OR a
                          containment either way >= 0.8
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

Targets (measure 2 at README's defaults): precision >= 0.95 for chinese and mixed, >= 0.90 for
japanese, for each length band (english is reported, without a target); recall by the labels
>= 0.95.

Writes DIR/labels.txt (--out) and prints it. Deterministic.

  python3 labels.py --tool quality_similarity --out DIR [--server DIR] [--corpora DIR] [--pairs FILE]
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

from tables import table

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


def run_tool(binary: str, args: list[str], lines: list) -> list[str]:
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    return subprocess.run([binary, *args], input=data, capture_output=True, text=True, check=True).stdout.splitlines()


# ---------------------------------------------------------------- detectors

DETECTORS = {
    "m2 sim>=0.5": lambda p: p.m[2][0] >= THETA,
    "m2 dedup": lambda p: p.m[2][0] >= THETA or max(p.m[2][1:]) >= GAMMA,
    "m1 sim>=0.5": lambda p: p.m[1][0] >= THETA,
    "m1 dedup": lambda p: p.m[1][0] >= THETA or max(p.m[1][1:]) >= GAMMA,
    "trgm>=0.3": lambda p: None if p.trgm is None else p.trgm[0] >= 0.3,
    "trgm>=0.5": lambda p: None if p.trgm is None else p.trgm[0] >= 0.5,
    "wsim>=0.6": lambda p: None if p.trgm is None else p.trgm[1] >= 0.6,
    "wsim>=0.5": lambda p: None if p.trgm is None else p.trgm[1] >= 0.5,
}


def counts(pairs: list[Pair], found) -> tuple[int, int, int] | None:
    """(true positives, matched, label-1 pairs), or None when the detector has no values."""
    got = [found(p) for p in pairs]
    if any(g is None for g in got):
        return None
    tp = sum(g and p.label == 1 for g, p in zip(got, pairs))
    return tp, sum(got), sum(p.label == 1 for p in pairs)


def ratio(k: int, n: int, counts_too: bool = True) -> str:
    if not n:
        return f"- 0/0" if counts_too else "-"
    return f"{k / n:.3f} {k}/{n}" if counts_too else f"{k / n:.3f}"


def groups(pairs: list[Pair]) -> list[tuple[str, str, list[Pair]]]:
    """(corpus, length, pairs) per corpus and length band, each corpus's all, and overall."""
    out = []
    for c in [*CORPORA, "overall"]:
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


def corpus_counts(binary: str, texts: list[str], norm: list[str], m: int, cache: Path | None) -> Counter:
    """(band, length) -> the corpus pairs at similarity >= 0.3 under measure m. The counts are
    kept in `cache` under the hash of the binary, its arguments and its input: allpairs at 0.3
    takes minutes on the English corpus, and the same inputs give the same counts."""
    args = ["allpairs", str(BANDS[0][0]), "2", f"m={m}"]
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in texts)
    key = hashlib.sha256(Path(binary).read_bytes() + json.dumps(args).encode() + data.encode()).hexdigest()[:24]
    file = cache / f"allpairs-{key}.json" if cache else None
    if file and file.exists():
        return Counter({(b, length): n for b, length, n in json.loads(file.read_text())})
    n = Counter()
    out = subprocess.run([binary, *args], input=data, capture_output=True, text=True, check=True).stdout
    for line in out.splitlines():
        i, j, s = line.split()[:3]
        i, j = int(i), int(j)
        if norm[i] == norm[j]:
            continue
        b = band_index(float(s))
        if b is not None:
            n[b, "<100" if sample.short(texts[i], texts[j]) else "100+"] += 1
    if file:
        file.parent.mkdir(parents=True, exist_ok=True)
        file.write_text(json.dumps(sorted([b, length, k] for (b, length), k in n.items())))
    return n


def band_precision(pairs: list[Pair], m: int) -> dict[tuple[int, str], tuple[int, int]]:
    """(band, length) -> (label-1, labelled) of one corpus's labelled corpus pairs under measure m."""
    out: dict = {}
    for p in pairs:
        b = band_index(p.m[m][0])
        if p.from_corpus and b is not None:
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


def corpus_section(pairs: list[Pair], binary: str, corpus_dir: Path, cache: Path | None) -> tuple[list[str], dict]:
    bands_rows, prec_rows, results = [], [], {}
    for c in CORPORA:
        texts, norm = corpus_texts(c, corpus_dir)
        ps = [p for p in pairs if p.corpus == c]
        for m in (2, 1):
            N = corpus_counts(binary, texts, norm, m, cache)
            lab = band_precision(ps, m)
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
                    cells.append(("-" if p != p else f"{p:.3f}") + f" of {den:,}" + (f" ({fb:,} fb)" if fb else ""))
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


# ---------------------------------------------------------------- main

def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--pairs", type=Path, default=HERE / "labels" / "pairs.tsv")
    ap.add_argument("--corpora", type=Path, default=HERE.parents[1] / "target" / "corpus")
    ap.add_argument("--server", type=Path, help="directory of the server's pg_trgm_labels.tsv")
    ap.add_argument("--no-corpus", action="store_true", help="skip the corpus precision")
    ap.add_argument("--cache", type=Path, help="where to keep the corpus pair counts (default: OUT/cache)")
    a = ap.parse_args()
    pairs = read_pairs(a.pairs)
    for m in (2, 1):
        for p, line in zip(pairs, run_tool(a.tool, ["pairs", f"m={m}"], [[p.a, p.b] for p in pairs]), strict=True):
            p.m[m] = tuple(float(x) for x in line.split())
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
    corp = None
    if not a.no_corpus:
        lines, corp = corpus_section(pairs, a.tool, a.corpora, a.cache or Path(a.out) / "cache")
        report += [""] + lines
    report += [""] + targets(det, corp)
    text = "\n".join(report) + "\n"
    Path(a.out).mkdir(parents=True, exist_ok=True)
    (Path(a.out) / "labels.txt").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
