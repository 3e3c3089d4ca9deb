"""Quality benchmark of SimHash fingerprint definitions: `make quality` (tests/quality/run.sh).

Every system is measured in the same run on the People's Daily corpus of January 1998
(one paragraph a line; ids below are 1-based line numbers):

- python-jieba: the baseline pipeline, python jieba 0.42.1 `extract_tags(text, topK=None,
  withWeight=True)`, each keyword hashed with md5 (first 8 bytes, big-endian), the
  weighted SimHash fold; a text without keywords gets 0 ("no features");
- 0.3.0 and 1.0: the extension's definitions, via `quality_fp --options JSON`;
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

Deterministic: every random choice comes from random.Random("1998:<purpose>").
"""
from __future__ import annotations

import argparse
import hashlib
import json
import os
import random
import re
import subprocess
import sys
import unicodedata
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np

SEED = 1998
KS = (3, 6, 10)
NEAR_DUP = 0.5                       # 3-gram Jaccard threshold of a near-duplicate
NULL = 99                            # the distance of a pair with a NULL fingerprint
MAIN_SYSTEMS = (("python-jieba", None),
                ("0.3.0", ("--options", '{"definition":"0"}')),
                ("1.0", ("--options", "{}")))
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
KINDS = ("chars1%", "chars3%", "source+footer", "drop sentence", "add sentence",
         "swap sentences", "numbers changed", "cut last 10%", "half-width")
LENGTHS = {"paragraphs": (200, 500), "articles": (800, 2000)}
SAMPLES = 1000                       # originals per length
TARGET_LEN, TARGET_N = (280, 320), 300
UNRELATED_PAIRS = 200_000
HARD_MIN_LEN = 100
LENGTH_BUCKETS = ((0, 20, "< 20"), (20, 50, "20-49"), (50, 200, "50-199"), (200, 10**9, ">= 200"))
DEMO_FALSE_PAIRS = ((15079, 15091), (6568, 17208), (7881, 7882))
WORST = 5

SENTENCE = re.compile(r"[^。！？]*(?:[。！？]+[”’」』）\n]*|$)")
DIGIT_RUN = re.compile(r"[0-9]+|[０-９]+")
HALF_WIDTH = {c: c - 0xFEE0 for c in range(0xFF01, 0xFF5F)} | {0x3000: 0x20}
FULL_DIGITS = str.maketrans("0123456789", "０１２３４５６７８９")
CITIES = ("北京", "上海", "天津", "重庆", "广州", "南京", "武汉", "西安", "成都", "沈阳",
          "哈尔滨", "昆明", "拉萨", "乌鲁木齐", "香港", "杭州", "济南", "长沙")
SURNAMES = "王李张刘陈杨黄赵吴周徐孙马朱胡郭何高林罗郑梁谢宋唐许韩冯邓曹"
GIVEN = "建国华明伟芳军平玉红志强丽文海东晓春秋立新光辉敏静涛燕"
SOURCES = ("本报{city}{m}月{d}日讯　记者{a}报道：", "本报{city}{m}月{d}日讯　记者{a}、{b}报道：",
           "新华社{city}{m}月{d}日电", "新华社{city}{m}月{d}日电　记者{a}报道：",
           "本报讯　记者{a}、通讯员{b}报道：")
FOOTERS = ("（责任编辑：{a}）", "（责任编辑　{a}）", "（编辑：{a}　{b}）", "（本版责任编辑：{a}）")


def rng(purpose: str) -> random.Random:
    return random.Random(f"{SEED}:{purpose}")


# ---------------------------------------------------------------- corpus and text tools

def read_corpus(path: Path) -> list[str]:
    """The corpus lines, unescaped as COPY's text format reads them (`\\\\` is `\\`)."""
    return [line.replace("\\\\", "\\") for line in path.read_text(encoding="utf-8").splitlines()]


def sentences(text: str) -> list[str]:
    return [s for s in SENTENCE.findall(text) if s]


class CharSampler:
    """Characters drawn from the corpus's character distribution."""

    def __init__(self, corpus: list[str]):
        counts = Counter("".join(corpus))
        self.chars = list(counts)
        self.cum = np.cumsum([counts[c] for c in self.chars]).tolist()

    def draw(self, r: random.Random, unlike: str = "") -> str:
        while (c := r.choices(self.chars, cum_weights=self.cum)[0]) == unlike:
            pass
        return c


def articles(corpus: list[str]) -> list[str]:
    """Disjoint runs of consecutive paragraphs joined by '\\n', each closed as soon as it
    reaches 800 characters and kept if it is at most 2,000 long."""
    lo, hi = LENGTHS["articles"]
    out, run = [], []
    for line in corpus:
        run.append(line)
        text = "\n".join(run)
        if len(text) >= lo:
            if len(text) <= hi:
                out.append(text)
            run = []
    return out


def grams(text: str, fold_digits: bool = True) -> frozenset[str]:
    s = "".join("0" if fold_digits and c.isdigit() else c
                for c in unicodedata.normalize("NFKC", text).lower() if c.isalnum())
    return frozenset([s] if len(s) < 3 else (s[i:i + 3] for i in range(len(s) - 2)))


def jaccard(a: frozenset[str], b: frozenset[str]) -> float:
    return len(a & b) / len(a | b)


# ---------------------------------------------------------------- edits

def person(r: random.Random) -> str:
    return r.choice(SURNAMES) + "".join(r.choices(GIVEN, k=r.choice((1, 2))))


def edit_chars(text: str, r: random.Random, rate: float, sampler: CharSampler) -> str:
    chars = list(text)
    for _ in range(max(1, round(rate * len(text)))):
        op = r.choice(("substitute", "insert", "delete"))
        if op == "insert":
            chars.insert(r.randint(0, len(chars)), sampler.draw(r))
            continue
        i = r.randrange(len(chars))
        if op == "substitute":
            chars[i] = sampler.draw(r, unlike=chars[i])
        else:
            del chars[i]
    return "".join(chars)


def source_and_footer(text: str, r: random.Random) -> str:
    fields = dict(city=r.choice(CITIES), a=person(r), b=person(r),
                  m=str(r.randint(1, 12)).translate(FULL_DIGITS),
                  d=str(r.randint(1, 28)).translate(FULL_DIGITS))
    return r.choice(SOURCES).format(**fields) + text + r.choice(FOOTERS).format(**fields)


def drop_sentence(text: str, r: random.Random) -> str | None:
    ss = sentences(text)
    if len(ss) < 2:
        return None
    del ss[r.randrange(len(ss))]
    return "".join(ss)


def add_sentence(text: str, r: random.Random, donor: str) -> str:
    ss, theirs = sentences(text), sentences(donor)
    closed = [s for s in theirs if s.rstrip("”’」』）\n")[-1:] in ("。", "！", "？")] or theirs
    ss.insert(r.randint(0, len(ss)), closed[r.randrange(len(closed))].strip("\n"))
    return "".join(ss)


def swap_sentences(text: str, r: random.Random) -> str | None:
    ss = sentences(text)
    if len(ss) < 2:
        return None
    i, j = r.sample(range(len(ss)), 2)
    ss[i], ss[j] = ss[j], ss[i]
    return "".join(ss)


def change_numbers(text: str, r: random.Random) -> str | None:
    def other(m: re.Match) -> str:
        old = m.group()
        digits = "0123456789" if old[0] <= "9" else "０１２３４５６７８９"
        while (new := "".join(r.choices(digits, k=len(old)))) == old:
            pass
        return new
    return DIGIT_RUN.sub(other, text) if DIGIT_RUN.search(text) else None


def cut_last(text: str) -> str:
    return text[:len(text) - round(len(text) / 10)]


def edit(kind: str, text: str, r: random.Random, sampler: CharSampler, donor: str) -> str | None:
    """`text` edited by `kind`, or None when the kind does not apply to it."""
    match kind:
        case "chars1%": return edit_chars(text, r, 0.01, sampler)
        case "chars3%": return edit_chars(text, r, 0.03, sampler)
        case "source+footer": return source_and_footer(text, r)
        case "drop sentence": return drop_sentence(text, r)
        case "add sentence": return add_sentence(text, r, donor)
        case "swap sentences": return swap_sentences(text, r)
        case "numbers changed": return change_numbers(text, r)
        case "cut last 10%": return cut_last(text)
        case "half-width": return text.translate(HALF_WIDTH)
    raise ValueError(kind)


def substitute_two(text: str, r: random.Random, sampler: CharSampler) -> str:
    chars = list(text)
    for i in r.sample(range(len(chars)), 2):
        chars[i] = sampler.draw(r, unlike=chars[i])
    return "".join(chars)


def halves(text: str) -> tuple[str, str] | None:
    """The text split at the sentence boundary nearest its middle (None: one sentence)."""
    ends = np.cumsum([len(s) for s in sentences(text)])[:-1]
    if not len(ends):
        return None
    cut = int(ends[np.argmin(np.abs(ends - len(text) / 2))])
    return text[:cut], text[cut:]


# ---------------------------------------------------------------- the benchmark's pairs

Pair = tuple[str, str]


@dataclass
class Bench:
    corpus: list[str]
    edited: dict[str, dict[str, list[Pair]]] = field(default_factory=dict)   # length -> kind -> pairs
    skipped: dict[tuple[str, str], int] = field(default_factory=dict)        # (length, kind) -> originals
    target: list[Pair] = field(default_factory=list)
    negatives: dict[str, list[Pair]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def texts(self) -> list[str]:
        """Every text to fingerprint, each once, in a fixed order."""
        pairs = [p for kinds in self.edited.values() for ps in kinds.values() for p in ps]
        pairs += self.target + [p for ps in self.negatives.values() for p in ps]
        return list(dict.fromkeys([*self.corpus, *(t for p in pairs for t in p)]))


def random_pairs(texts: list[str], n: int, r: random.Random) -> list[Pair]:
    out = []
    while len(out) < n:
        i, j = r.randrange(len(texts)), r.randrange(len(texts))
        if i != j:
            out.append((texts[i], texts[j]))
    return out


def edited_pairs(originals: list[str], length: str, sampler: CharSampler) -> dict[str, list[Pair]]:
    """kind -> (original, edited) for every original the kind applies to."""
    out = {}
    for kind in KINDS:
        r, pairs = rng(f"{length} {kind}"), []
        for i, text in enumerate(originals):
            donor = originals[(i + r.randrange(1, len(originals))) % len(originals)]
            if (new := edit(kind, text, r, sampler, donor)) is not None:
                pairs.append((text, new))
        out[kind] = pairs
    return out


def build(corpus: list[str]) -> Bench:
    bench, sampler = Bench(corpus), CharSampler(corpus)
    distinct = list(dict.fromkeys(corpus))
    lo, hi = LENGTHS["paragraphs"]
    pools = {"paragraphs": [t for t in distinct if lo <= len(t) <= hi],
             "articles": list(dict.fromkeys(articles(corpus)))}
    samples = {}
    for length, pool in pools.items():
        samples[length] = originals = rng(f"sample {length}").sample(pool, min(SAMPLES, len(pool)))
        bench.notes.append(f"{length}: {len(originals)} originals drawn from {len(pool):,} "
                           f"distinct texts of {LENGTHS[length][0]}-{LENGTHS[length][1]} characters")
        bench.edited[length] = edited_pairs(originals, length, sampler)
        bench.skipped.update({(length, k): len(originals) - len(p) for k, p in bench.edited[length].items()})
    bench.notes[-1] += ", runs of consecutive paragraphs joined with '\\n'"

    r = rng("target")
    lo, hi = TARGET_LEN
    bench.target = [(t, substitute_two(t, r, sampler))
                    for t in r.sample([t for t in distinct if lo <= len(t) <= hi], TARGET_N)]

    for length, pool in pools.items():
        bench.negatives[f"unrelated {length}"] = random_pairs(pool, UNRELATED_PAIRS, rng(f"unrelated {length}"))
    bench.negatives["hard: consecutive paragraphs"] = [
        (a, b) for a, b in zip(corpus, corpus[1:])
        if a != b and len(a) >= HARD_MIN_LEN and len(b) >= HARD_MIN_LEN]
    split = [h for t in samples["articles"] if (h := halves(t))]
    bench.negatives["hard: article halves"] = split
    bench.notes.append(f"article halves: {len(split)} of {len(samples['articles'])} articles "
                       f"({len(samples['articles']) - len(split)} of one sentence skipped)")
    return bench


def named_pairs(bench: Bench) -> dict[tuple[str, str], list[Pair]]:
    """(set, row) -> pairs, for every pair set of the benchmark."""
    out = {(length, kind): ps for length, kinds in bench.edited.items() for kind, ps in kinds.items()}
    return out | {("target", "2 chars substituted"): bench.target} | {
        ("negatives", name): ps for name, ps in bench.negatives.items()}


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


# ---------------------------------------------------------------- systems

Fingerprints = dict[str, int | None]   # text -> signed 64-bit fingerprint, None = NULL


def md5_64(word: str) -> int:
    return int.from_bytes(hashlib.md5(word.encode("utf-8")).digest()[:8], "big")


BITS = np.arange(64, dtype=np.uint64)


def fold(hashes: np.ndarray, weights: np.ndarray) -> int:
    """Bit i set iff the weights of the hashes with bit i set outweigh the others."""
    signs = np.where((hashes[:, None] >> BITS) & np.uint64(1), 1.0, -1.0)
    bits = (weights @ signs > 0).astype(np.uint64) << BITS
    return int(np.bitwise_or.reduce(bits, keepdims=True).view(np.int64)[0])


def python_jieba(texts: list[str]) -> Fingerprints:
    import jieba
    import jieba.analyse
    jieba.setLogLevel(60)
    jieba.initialize()
    out = {}
    for text in texts:
        tags = jieba.analyse.extract_tags(text, topK=None, withWeight=True)
        hashes = np.array([md5_64(w) for w, _ in tags], dtype=np.uint64)
        out[text] = fold(hashes, np.array([w for _, w in tags])) if tags else 0
    return out


def quality_fp(binary: str, args: tuple[str, ...], texts: list[str]) -> Fingerprints:
    """One run of the binary over every text."""
    stdin = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts)
    proc = subprocess.run([binary, *args], input=stdin, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"quality: {binary} {' '.join(args)} failed:\n{proc.stderr}")
    lines = proc.stdout.splitlines()
    if len(lines) != len(texts):
        sys.exit(f"quality: {binary} {' '.join(args)} gave {len(lines)} lines for {len(texts)} texts")
    return {t: None if v == "NULL" else int(v) for t, v in zip(texts, lines)}


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
    return sum(p[4 if raw else 3] >= NEAR_DUP for p in pairs)


def precision_of(pairs, raw: bool = False) -> float:
    return near(pairs, raw) / len(pairs) if pairs else 1.0


def by_length(corpus: list[str], pairs, lo: int, hi: int):
    return [p for p in pairs if lo <= min(len(corpus[p[0] - 1]), len(corpus[p[1] - 1])) < hi]


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

def table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A Markdown table, aligned for a terminal."""
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    rule = "|" + "|".join("-" * (w + 1) + (":" if i in right else "-") for i, w in enumerate(widths)) + "|"
    return [line(header), rule, *map(line, rows)]


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
    ]
    text = "\n".join(report) + "\n"
    print(text, end="")
    (args.out / "report.txt").write_text(text, encoding="utf-8")
    return 0 if server_ok else 1


if __name__ == "__main__":
    sys.exit(main())
