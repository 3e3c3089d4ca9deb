#!/usr/bin/env bash
# Rebuilds english_idf.txt.gz (see english_idf.py) from the pinned symspellpy sdist and
# checks it against the committed file: `bash crates/simhash-core/data/english_idf.sh [--write]`.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download -q --no-deps --no-binary :all: symspellpy==6.7.8 -d "$tmp"
tar -xzf "$tmp"/symspellpy-6.7.8.tar.gz -C "$tmp"
python3 "$here/english_idf.py" "$tmp/symspellpy-6.7.8/symspellpy/frequency_dictionary_en_82_765.txt" \
    "$here/jieba_idf.txt.gz" "$tmp/english_idf.txt.gz"
if [ "${1:-}" = --write ]; then
    cp "$tmp/english_idf.txt.gz" "$here/english_idf.txt.gz"
elif ! cmp -s "$tmp/english_idf.txt.gz" "$here/english_idf.txt.gz"; then
    echo "english_idf.txt.gz differs from what symspellpy 6.7.8 gives: rerun with --write" >&2
    exit 1
fi
