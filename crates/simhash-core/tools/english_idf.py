"""Writes english_idf.txt.gz, definition 3's IDF of English words, from SymSpell's English
frequency list as shipped in the PyPI package symspellpy 6.7.8 (MIT; the list intersects
Google Books Ngram counts, free to use with acknowledgement, with the SCOWL word list):
`frequency_dictionary_en_82_765.txt`, one "word count" per line.

Each word of letters a-z alone (jieba cuts "you've" at its apostrophe, so such entries never
meet a token; 82,769 of the file's 82,834 lines) gets ln(total / count), total being the sum
of all counts, shifted so that its median is jieba's (jieba_idf.txt.gz, the lower median
11.9548, which words outside both tables get): ln(total / count) has median 14.6745, as
counts over 5.4e11 words run higher than jieba's document frequencies. "the" gets 0.43 (a
stop word anyway), "library" 5.39, "debian" 7.69, the rarest words 14.85, jieba's range being 0.88-13.90.

    python3 english_idf.py FREQUENCY_FILE JIEBA_IDF_GZ OUT.gz    (`make english-idf` fetches the package)
"""
import gzip
import math
import re
import sys

WORD = re.compile(r"[a-z]+")


def lower_median(values: list[float]) -> float:
    return sorted(values)[(len(values) - 1) // 2]


def main(src: str, jieba: str, out: str) -> None:
    rows = [line.split() for line in open(src, encoding="utf-8") if line.strip()]
    total = sum(int(c) for _, c in rows)
    raw = [(w, math.log(total / int(c))) for w, c in rows if WORD.fullmatch(w)]
    jieba_median = lower_median([float(line.split()[1]) for line in gzip.open(jieba, "rt", encoding="utf-8")
                                 if len(line.split()) == 2])
    shift = lower_median([v for _, v in raw]) - jieba_median
    kept = [(w, v - shift) for w, v in raw]
    body = "".join(f"{w} {idf:.4f}\n" for w, idf in kept).encode()
    # mtime 0: the same bytes on every run.
    with open(out, "wb") as f, gzip.GzipFile(fileobj=f, mode="wb", mtime=0, filename="") as z:
        z.write(body)
    print(f"english_idf: {len(kept):,} of {len(rows):,} words, total count {total:,}, shifted by {shift:.4f}",
          file=sys.stderr)


if __name__ == "__main__":
    main(*sys.argv[1:])
