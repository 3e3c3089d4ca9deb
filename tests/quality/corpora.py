"""Writes the corpora of languages.py from the unpacked packages (corpora.sh): one paragraph a
line, whitespace collapsed, backslashes doubled as COPY's text format wants them (edits.read_corpus
reads them back).

  python3 corpora.py TMP OUT     TMP: sentencepiece-0.2.0/ and root/ (the unpacked .debs)

A Debian document's paragraphs (and the Python library reference's) are the text of its <p> elements, outside <pre> and <table>, in
file-name order, and only those with kana (japanese) or Han characters (mixed). Botchan's copy in sentencepiece has no blank lines between paragraphs: a line
shorter than 60 characters ends one (its lines are wrapped at about 70), between Project
Gutenberg's START and END lines.
"""
from __future__ import annotations

import re
import sys
from html.parser import HTMLParser
from pathlib import Path

DOCS = {
    "english": ["usr/share/debian-reference/*.en.html"],
    "japanese": ["usr/share/debian-reference/*.ja.html", "usr/share/developers-reference/ja/*.html",
                 "usr/share/doc/debian/FAQ/ja/*.ja.html"],
    "mixed": ["usr/share/debian-reference/*.zh-cn.html"],
    "pydocs": ["usr/share/doc/python3.11/html/library/*.html"],
}
WRAPPED = 60
# A line is kept when it is in the corpus's language: Debian's translations leave some
# paragraphs in English.
SCRIPT = {"english": r"", "japanese": r"[\u3041-\u30ff]", "mixed": r"[\u4e00-\u9fff]", "pydocs": r""}


def collapse(text: str) -> str:
    return re.sub(r"\s+", " ", text).strip()


class Paragraphs(HTMLParser):
    """The text of every outermost <p>, outside <pre> and <table>."""

    def __init__(self):
        super().__init__()
        self.open, self.skip, self.buf, self.out = 0, 0, [], []

    def handle_starttag(self, tag, attrs):
        self.open += tag == "p"
        self.skip += tag in ("pre", "table")

    def handle_endtag(self, tag):
        self.skip -= tag in ("pre", "table") and self.skip > 0
        if tag == "p" and self.open:
            self.open -= 1
            if not self.open and (text := collapse("".join(self.buf))):
                self.out.append(text)
            self.buf = [] if not self.open else self.buf

    def handle_data(self, data):
        if self.open and not self.skip:
            self.buf.append(data)


def html_paragraphs(root: Path, pattern: str) -> list[str]:
    out = []
    for path in sorted(root.glob(pattern)):
        p = Paragraphs()
        p.feed(path.read_text(encoding="utf-8"))
        out += p.out
    return out


def botchan(path: Path) -> list[str]:
    lines = [l.strip() for l in path.read_text(encoding="utf-8-sig").splitlines()]
    start = next(i for i, l in enumerate(lines) if l.startswith("*** START"))
    end = next(i for i, l in enumerate(lines) if l.startswith("*** END"))
    out, run = [], []
    for line in lines[start + 1:end]:
        run.append(line)
        if len(line) < WRAPPED:
            if text := collapse(" ".join(run)):
                out.append(text)
            run = []
    return out


def main() -> None:
    tmp, out = Path(sys.argv[1]), Path(sys.argv[2])
    for name, patterns in DOCS.items():
        paragraphs = botchan(tmp / "sentencepiece-0.2.0/test/botchan.txt") if name == "english" else []
        for pattern in patterns:
            if not (found := html_paragraphs(tmp / "root", pattern)):
                sys.exit(f"corpora: no paragraphs in {pattern}")
            paragraphs += [p for p in found if re.search(SCRIPT[name], p)]
        (out / f"{name}.txt.part").write_text("".join(p.replace("\\", "\\\\") + "\n" for p in paragraphs),
                                              encoding="utf-8")
        (out / f"{name}.txt.part").rename(out / f"{name}.txt")
        print(f"corpora: {name}: {len(paragraphs):,} paragraphs", file=sys.stderr)


if __name__ == "__main__":
    main()
