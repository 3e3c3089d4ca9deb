"""The one judge of every `make quality` figure (issue 29): what counts as a near-duplicate or
as a quotation, measured on the texts alone, apart from every system measured.

A text's grams: its character 3-grams after NFKC, lowercasing, keeping only `str.isalnum()`
characters and reading every digit as 0 (a text with fewer than 3 such characters is one
gram). Digits are folded because "numbers changed" is one of the edits a repost carries.

  near-duplicates  Jaccard similarity |A∩B| / |A∪B| of the two texts' grams >= 0.5
                   (Broder 1997's resemblance, over character 3-grams);
  quotes           at least 0.8 of the smaller gram set is in the other: |A∩B| / min(|A|, |B|)
                   (Broder 1997's containment, either way round).

Resemblance queries (reposts) are judged by the first rule, containment queries (excerpts,
merged texts) by the second.

The strict judge (issue 34) asks more of a near-duplicate: the Jaccard similarity of the two
texts' token 3-grams >= 0.5, a token being a word (a run of letters and digits, digits as
written) or a single Han, kana or hangul character: word 3-grams in English, character
3-grams in Chinese. Two templated lines that differ in one word or figure ("Changed in
version 3.6: Accepts a path-like object." and its 3.8 twin: 0.29) are not near-duplicates to
it, though they share most of their characters (0.66 by the 3-gram rule above).
"""
from __future__ import annotations

import re
import unicodedata

NEAR_DUP = 0.5                       # 3-gram Jaccard threshold of a near-duplicate
QUOTES = 0.8                         # share of the smaller gram set found in the other

Grams = frozenset[str]

CJK = "\u1100-\u11ff\u3040-\u30ff\u3131-\u318e\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff"
TOKEN = re.compile(rf"[{CJK}]|[^\W_{CJK}]+")


def tokens(text: str) -> list[str]:
    """Words and single CJK characters, after NFKC and lowercasing (the strict judge's and
    baselines.py's shingles' tokens)."""
    return TOKEN.findall(unicodedata.normalize("NFKC", text).lower())


def token_grams(text: str, n: int = 3) -> frozenset[tuple[str, ...]]:
    """The n-grams of a text's tokens (a text of fewer than n tokens is one gram)."""
    t = tokens(text)
    return frozenset([tuple(t)] if len(t) < n else (tuple(t[i:i + n]) for i in range(len(t) - n + 1)))


def strict_near(a: str, b: str) -> bool:
    """The strict judge's near-duplicate rule (module docs)."""
    return jaccard(token_grams(a), token_grams(b)) >= NEAR_DUP


def grams(text: str, fold_digits: bool = True) -> Grams:
    s = "".join("0" if fold_digits and c.isdigit() else c
                for c in unicodedata.normalize("NFKC", text).lower() if c.isalnum())
    return frozenset([s] if len(s) < 3 else (s[i:i + 3] for i in range(len(s) - 2)))


def jaccard(a: frozenset, b: frozenset) -> float:
    return len(a & b) / len(a | b) if a or b else 1.0


def containment(a: frozenset, b: frozenset) -> float:
    """The share of the smaller set found in the other."""
    return len(a & b) / min(len(a), len(b)) if a and b else 0.0


def near(jaccard_of_grams: float) -> bool:
    """The near-duplicate rule on a Jaccard similarity already computed."""
    return jaccard_of_grams >= NEAR_DUP


def accepts(a: Grams, b: Grams, containment_query: bool = False) -> bool:
    """The judge's verdict on a pair: near-duplicates, or (`containment_query`) one quotes the other."""
    return containment(a, b) >= QUOTES if containment_query else near(jaccard(a, b))
