"""Quality benchmark of SimHash fingerprint definitions: `make quality` (tests/quality/run.sh).

Every system is measured in the same run on the People's Daily corpus of January 1998
(one paragraph a line; ids below are 1-based line numbers):

- python-jieba: the baseline pipeline, python jieba 0.42.1 `extract_tags(text, topK=None,
  withWeight=True)`, each keyword hashed with md5 (first 8 bytes, big-endian), the
  weighted SimHash fold; a text without keywords gets 0 ("no features");
- 0.3.0 and 1.0: the extension's definitions 0 and 1, via `quality_fp --options JSON`;
- tuning candidates: `quality_fp --rules SPEC` (CANDIDATES below, or the env
  QUALITY_CANDIDATES="label=spec;label=spec").

Edited pairs (original, edited), from 1,000 paragraphs of 200-500 characters and 1,000
articles of 800-2,000 characters (consecutive paragraphs joined with '\\n'), one pair per
original and kind of edit:
  chars1%, chars3%    random character edits (substitution, insertion, deletion in equal
                      odds; new characters drawn from the corpus's character distribution)
                      at 1% / 3% of the characters, at least one;
  source+footer       a source line prepended ("本报北京１月５日讯　记者王平报道：") and an
                      editor's footer appended ("（责任编辑：李明）"), names and dates varied;
  drop sentence       one random sentence removed (texts of one sentence skipped);
  add sentence        one sentence of another text inserted at a random sentence boundary;
  swap sentences      two random sentences swapped (texts of one sentence skipped);
  numbers changed     every run of ASCII or full-width digits replaced by other random
                      digits of the same kind and width (texts without digits skipped);
  cut last 10%        the last 10% of the characters removed;
  half-width          U+FF01..U+FF5E rewritten as ASCII, U+3000 as a space.
Sentences end at 。！？ (with closing quotes and a line break that follow). Recall within
k: the fraction of pairs at Hamming distance <= k; a pair with a NULL fingerprint is not
recalled. Medians are over the pairs without NULL.

Also: 300 paragraphs of 280-320 characters with exactly 2 characters substituted (the
median distance); unrelated pairs (random pairs of distinct paragraphs, of articles);
hard negatives (two consecutive corpus paragraphs of >= 100 characters each; the two
halves of an article split at the sentence boundary nearest its middle); precision on
the whole corpus: every pair within k = 3 and 6 among the texts a system fingerprints
(not NULL, not 0 = no features), found by brute force, judged a near-duplicate iff the
character 3-gram Jaccard similarity is >= 0.5 (text NFKC-normalized, lowercased, only
`str.isalnum()` characters kept, every digit read as 0; fewer than 3 of them make one
gram). Digits are folded because "numbers changed" is one of the edits a repost carries
(above): two texts that differ only in their figures are reposts by this benchmark's own
definition. The precision with digits as written is reported beside it.

Modules: edits.py builds the pairs, systems.py fingerprints, measure.py measures; this
file: the systems and candidates run, the command line, the report and the targets.
segments.py (with segment_pairs.py) adds the segment fingerprints' section at the end.

Deterministic: every random choice comes from random.Random("1998:<purpose>").
"""
from __future__ import annotations

import argparse
import json
import os
import re
import sys
from pathlib import Path

from edits import KINDS, LENGTHS, SEED, TARGET_LEN, Bench, build, named_pairs, read_corpus
from judge import NEAR_DUP, grams
from measure import (KS, NULL, Result, Stats, by_length, distances, mean_recall, measure,
                     near, precision_of)
import segments
from systems import Fingerprints, python_jieba, quality_fp
from tables import table

MAIN_SYSTEMS = (("python-jieba", None),
                ("0.3.0", ("--options", '{"definition":"0"}')),
                ("1.0", segments.DEFINITION_1))
SHIPPED = ("0.3.0", "1.0")           # also checked against simhash_duplicates on a server
# The rules measured against definition 1 (= "tf=raw,num=drop,single=drop,min=6"), one
# change each; `quality_fp --rules` documents the keys. 1.0 is what won.
CANDIDATES = [
    ("0.3.0 rules, via --rules", "tf=raw,num=keep,single=keep,min=0"),
    ("+ numbers dropped", "tf=raw,num=drop,single=keep,min=0"),
    ("+ single chars dropped", "tf=raw,num=drop,single=drop,min=0"),
    ("single chars x0.5", "single=0.5"),
    ("numbers kept x0.2", "num=keep,numw=0.2"),
    ("numbers as shapes", "num=shape"),
    ("tf 1+ln(tf)", "tf=log"),
    ("tf sqrt", "tf=sqrt"),
    ("tf BM25 k1 1.2", "tf=bm25"),
    ("tf^1.2", "tf=pow1.2"),
    ("IDF squared", "idfp=2"),
    ("jieba HMM", "hmm=1"),
    ("min_features 5", "min=5"),
    ("min_features 8", "min=8"),
]
LENGTH_BUCKETS = ((0, 20, "< 20"), (20, 50, "20-49"), (50, 200, "50-199"), (200, 10**9, ">= 200"))
DEMO_FALSE_PAIRS = ((15079, 15091), (6568, 17208), (7881, 7882))
WORST = 5


# ---------------------------------------------------------------- inputs

def save_inputs(out: Path, bench: Bench, texts: list[str], fps: dict[str, Fingerprints]) -> None:
    """texts.jsonl: every distinct text (text n on line n, the binary's input); pairs.tsv:
    every pair by text number; fingerprints.tsv: each text's fingerprint per system."""
    (out / "texts.jsonl").write_text(
        "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts), encoding="utf-8")
    number = {t: n for n, t in enumerate(texts, 1)}
    with open(out / "pairs.tsv", "w", encoding="utf-8") as f:
        f.write("set\trow\ttext1\ttext2\n")
        for (name, row), pairs in named_pairs(bench).items():
            f.writelines(f"{name}\t{row}\t{number[a]}\t{number[b]}\n" for a, b in pairs)
    with open(out / "fingerprints.tsv", "w", encoding="utf-8") as f:
        f.write("\t".join(["text", *fps]) + "\n")
        f.writelines("\t".join([str(n), *(str(fp[t]) if fp[t] is not None else "NULL"
                                           for fp in fps.values())]) + "\n"
                     for t, n in number.items())


# ---------------------------------------------------------------- server check

def server_check(server: Path | None, results: dict[str, Result]) -> tuple[list[str], bool]:
    """Compares simhash_duplicates(..., 6) dumps (server/LABEL.tsv) with the brute force."""
    if server is None:
        return ["server pairs equal brute force: skipped (QUALITY_NO_SERVER=1)"], True
    lines, ok = [], True
    for label in SHIPPED:
        path = server / f"{label}.tsv"
        if not path.exists():
            lines.append(f"server pairs ({label}): not computed by the server")
            continue
        got = {tuple(map(int, l.split("\t"))) for l in path.read_text().splitlines() if l}
        want = {p[:3] for p in results[label].precision.pairs[6]}
        same = got == want
        ok &= same
        lines.append(f"server pairs equal brute force ({label}, {len(want):,} pairs within 6): "
                     f"{'yes' if same else 'no'}")
        for name, diff in (("only on the server", got - want), ("only in brute force", want - got)):
            if diff:
                lines.append(f"  {len(diff)} {name}, e.g. {sorted(diff)[:5]}")
    lines.append(f"server pairs equal brute force: {'yes' if ok else 'no'}")
    return lines, ok


# ---------------------------------------------------------------- report

def num(x: float | None) -> str:
    return "-" if x is None else f"{x:g}"


def pct(x: float) -> str:
    return f"{100 * x:.3g}%"


def recall_cell(s: Stats) -> str:
    return " ".join(f"{s.rate(k):.3f}" for k in KS) + f" {num(s.median):>4}"


def negative_cell(s: Stats) -> str:
    return " ".join(f"{pct(s.rate(k)):>7}" for k in KS) + f" {num(s.minimum):>4}"


def precision_cell(pairs, raw: bool = False) -> str:
    return f"{100 * precision_of(pairs, raw):5.1f}% {near(pairs, raw):>6,}/{len(pairs):<6,}"


def main_table(bench: Bench, res: dict[str, Result], systems: list[str]) -> list[str]:
    header = ["set", "row", "pairs"] + [f"{s}: r@3 r@6 r@10 median" for s in systems]
    rows = []
    for length in LENGTHS:
        for kind in KINDS:
            rows.append([length, kind, f"{res[systems[0]].edited[length, kind].pairs:,}"]
                        + [recall_cell(res[s].edited[length, kind]) for s in systems])
        rows.append([length, "mean recall (9 kinds)", ""]
                    + [" ".join(f"{mean_recall(res[s], length, k):.3f}" for k in KS) + "     "
                       for s in systems])
    rows.append(["2 chars substituted", f"median distance ({TARGET_LEN[0]}-{TARGET_LEN[1]} chars)",
                 f"{len(bench.target)}"] + [num(res[s].target.median) for s in systems])
    rows.append(["negatives", "(rate within 3, 6, 10; min distance)", "", *[""] * len(systems)])
    for name in bench.negatives:
        rows.append(["negatives", name, f"{len(bench.negatives[name]):,}"]
                    + [negative_cell(res[s].negatives[name]) for s in systems])
    corpus = bench.corpus
    for k in KS[:2]:
        rows.append([f"corpus, k={k}", "precision near/pairs", ""]
                    + [precision_cell(res[s].precision.pairs[k]) for s in systems])
        rows.append([f"corpus, k={k}", "  (digits as written)", ""]
                    + [precision_cell(res[s].precision.pairs[k], raw=True) for s in systems])
        for lo, hi, label in LENGTH_BUCKETS:
            rows.append([f"corpus, k={k}", f"  shorter text {label} chars", ""]
                        + [precision_cell(by_length(corpus, res[s].precision.pairs[k], lo, hi))
                           for s in systems])
    rows.append(["corpus", "texts set aside (NULL / no features)", f"{len(corpus):,}"]
                + [f"{len(corpus) - res[s].precision.kept:,}" for s in systems])
    return table(header, rows, right={2})


def null_notes(res: dict[str, Result]) -> list[str]:
    out = []
    for s, r in res.items():
        named = {f"{l} {k}": v for (l, k), v in r.edited.items()}
        named |= {"2 chars substituted": r.target, **r.negatives}
        if nulls := [f"{name} {st.nulls}" for name, st in named.items() if st.nulls]:
            out.append(f"  {s}: " + ", ".join(nulls))
    return [f"pairs with a NULL fingerprint: {'' if out else 'none'}", *out]


def worst_pairs(corpus: list[str], res: dict[str, Result], systems: list[str]) -> list[str]:
    out = []
    for s in systems:
        pairs = sorted(res[s].precision.pairs[3], key=lambda p: (p[3], p[0], p[1]))[:WORST]
        out.append(f"{s}: the {WORST} worst pairs within 3 (lowest Jaccard)")
        for a, b, d, j, _ in pairs:
            out.append(f"  {a:>5} {b:>5}  d={d}  J={j:.2f}  {corpus[a - 1][:30]!r}  {corpus[b - 1][:30]!r}")
    return out


def demo_pairs(fps: dict[str, Fingerprints], corpus: list[str], systems: list[str]) -> list[str]:
    rows = []
    for a, b in DEMO_FALSE_PAIRS:
        cells = []
        for s in systems:
            d = distances([(corpus[a - 1], corpus[b - 1])], fps[s])[0]
            cells.append("NULL" if d == NULL else f"{d} ({'within 3' if d <= 3 else 'no'})")
        rows.append([f"{a}/{b}", *cells])
    return table(["demo false pair", *systems], rows, right=set())


def compact_table(bench: Bench, res: dict[str, Result], systems: list[str]) -> list[str]:
    header = ["system", "mean r@3 para", "mean r@3 art", "numbers r@3 para", "numbers r@3 art",
              "2-char median", "unrelated <= 6", "hard neg <= 3", "corpus precision@3", "set aside"]
    rows = []
    for s in systems:
        r = res[s]
        unrelated = [r.negatives[f"unrelated {l}"] for l in LENGTHS]
        hard = [v for n, v in r.negatives.items() if n.startswith("hard")]
        rows.append([s, f"{mean_recall(r, 'paragraphs', 3):.3f}", f"{mean_recall(r, 'articles', 3):.3f}",
                     f"{r.edited['paragraphs', 'numbers changed'].rate(3):.3f}",
                     f"{r.edited['articles', 'numbers changed'].rate(3):.3f}",
                     num(r.target.median),
                     f"{sum(u.within[6] for u in unrelated)}/{sum(u.pairs for u in unrelated):,}",
                     pct(sum(h.within[3] for h in hard) / sum(h.pairs for h in hard)),
                     f"{100 * precision_of(r.precision.pairs[3]):.1f}%",
                     f"{len(bench.corpus) - r.precision.kept:,}"])
    return table(header, rows, right=set(range(1, len(header))))


def targets(res: dict[str, Result], fps: Fingerprints, corpus: list[str],
            new: str = "1.0", base: str = "python-jieba") -> list[str]:
    n, b = res[new], res[base]
    worse = [f"{l} {k} r@{kk}" for (l, k) in n.edited if k != "numbers changed"
             for kk in (3, 6) if n.edited[l, k].rate(kk) < b.edited[l, k].rate(kk)]
    means = {l: (mean_recall(n, l, 3), mean_recall(b, l, 3)) for l in LENGTHS}
    numbers = [n.edited[l, "numbers changed"].rate(3) for l in LENGTHS]
    unrelated = sum(n.negatives[f"unrelated {l}"].within[6] for l in LENGTHS)
    hard = {name: s.rate(3) for name, s in n.negatives.items() if name.startswith("hard")}
    prec = precision_of(n.precision.pairs[3])
    demo = [f"{a}/{b_}" for a, b_ in DEMO_FALSE_PAIRS
            if distances([(corpus[a - 1], corpus[b_ - 1])], fps)[0] <= 3]
    checks = [
        (not worse, f"every kind, both lengths: {new} recall@3 and @6 >= {base}'s "
                    f"(numbers changed aside)" + (f"; worse: {', '.join(worse)}" if worse else "")),
        *((m >= bm + 0.10, f"mean recall@3 {l}: {m:.3f} >= {bm:.3f} + 0.10") for l, (m, bm) in means.items()),
        (n.target.median is not None and n.target.median <= 3,
         f"2 chars substituted: median distance {num(n.target.median)} <= 3"),
        (min(numbers) >= 0.9, "numbers changed recall@3 >= 0.9: "
                              + ", ".join(f"{l} {x:.3f}" for l, x in zip(LENGTHS, numbers))),
        (unrelated == 0, f"unrelated pairs within 6: {unrelated} = 0"),
        (max(hard.values()) <= 0.01, "hard negatives within 3 <= 1%: "
                                     + ", ".join(f"{k[6:]} {pct(v)}" for k, v in hard.items())),
        (prec >= 0.95, f"corpus precision@3 {100 * prec:.1f}% >= 95% (over the {n.precision.kept:,} texts kept)"),
        (not demo, "demo false pairs within 3: " + (", ".join(demo) if demo else "none")),
    ]
    return [f"{'PASS' if ok else 'FAIL'}  {text}" for ok, text in checks]


# ---------------------------------------------------------------- main

def candidates() -> list[tuple[str, str]]:
    env = os.environ.get("QUALITY_CANDIDATES")
    if env is None:
        return CANDIDATES
    return [tuple(item.split("=", 1)) for item in env.split(";") if item.strip()]


def fingerprint_all(binary: str, texts: list[str]) -> dict[str, Fingerprints]:
    systems = [*MAIN_SYSTEMS, *((label, ("--rules", spec)) for label, spec in candidates())]
    out = {}
    for label, args in systems:
        print(f"quality: fingerprinting {len(texts):,} texts with {label}", file=sys.stderr, flush=True)
        out[label] = python_jieba(texts) if args is None else quality_fp(binary, args, texts)
    return out


def save_corpus_pairs(out: Path, res: dict[str, Result]) -> None:
    for label, r in res.items():
        name = re.sub(r"[^\w.+-]+", "_", label)
        with open(out / f"corpus_pairs_{name}.tsv", "w") as f:
            f.write("id1\tid2\tdistance\tjaccard\tjaccard_digits_as_written\n")
            f.writelines(f"{a}\t{b}\t{d}\t{j:.3f}\t{jr:.3f}\n" for a, b, d, j, jr in r.precision.pairs[6])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus", type=Path, required=True)
    ap.add_argument("--fp", required=True, help="the quality_fp binary")
    ap.add_argument("--out", type=Path, required=True, help="directory for the report and pairs")
    ap.add_argument("--server", type=Path, help="directory of simhash_duplicates dumps, LABEL.tsv")
    args = ap.parse_args()
    args.out.mkdir(parents=True, exist_ok=True)

    corpus = read_corpus(args.corpus)
    bench = build(corpus)
    texts = bench.texts()
    fps = fingerprint_all(args.fp, texts)
    save_inputs(args.out, bench, texts, fps)
    print("quality: measuring", file=sys.stderr, flush=True)
    gram_cache = [(grams(t), grams(t, fold_digits=False)) for t in corpus]
    res = {label: measure(bench, f, gram_cache) for label, f in fps.items()}
    save_corpus_pairs(args.out, res)
    main3 = [label for label, _ in MAIN_SYSTEMS]
    server_lines, server_ok = server_check(args.server, res)
    segment_lines = segments.run(args.fp, bench, fps, res, gram_cache, args.out)

    skipped = ", ".join(f"{l} {k} {n}" for (l, k), n in bench.skipped.items() if n)
    report = [
        f"simhash quality: People's Daily 1998-01, {len(corpus):,} paragraphs; seed {SEED}",
        *bench.notes,
        f"originals skipped (kind does not apply): {skipped or 'none'}",
        f"near-duplicate = character 3-gram Jaccard >= {NEAR_DUP} (NFKC, lowercased, letters/digits only)",
        "",
        *main_table(bench, res, main3),
        "",
        "r@k: share of pairs within Hamming distance k, a pair with a NULL fingerprint not "
        "recalled; median: over the pairs without NULL.",
        "corpus: pairs of kept texts (not NULL, not 0 = no features) within k; precision = "
        "near-duplicates / pairs; by the shorter text's length.",
        *null_notes(res),
        *worst_pairs(corpus, res, main3),
        "",
        *demo_pairs(fps, corpus, main3),
        "",
        "Candidates (recall@3 means over the 9 kinds; hard negatives: both kinds together)",
        "",
        *compact_table(bench, res, list(res)),
        "",
        *server_lines,
        f"inputs in {args.out}: texts.jsonl, pairs.tsv, fingerprints.tsv; corpus pairs within 6: "
        "corpus_pairs_SYSTEM.tsv",
        "",
        "Targets, 1.0 vs python-jieba:",
        *targets(res, fps["1.0"], corpus),
        "",
        *segment_lines,
    ]
    text = "\n".join(report) + "\n"
    print(text, end="")
    (args.out / "report.txt").write_text(text, encoding="utf-8")
    return 0 if server_ok else 1


if __name__ == "__main__":
    sys.exit(main())
