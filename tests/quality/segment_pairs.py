"""The pairs that segment fingerprints are measured on: `make quality` (segments.py).

Kept apart from edits.py's benchmark, so that its pairs and every figure of the main table
stay as they are. At three lengths:
  paragraphs, articles  edits.py's originals and its nine repost edits (the same pairs);
  short                 1,000 distinct corpus paragraphs of 60-200 characters, with the
                        same nine edits (built here with edits.edited_pairs, seeded
                        "1998:short <kind>");
and three new kinds for each length (seeded "1998:<length> <kind>"):
  excerpt 60%           60% of the original's sentences (rounded), consecutive, from a
                        random start (originals whose 60% is none or all of them skipped);
  merged                an unrelated original of the same length, '\\n', then the original;
  traditional           the original converted with OpenCC's s2t (opencc-python-reimplemented).
Negatives: edits.py's hard negatives and unrelated pairs, as they are.
"""
from __future__ import annotations

from dataclasses import dataclass, field

import re

from edits import KINDS, SENTENCE, Bench, CharSampler, Pair, edited_pairs, rng, sentences

SHORT = (60, 200)
NEW_KINDS = ("excerpt 60%", "merged", "traditional")
EXCERPT_SHARE = 0.6


@dataclass
class SegmentBench:
    edited: dict[str, dict[str, list[Pair]]] = field(default_factory=dict)   # length -> kind -> pairs
    negatives: dict[str, list[Pair]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)

    def pairs(self) -> list[Pair]:
        return [p for kinds in self.edited.values() for ps in kinds.values() for p in ps] + [
            p for ps in self.negatives.values() for p in ps]


def excerpt(text: str, r, pattern: re.Pattern = SENTENCE) -> str | None:
    ss = sentences(text, pattern)
    m = round(EXCERPT_SHARE * len(ss))
    if not 0 < m < len(ss):
        return None
    start = r.randint(0, len(ss) - m)
    return "".join(ss[start:start + m]).strip("\n")


def new_pairs(originals: list[str], length: str, pattern: re.Pattern = SENTENCE,
              traditional: bool = True) -> dict[str, list[Pair]]:
    """kind -> (original, copy) for the excerpts, merged texts and (Chinese) traditional copies."""
    r = rng(f"{length} excerpt 60%")
    excerpts = [(t, e) for t in originals if (e := excerpt(t, r, pattern)) is not None]
    r, n = rng(f"{length} merged"), len(originals)
    merged = [(t, originals[(i + r.randrange(1, n)) % n] + "\n" + t) for i, t in enumerate(originals)]
    if not traditional:
        return {"excerpt 60%": excerpts, "merged": merged}
    from opencc import OpenCC
    s2t = OpenCC("s2t")
    return {"excerpt 60%": excerpts, "merged": merged, "traditional": [(t, s2t.convert(t)) for t in originals]}


def build(bench: Bench) -> SegmentBench:
    out = SegmentBench()
    distinct = list(dict.fromkeys(bench.corpus))
    lo, hi = SHORT
    pool = [t for t in distinct if lo <= len(t) <= hi]
    short = rng("sample short").sample(pool, min(len(bench.originals["paragraphs"]), len(pool)))
    out.notes.append(f"short: {len(short)} originals drawn from {len(pool):,} distinct texts of {lo}-{hi} characters")
    originals = {**bench.originals, "short": short}
    for length, texts in originals.items():
        repost = bench.edited.get(length) or edited_pairs(texts, length, CharSampler(bench.corpus))
        out.edited[length] = {**{k: repost[k] for k in KINDS}, **new_pairs(texts, length)}
        skipped = len(texts) - len(out.edited[length]["excerpt 60%"])
        out.notes.append(f"{length}: excerpt 60% skipped for {skipped} originals (60% is none or all sentences)")
    out.negatives = bench.negatives
    return out
