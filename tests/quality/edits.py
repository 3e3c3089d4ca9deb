"""The quality benchmark's pairs, built from the corpus: `make quality` (quality.py).

Corpus reading, sentences and articles; the edits a repost carries (quality.py's docstring
lists the kinds); the edited pairs at two lengths, the 2-characters target, the unrelated and
hard negative pairs. Deterministic: every random choice comes from rng(purpose).
"""
from __future__ import annotations

import random
import re
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import numpy as np

SEED = 1998
KINDS = ("chars1%", "chars3%", "source+footer", "drop sentence", "add sentence",
         "swap sentences", "numbers changed", "cut last 10%", "half-width")
LENGTHS = {"paragraphs": (200, 500), "articles": (800, 2000)}
SAMPLES = 1000                       # originals per length
TARGET_LEN, TARGET_N = (280, 320), 300
UNRELATED_PAIRS = 200_000
HARD_MIN_LEN = 100

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


@dataclass(frozen=True)
class Language:
    """What the edits need to know of a language (languages.py has the others): where its
    sentences end, which of them are closed, and the source line and footer a repost adds."""
    sentence: re.Pattern
    closing: str                     # stripped before the closing punctuation is checked
    ends: tuple[str, ...]
    sources: tuple[str, ...]
    footers: tuple[str, ...]
    person: Callable[[random.Random], str]
    date: Callable[[random.Random], dict[str, str]]    # the fields m and d of the templates
    cities: tuple[str, ...]
    spaced: bool = False             # sentences are separated by a space (join_sentences)


# ---------------------------------------------------------------- corpus and text tools

def read_corpus(path: Path) -> list[str]:
    """The corpus lines, unescaped as COPY's text format reads them (`\\\\` is `\\`)."""
    return [line.replace("\\\\", "\\") for line in path.read_text(encoding="utf-8").splitlines()]


def sentences(text: str, pattern: re.Pattern = SENTENCE) -> list[str]:
    return [s for s in pattern.findall(text) if s]


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


def articles(corpus: list[str], lo: int = LENGTHS["articles"][0], hi: int = LENGTHS["articles"][1]) -> list[str]:
    """Disjoint runs of consecutive paragraphs joined by '\\n', each closed as soon as it
    reaches `lo` (800) characters and kept if it is at most `hi` (2,000) long."""
    out, run = [], []
    for line in corpus:
        run.append(line)
        text = "\n".join(run)
        if len(text) >= lo:
            if len(text) <= hi:
                out.append(text)
            run = []
    return out


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


def full_width_date(r: random.Random) -> dict[str, str]:
    return dict(m=str(r.randint(1, 12)).translate(FULL_DIGITS), d=str(r.randint(1, 28)).translate(FULL_DIGITS))


CHINESE = Language(SENTENCE, "”’」』）\n", ("。", "！", "？"), SOURCES, FOOTERS, person, full_width_date, CITIES)


def source_and_footer(text: str, r: random.Random, lang: Language = CHINESE) -> str:
    fields = dict(city=r.choice(lang.cities), a=lang.person(r), b=lang.person(r), **lang.date(r))
    return r.choice(lang.sources).format(**fields) + text + r.choice(lang.footers).format(**fields)


def join_sentences(ss: list[str], lang: Language) -> str:
    """The sentences as one text. In a spaced language a sentence moved from the end, which has
    no space after it, gets one when it ends in ASCII (not after 。), so that moving it does not
    glue two words together."""
    if not lang.spaced:
        return "".join(ss)
    return "".join(s + " " if i < len(ss) - 1 and s[-1:].isascii() and not s[-1:].isspace() else s
                   for i, s in enumerate(ss))


def drop_sentence(text: str, r: random.Random, lang: Language = CHINESE) -> str | None:
    ss = sentences(text, lang.sentence)
    if len(ss) < 2:
        return None
    del ss[r.randrange(len(ss))]
    return join_sentences(ss, lang)


def add_sentence(text: str, r: random.Random, donor: str, lang: Language = CHINESE) -> str:
    ss, theirs = sentences(text, lang.sentence), sentences(donor, lang.sentence)
    closed = [s for s in theirs if s.rstrip(lang.closing)[-1:] in lang.ends] or theirs
    ss.insert(r.randint(0, len(ss)), closed[r.randrange(len(closed))].strip("\n"))
    return join_sentences(ss, lang)


def swap_sentences(text: str, r: random.Random, lang: Language = CHINESE) -> str | None:
    ss = sentences(text, lang.sentence)
    if len(ss) < 2:
        return None
    i, j = r.sample(range(len(ss)), 2)
    ss[i], ss[j] = ss[j], ss[i]
    return join_sentences(ss, lang)


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


def change_width(text: str) -> str:
    """Full-width forms made half-width; a text without any gets its ASCII letters and
    digits made full-width instead (languages.py: English), so that the edit changes it."""
    if any(0xFF01 <= ord(c) <= 0xFF5E or c == "\u3000" for c in text):
        return text.translate(HALF_WIDTH)
    return "".join(chr(ord(c) + 0xFEE0) if c.isascii() and c.isalnum() else c for c in text)


def edit(kind: str, text: str, r: random.Random, sampler: CharSampler, donor: str,
         lang: Language = CHINESE) -> str | None:
    """`text` edited by `kind`, or None when the kind does not apply to it. Chinese (the
    People's Daily benchmark) keeps its half-width edit as it was, a no-op on a text without
    full-width forms; the other languages change the width either way (change_width)."""
    match kind:
        case "chars1%": return edit_chars(text, r, 0.01, sampler)
        case "chars3%": return edit_chars(text, r, 0.03, sampler)
        case "source+footer": return source_and_footer(text, r, lang)
        case "drop sentence": return drop_sentence(text, r, lang)
        case "add sentence": return add_sentence(text, r, donor, lang)
        case "swap sentences": return swap_sentences(text, r, lang)
        case "numbers changed": return change_numbers(text, r)
        case "cut last 10%": return cut_last(text)
        case "half-width": return text.translate(HALF_WIDTH) if lang is CHINESE else change_width(text)
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
    originals: dict[str, list[str]] = field(default_factory=dict)            # length -> sampled originals

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


def edited_pairs(originals: list[str], length: str, sampler: CharSampler,
                 lang: Language = CHINESE) -> dict[str, list[Pair]]:
    """kind -> (original, edited) for every original the kind applies to."""
    out = {}
    for kind in KINDS:
        r, pairs = rng(f"{length} {kind}"), []
        for i, text in enumerate(originals):
            donor = originals[(i + r.randrange(1, len(originals))) % len(originals)]
            if (new := edit(kind, text, r, sampler, donor, lang)) is not None:
                pairs.append((text, new))
        out[kind] = pairs
    return out


def build(corpus: list[str]) -> Bench:
    bench, sampler = Bench(corpus), CharSampler(corpus)
    distinct = list(dict.fromkeys(corpus))
    lo, hi = LENGTHS["paragraphs"]
    pools = {"paragraphs": [t for t in distinct if lo <= len(t) <= hi],
             "articles": list(dict.fromkeys(articles(corpus)))}
    samples = bench.originals
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
