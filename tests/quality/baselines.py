"""The baselines beside simhash in languages.py: pg_trgm's similarity and exact 5-gram shingles.

pg_trgm (the PostgreSQL contrib module's documented trigram rules): a string's words are its
runs of alphanumeric characters, each lowercased and padded with two spaces before and one
after; a trigram is three consecutive characters of a padded word; a trigram of more than 3
bytes (any non-ASCII character) is stored as 3 bytes of a CRC of its bytes, the "legacy"
CRC-32 of PostgreSQL's pg_crc.h (the reflected CRC-32 table, read from the top byte); the
set of distinct trigrams is compared. `similarity(a, b)` = shared / (|A| + |B| - shared), a
float4. `make quality`'s server check compares this with the server's `similarity()`
(check_pg_trgm).

5-gram shingles (Broder 1997): NFKC, lowercase; tokens are runs of letters and digits, except
that every Han, kana or hangul character is a token of its own; the shingles are the distinct
runs of 5 consecutive tokens (a text with fewer tokens is one shingle). In English they are
word 5-grams, in Chinese and Japanese character 5-grams. Digits are kept as written.
"""
from __future__ import annotations

import re
import unicodedata
from pathlib import Path

import numpy as np

from judge import token_grams

PG_TRGM_THRESHOLD = 0.3              # pg_trgm.similarity_threshold's default
SHINGLE = 5
SHINGLE_THRESHOLD = 0.5

_TABLE = []
for _n in range(256):
    _c = _n
    for _ in range(8):
        _c = (_c >> 1) ^ 0xEDB88320 if _c & 1 else _c >> 1
    _TABLE.append(_c)


def legacy_crc32(data: bytes) -> int:
    crc = 0xFFFFFFFF
    for byte in data:
        crc = _TABLE[((crc >> 24) ^ byte) & 0xFF] ^ ((crc << 8) & 0xFFFFFFFF)
    return crc ^ 0xFFFFFFFF


def trigram(chars: str) -> bytes:
    raw = chars.encode("utf-8")
    if len(raw) == 3:
        return raw
    return legacy_crc32(raw).to_bytes(4, "little")[:3]      # the first 3 bytes in memory (x86)


WORD = re.compile(r"[^\W_]+")


def trigrams(text: str) -> frozenset[bytes]:
    out = set()
    for word in WORD.findall(text):
        padded = "  " + word.lower() + " "
        out.update(trigram(padded[i:i + 3]) for i in range(len(padded) - 2))
    return frozenset(out)


def similarity(a: frozenset[bytes], b: frozenset[bytes]) -> float:
    """pg_trgm's similarity() of two trigram sets, as a float4."""
    shared = len(a & b)
    union = len(a) + len(b) - shared
    return float(np.float32(shared) / np.float32(union)) if union else 0.0


def shingles(text: str) -> frozenset[tuple[str, ...]]:
    return token_grams(text, SHINGLE)


# ---------------------------------------------------------------- server check

# show_trgm('Hello wörld 中文 abc') on PostgreSQL 15 (C.UTF-8): a trigram of 3 bytes as itself,
# the others as the hex of their 3 CRC bytes; checked by every run, with or without a server.
SHOW_TRGM = ("Hello wörld 中文 abc", {
    "0x81c9a7", "0x8fa667", "0xb25ffd", "0xb30af1", "0xc04ec8", "  a", "  h", "  w", " ab", " he", "abc",
    "bc ", "ell", "hel", "ld ", "llo", "lo ", "rld", "0x780fe8"})


def show_trgm(text: str) -> set[str]:
    return {t.decode() if t.isascii() else f"0x{int.from_bytes(t, 'big'):06x}" for t in trigrams(text)}


def check_show_trgm() -> None:
    text, want = SHOW_TRGM
    if (got := show_trgm(text)) != want:
        raise SystemExit(f"baselines: pg_trgm's trigrams of {text!r} differ from the server's: {sorted(got ^ want)}")


def check_pg_trgm(server: Path, corpora: dict[str, list[str]]) -> tuple[list[str], bool]:
    """Compares server/pg_trgm_NAME.tsv (line number, similarity() on the server of line n with
    line n + 1, and of line n with lines n and n + 1 joined; run.sh) with trigrams() here."""
    lines, ok = [], True
    for name, corpus in corpora.items():
        path = server / f"pg_trgm_{name}.tsv"
        if not path.exists():
            lines.append(f"pg_trgm similarity ({name}): not computed by the server")
            continue
        worst, n = 0.0, 0
        for row in path.read_text().splitlines():
            i, s1, s2 = row.split("\t")
            a, b = corpus[int(i) - 1], corpus[int(i)]
            worst = max(worst, abs(similarity(trigrams(a), trigrams(b)) - float(s1)),
                        abs(similarity(trigrams(a), trigrams(a + " " + b)) - float(s2)))
            n += 2
        same = worst < 1e-6
        ok &= same
        lines.append(f"pg_trgm similarity equals the server's ({name}, {n:,} pairs): "
                     f"{'yes' if same else f'no, off by up to {worst:.6f}'}")
    return lines, ok
