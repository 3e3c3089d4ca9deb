"""The systems the quality benchmark measures, as functions of the texts: `make quality`.

python_jieba: the baseline pipeline in Python (quality.py's docstring describes it);
quality_fp: one run of the core crate's quality_fp example over every text (run_fp: its lines).
"""
from __future__ import annotations

import hashlib
import json
import subprocess
import sys

import numpy as np


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


def run_fp(binary: str, args: tuple[str, ...], texts: list[str]) -> list[str]:
    """One run of the binary over every text: its output line per text."""
    stdin = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts)
    proc = subprocess.run([binary, *args], input=stdin, capture_output=True, text=True)
    if proc.returncode:
        sys.exit(f"quality: {binary} {' '.join(args)} failed:\n{proc.stderr}")
    lines = proc.stdout.splitlines()
    if len(lines) != len(texts):
        sys.exit(f"quality: {binary} {' '.join(args)} gave {len(lines)} lines for {len(texts)} texts")
    return lines


def quality_fp(binary: str, args: tuple[str, ...], texts: list[str]) -> Fingerprints:
    """The fingerprints of one run of the binary over every text."""
    return {t: None if v == "NULL" else int(v) for t, v in zip(texts, run_fp(binary, args, texts))}
