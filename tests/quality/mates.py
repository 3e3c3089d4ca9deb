"""The frame-mates of the wide labelled pairs (tests/quality/labels/wide_pairs.tsv), for
fit_decision.py: for each pair whose text a is a text of its source, the 16 texts of that source
most similar to it by measure 2 (similarity >= 0.5, exactly: quality_similarity allpairs), b left
out: what a dedup path's candidates are, from which decision 3 reads a's frame (a table's
template: crates/simhash-core/src/decision/frame.rs). Writes target/quality/mates.json, {pair id:
[texts]}, and compressed, tests/quality/labels/wide_mates.json.gz, which fit_decision.py reads
(so that the fit needs no download). The sources come from labels/wide_sample.py (its pinned packages, cached under
target/wide/: the first run downloads them). The older labels (pairs.tsv, short_pairs.tsv) have
no frame-mates here: their decision features have no slot.

Usage: mates.py --bin quality_similarity
"""
from __future__ import annotations

import argparse
import gzip
import json
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE / "labels"))
import wide_sample as ws                            # noqa: E402  (the sources)

MATES = 16                                          # decision::frame::MATES


def main() -> int:
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", type=Path, default=HERE.parents[1] / "target" / "quality" / "mates.json")
    a = ap.parse_args()
    pairs = {}
    for line in (HERE / "labels" / "wide_pairs.tsv").read_text(encoding="utf-8").splitlines():
        if line.startswith("#") or line.startswith("pair\t"):
            continue
        f = line.split("\t")
        pairs[f[0]] = f
    mates = {}
    for name, spec in ws.SOURCES.items():
        texts = spec["load"]()
        index = {t: i for i, t in enumerate(texts)}
        data = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts)
        res = subprocess.run([a.bin, "allpairs", "0.5", "1.01"], input=data, capture_output=True, text=True, check=True)
        near: dict[int, list[tuple[float, int]]] = {}
        for line in res.stdout.splitlines():
            i, j, s, _, _ = line.split()
            i, j, s = int(i), int(j), float(s)
            near.setdefault(i, []).append((s, j))
            near.setdefault(j, []).append((s, i))
        for pid, f in pairs.items():
            i = index.get(f[5]) if f[1] == name else None
            if i is not None:
                mates[pid] = [texts[j] for _, j in sorted(near.get(i, []), reverse=True) if texts[j] != f[6]][:MATES]
        print(f"{name}: {len(texts)} texts", file=sys.stderr)
    a.out.parent.mkdir(parents=True, exist_ok=True)
    text = json.dumps(mates, ensure_ascii=False)
    a.out.write_text(text, encoding="utf-8")
    (HERE / "labels" / "wide_mates.json.gz").write_bytes(gzip.compress(text.encode("utf-8"), 9, mtime=0))
    return 0


if __name__ == "__main__":
    sys.exit(main())
