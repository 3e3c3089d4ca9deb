"""Fits decision 3 (crates/simhash-core/src/decision/fitted.rs) on the labelled pairs, and
scores it leave-one-source-out: for every source, fit on the others, score on it
(`make quality`'s last section, and `make fit-decision`).

The labels: tests/quality/labels/pairs.tsv (770: People's Daily, English, Japanese and mixed
documentation), short_pairs.tsv (342: products, logs, addresses, reviews, titles) and
wide_pairs.tsv (2,137: licences, dialogue, program messages in three languages, package
descriptions, FAQs, poetry, classics, Info manuals), each pair read by a person by the rule
at the head of pairs.tsv; a second blind reading of 812 of them (short_pairs_second.tsv,
wide_pairs_second.tsv) gives the readers' agreement by source. Left out: pairs whose texts
are in two scripts (a translation: 39 of the wide pairs, which readers called the same
passage and no text measure can see: only the names they share make them candidates).

The model (fitted.rs's docs): P(same passage) = σ(bias + slope·ln(1 + W) − Σ w·F − Σ v·P),
F the hunk features summed over the pair's hunks, P the pair's own, W the shorter text's
weight; every w and v at least 0, so that each is a cost. Fitted by projected gradient
descent on the log loss with a little L2, each source weighted equally (a source of 770 pairs
must not speak for one of 150). The decision is fitted on the candidates a dedup path meets
(measure 2 similarity ≥ 0.5 or containment either way ≥ 0.8, README's trigger), and scored
through the same gate.

Strictness: a threshold on P. `balanced` is chosen on the training pairs as the threshold
with the best F1 under precision ≥ 0.95; `strict` for precision ≥ 0.98, `loose` for recall
≥ 0.97 (each on the training pairs). The report gives precision and recall of each setting,
leave-one-source-out, by source and length band (the shorter text under 100 characters or
not).

Usage: fit_decision.py --features BIN --measure BIN [--out FILE] [--rust]
  --rust prints the fitted constants as Rust, for fitted.rs.
"""
from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

import numpy as np

HERE = Path(__file__).resolve().parent
LABELS = HERE / "labels"
THETA, GAMMA = 0.5, 0.8
FREE = 3                                    # the allowance's terms: ln(1 + W), W / 100, 1
STRICTNESS = {"loose": -1.0, "balanced": 0.0, "strict": 1.0}   # log-odds: fitted.rs's Strictness::offset


def read(path: Path, second: Path | None = None):
    rows = [l.rstrip("\n").split("\t") for l in path.read_text(encoding="utf-8").splitlines()
            if l and not l.startswith("#")]
    assert rows[0][:5] == ["pair", "corpus", "drawn", "label", "reason"], rows[0]
    seconds = {}
    if second and second.exists():
        for l in second.read_text(encoding="utf-8").splitlines():
            f = l.split("\t")
            if l.startswith("#") or f[0] == "pair":
                continue
            seconds[f[0]] = int(f[1])
    return [dict(id=r[0], source=r[1], drawn=r[2], label=int(r[3]), a=r[5], b=r[6], second=seconds.get(r[0]))
            for r in rows[1:]]


def cjk_share(t: str) -> float:
    letters = [c for c in t if c.isalpha()]
    if not letters:
        return 0.0
    return sum("\u3040" <= c <= "\u30ff" or "\u3400" <= c <= "\u9fff" or "\uac00" <= c <= "\ud7af" for c in letters) / len(letters)


def translation(p) -> bool:
    a, b = cjk_share(p["a"]), cjk_share(p["b"])
    return (a >= 0.3 and b < 0.1) or (b >= 0.3 and a < 0.1)


def short(p) -> bool:
    return min(len(p["a"]), len(p["b"])) < 100


def run(binary: str, args: list[str], pairs) -> list[str]:
    data = "".join(json.dumps([p["a"], p["b"]], ensure_ascii=False) + "\n" for p in pairs)
    return subprocess.run([binary, *args], input=data, capture_output=True, text=True, check=True).stdout.splitlines()


def load(features: str, measure: str, cache: Path | None = None):
    pairs = read(LABELS / "pairs.tsv") + read(LABELS / "short_pairs.tsv", LABELS / "short_pairs_second.tsv") \
        + read(LABELS / "wide_pairs.tsv", LABELS / "wide_pairs_second.tsv")
    left_out = [p for p in pairs if translation(p)]
    pairs = [p for p in pairs if not translation(p)]
    # The measure does not change with the decision: measured once, kept in `cache`.
    known = json.loads(cache.read_text()) if cache and cache.exists() else {}
    todo = [p for p in pairs if f"{p['a']}\t{p['b']}" not in known]
    for p, line in zip(todo, run(measure, ["pairs", "m=2"], todo) if todo else [], strict=True):
        known[f"{p['a']}\t{p['b']}"] = [float(x) for x in line.split()]
    if cache and todo:
        cache.parent.mkdir(parents=True, exist_ok=True)
        cache.write_text(json.dumps(known))
    for p in pairs:
        p["m"] = tuple(known[f"{p['a']}\t{p['b']}"])
        p["gate"] = p["m"][0] >= THETA or max(p["m"][1:]) >= GAMMA
    # A's frame-mates in its source (the texts of the source most similar to it, b first), as
    # the candidates a dedup path reads (labels/wide_mates.json.gz, made by tests/quality/mates.py).
    mates = json.loads(gzip.decompress((LABELS / "wide_mates.json.gz").read_bytes()))
    data = "".join(json.dumps([p["a"], p["b"], [p["b"], *mates[p["id"]]] if p["id"] in mates else []],
                              ensure_ascii=False) + "\n" for p in pairs)
    lines = subprocess.run([features], input=data, capture_output=True, text=True, check=True).stdout.splitlines()
    for p, line in zip(pairs, lines, strict=True):
        o = json.loads(line)
        p["F"], p["P"], p["w"], p["empty"], p["d2"] = o["hunk"], o["pair"], o["w"], o["empty"], o["d2"]
        p["matched"] = o["matched"]
    return pairs, left_out


def arrays(pairs):
    f = np.array([p["F"] for p in pairs], dtype=float)
    q = np.array([p["P"] for p in pairs], dtype=float)
    w = np.log1p(np.array([p["w"] for p in pairs], dtype=float))
    y = np.array([p["label"] for p in pairs], dtype=float)
    return f, q, w, y


def fit(pairs, steps: int = 3000):
    """The model's weights: (hunk weights, pair weights, slope, bias), each source weighted
    equally. z = bias + slope·ln(1 + W) − ln(1 + F·w) − P·v, P(same) = σ(z); the weights are
    kept positive by fitting their logs (Adam on the log loss)."""
    f, q, lnw, y = arrays(pairs)
    by = defaultdict(int)
    for p in pairs:
        by[p["source"]] += 1
    sw = np.array([1.0 / by[p["source"]] for p in pairs])
    sw *= len(pairs) / sw.sum()
    nf, nq = f.shape[1], q.shape[1]
    th = np.concatenate([np.full(nf, -2.0), np.full(nq, -1.0), [1.0, -1.0]])
    m, v = np.zeros_like(th), np.zeros_like(th)
    for t in range(1, steps + 1):
        w, pv, a, b = np.exp(th[:nf]), np.exp(th[nf:nf + nq]), th[-2], th[-1]
        cost = f @ w
        z = b + a * lnw - np.log1p(cost) - q @ pv
        r = (1 / (1 + np.exp(-z)) - y) * sw / len(y)
        g = np.concatenate([(f * (-r / (1 + cost))[:, None]).sum(0) * w, -(q * r[:, None]).sum(0) * pv,
                            [(r * lnw).sum(), r.sum()]])
        m = 0.9 * m + 0.1 * g
        v = 0.999 * v + 0.001 * g * g
        th -= 0.05 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.999 ** t)) + 1e-8)
    return np.exp(th[:nf]), np.exp(th[nf:nf + nq]), th[-2], th[-1]


def scores(model, pairs) -> np.ndarray:
    """The log-odds of "same passage"."""
    w, pv, a, b = model
    f, q, lnw, _ = arrays(pairs)
    return b + a * lnw - np.log1p(f @ w) - q @ pv


def pr(pairs, got) -> tuple[int, int, int]:
    tp = sum(g and p["label"] == 1 for p, g in zip(pairs, got))
    return tp, sum(got), sum(p["label"] == 1 for p in pairs)


def fmt(k) -> str:
    tp, n, pos = k
    p = f"{tp / n:.3f}" if n else "—"
    r = f"{tp / pos:.3f}" if pos else "—"
    return f"{p} / {r}"


def kappa(pairs) -> str:
    both = [p for p in pairs if p["second"] is not None]
    if not both:
        return "—"
    n = len(both)
    agree = sum(p["label"] == p["second"] for p in both) / n
    p1 = sum(p["label"] for p in both) / n
    p2 = sum(p["second"] for p in both) / n
    pe = p1 * p2 + (1 - p1) * (1 - p2)
    k = (agree - pe) / (1 - pe) if pe < 1 else 1.0
    return f"{k:.2f} ({n})"


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--features", required=True)
    ap.add_argument("--measure", required=True)
    ap.add_argument("--out", type=Path)
    ap.add_argument("--cache", type=Path, help="measure 2 of every pair, kept across runs")
    ap.add_argument("--rust", action="store_true")
    a = ap.parse_args()
    pairs, left_out = load(a.features, a.measure, a.cache)
    sources = sorted({p["source"] for p in pairs})
    out = [f"Labelled pairs: {len(pairs)} from {len(sources)} sources, {sum(short(p) for p in pairs)} with the "
           f"shorter text under 100 characters; {sum(p['second'] is not None for p in pairs)} read twice; "
           f"{len(left_out)} translations left out.", ""]
    model = fit([p for p in pairs if p["gate"]])
    names = json.loads(subprocess.run([a.features, "--names"], capture_output=True, text=True, check=True).stdout)
    w, pv, slope, bias = model
    out += ["Fitted on every source's candidates (fitted.rs's MODEL):", ""]
    for n, x in zip(names, [*w, *pv]):
        out.append(f"  {n:<18} {x:10.4f}")
    out += [f"  slope (ln(1+W))    {slope:10.4f}", f"  bias               {bias:10.4f}", ""]
    # Leave one source out: fit on the others' candidates, score on this source's pairs.
    loso = {}
    for s in sources:
        ms = fit([p for p in pairs if p["source"] != s and p["gate"]])
        test = [p for p in pairs if p["source"] == s]
        loso[s] = (test, scores(ms, test))
    header = "| source | pairs | label 1 | κ (read twice) | decision 2 | " + " | ".join(STRICTNESS) + " |"
    for band, keep in (("all", lambda p: True), ("under 100 characters", short), ("100 and over", lambda p: not short(p))):
        out += [f"Leave-one-source-out precision / recall through README's trigger, {band}:", "",
                header, "|" + " --- |" * (5 + len(STRICTNESS))]
        tot = {k: [0, 0, 0] for k in ["d2", *STRICTNESS]}
        for s in sources:
            test, z = loso[s]
            sel = [i for i, p in enumerate(test) if keep(p)]
            ps = [test[i] for i in sel]
            if not ps:
                continue
            cells = []
            k = pr(ps, [p["gate"] and p["d2"] for p in ps])
            tot["d2"] = [x + y for x, y in zip(tot["d2"], k)]
            cells.append(fmt(k))
            for name, offset in STRICTNESS.items():
                k = pr(ps, [p["gate"] and not p["empty"] and p["matched"] >= 0.5 and not p["P"][0] and z[i] >= offset
                            for i, p in zip(sel, ps)])
                tot[name] = [x + y for x, y in zip(tot[name], k)]
                cells.append(fmt(k))
            out.append(f"| {s} | {len(ps)} | {sum(p['label'] for p in ps)} | {kappa(ps)} | " + " | ".join(cells) + " |")
        out.append(f"| all | | | {kappa([p for p in pairs if keep(p)])} | " + " | ".join(fmt(tot[k]) for k in tot) + " |")
        out.append("")
    text = "\n".join(out)
    print(text)
    if a.out:
        a.out.write_text(text + "\n", encoding="utf-8")
    if a.rust:
        print("    hunk: [" + ", ".join(f"{x:.4}" for x in w) + "],")
        print("    pair: [" + ", ".join(f"{x:.4}" for x in pv) + "],")
        print(f"    bias: {bias:.4f},\n    slope: {slope:.4f},")
    return 0


if __name__ == "__main__":
    sys.exit(main())
