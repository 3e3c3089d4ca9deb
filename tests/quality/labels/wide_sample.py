"""Pairs of texts from ten further sources, to be labelled by reading: tests/quality/labels/wide_pairs.tsv.

pairs.tsv (sample.py) and short_pairs.tsv (short_sample.py) draw from news, Debian/Python
documents, product titles, logs, addresses, reviews and headlines. The dedup decision is refitted
on labelled pairs from many kinds of text, so this script draws candidate pairs from ten more:
legal text, dialogue, program messages in three languages, package descriptions, FAQs, poetry,
the Chinese classics and reference manuals. It only draws; people label the pairs later by the rule
at the head of the output (the rule of pairs.tsv), blind: the readers' packets (packets/wide-NN.tsv)
hold the pair id and the two texts only. No manual page (Debian's manpages packages, /usr/share/man
or text made from them) is used anywhere: those are kept for verification. Command usage and
option-help messages are left out of the message catalogues for the same reason.

Sources (id prefix; distinct texts of at most 600 characters and 6+ kept characters; every input a
pinned package version, cached under target/wide/, git-ignored):
  licenses      li  npm spdx-license-list 6.12.0: the paragraphs of the SPDX licence texts
                    (licenses/*.json 'licenseText', cut at blank lines) of the licences written in
                    English, and MulanPSL's Chinese; 6,635 texts. Many licences are one template with
                    another name, year, owner or clause (BSD and MIT variants, GPL/LGPL/AGPL).
  dialogue      dl  PyPI chatterbot-corpus 1.3.3: the statements of its conversations (data/<lang>/
                    *.yml) in Chinese, traditional Chinese, Japanese and English, less code snippets;
                    3,928 texts (the same line in both Chinese scripts is a real pair).
  messages_zh   mz  Debian 12 gettext catalogues (.mo, /usr/share/locale/{zh_CN,zh_TW}) of apt,
                    aptitude-common, bash, coreutils, debconf-i18n, diffutils, dpkg, e2fsprogs-l10n,
                    findutils, gettext-base, git, gnupg-l10n, grep, libc-l10n, nano, procps, psmisc,
                    sed, util-linux-locales, wget (versions in DEBS): the translated messages, less
                    usage, synopses and option help (see HELP, SYNOPSIS, HELP_CATALOGUES: the stuff
                    of manual pages; tar is left out whole, its argp catalogue being mostly option
                    descriptions); 22,758 texts. Many are one template with another word
                    ('无法打开 %s' / '无法读取 %s').
  messages_ja   mj  the same catalogues' Japanese translations (/usr/share/locale/ja); 7,983 texts.
  messages_en   me  the same catalogues' English originals (msgid); 15,075 texts.
  descriptions  ds  Debian 12 main's description indexes Translation-zh_CN, Translation-ja and
                    Translation-en (apt's i18n files; sha256 53d04c0b9a75c951..., 642792836c58facc...,
                    62f59c3cdca9786e...): the short descriptions and the long-description paragraphs
                    in Chinese and Japanese, and in English for the packages translated to either;
                    32,627 texts ('This package contains the development files for libfoo').
  faq           fq  Debian debian-faq 11.1 and debian-faq-zh-cn 11.1 (plain-text FAQ: questions
                    and answer paragraphs) and python3.11-doc 3.11.2-6+deb12u9 (faq/*.rst.txt:
                    questions and prose paragraphs); English and Chinese; 2,467 texts.
  poetry        po  npm chinese-poetry 2.0.1 (唐诗三百首, 千家诗, 水墨唐诗, 宋词三百首, 元曲, 花间集, 南唐二主词,
                    纳兰性德, 曹操; several in traditional characters) and Debian fortunes-zh 2.98
                    (tang300, song100, simplified): whole poems, title and author left out; 12,812
                    texts. The same poem in two collections (other script, variant characters,
                    editors' notes) is a real pair.
  classics      cl  npm chinese-poetry 2.0.1: the paragraphs of 论语, 孟子, 大学, 中庸, 三字经 (two
                    editions), 弟子规, 增广贤文, 朱子家训, 声律启蒙, 幼学琼林, 古文观止, the stanzas of 诗经
                    (stanzas repeat with a word changed) and the sayings and comments of 幽梦影; 5,641 texts.
  info          in  Debian 12 GNU Info manuals (coreutils 9.1-1, grep, sed, findutils, diffutils,
                    wget, nano): section titles and prose paragraphs (no menus, indented examples,
                    indexes or the GFDL); English; 6,010 texts.

Drawn per source (every choice from random.Random("wide:<source>:<purpose>")):
  m2 BAND        real pairs of the source's texts with measure-2 similarity in the band [0.3,0.4)
                 .. [0.9,1.0] (quality_similarity `allpairs`: every pair at similarity >= 0.3 or
                 containment >= 0.5, found exactly); quota 'real' (110); in the sources of
                 several languages (dialogue, descriptions, faq) the band is cut by the language
                 of a ('m2 0.5-0.6 ja'), so that each language is drawn alike;
  contain BAND   real pairs under similarity 0.3 whose larger containment is >= 0.5, per band
                 [0.5,0.6) .. [0.9,1.0]; quota 'contain' (40); the shorter text 20+ kept width (a
                 CJK character counts 2), so that a lone word inside a sentence is not drawn;
  repost EDIT    made-up edits of a text (a) as a reposter would make them: prefix or suffix,
                 list marker ('1.', '（四）', '4、'), punctuation, full/half width, case, truncation
                 with or without an ellipsis, a sentence dropped, the lead sentence replaced by
                 another text's, one or two typos, Chinese numerals <-> digits, simplified <->
                 traditional; quota 'repost' (40-62);
  variant EDIT   a slot of a short text (a, at most 160 characters) changed: a figure, a word for its
                 mate ('file'/'directory', '读取'/'写入', '君子'/'小人'), a name; quota 'variant' (25; poetry
                 none: a poem with a character changed is a variant edition, not other content).
Made-up pairs are at most a third of a source. Every candidate, real or made up, must be in the
pool: similarity >= 0.3 or containment >= 0.5 by measure 2 (quality_similarity `pairs` for the
made-up ones); both texts 6+ kept characters; the kept strings different, except for edits that
only normalize (punct, width, case). Cells (a band or an edit) are drawn round-robin within a
group, one pair of a cell in turn; within a cell, short pairs (the shorter text under 100
characters) first while the source's short share is under its 'short' (0.5-0.8), so that more
than half of all pairs are short. A text is in at most MAX_USES (2) pairs of its source. Rows are
shuffled within a source; ids follow the row order.

Outputs:
  wide_pairs.tsv   pair corpus drawn label reason a b, pairs.tsv's format and rule; labels and
                   reasons of an existing file are carried over to rows with the same a and b;
  wide_pool.tsv    per source and stratum, the candidate pairs of the pool and those drawn, to
                   weigh figures back to the pool;
  packets/wide-NN.tsv         about 250 pairs each, all sources mixed (seeded order), columns
                              pair a b under the rule: the readers' copies (a rerun rewrites them);
  packets/wide-second-NN.tsv  a seeded 22% of every source's pairs, in another order, for a second
                              blind reading;
  target/labels/wide_scores.tsv  measure-2 similarity and containments per pair, for checking
                                 (never in the readers' files).

Run (about two minutes; the downloads once, into target/wide/):
  CARGO_TARGET_DIR=/work/labels-target cargo build --release -p simhash-core --example quality_similarity
  python3 -m venv /work/labels-venv && /work/labels-venv/bin/pip install PyYAML==6.0.2 zhconv==1.4.3
  CARGO_TARGET_DIR=/work/labels-target /work/labels-venv/bin/python tests/quality/labels/wide_sample.py
(--bin names the quality_similarity binary; the default is $CARGO_TARGET_DIR, else target/,
/release/examples/quality_similarity; --only SRC,SRC is a trial run that writes nothing.) Needs
apt-get (Debian packages by exact version, unpacked with dpkg-deb, never installed; the description
indexes by an `apt-get update` into a private list directory), npm (npm pack) and pip. Pinned:
PyYAML==6.0.2 (the chatterbot YAML), zhconv==1.4.3 (traditional characters, as short_sample.py).
A Debian version that the archive has dropped since (a point release) makes the download fail:
then pin the archive's version in DEBS; the description indexes are whatever the archive serves
when target/wide/apt/ is first filled (compare the sha256 above).
"""
from __future__ import annotations

import argparse
import gettext
import glob
import gzip
import hashlib
import json
import os
import random
import re
import shutil
import subprocess
import sys
import tarfile
import unicodedata
import zipfile
from collections import Counter, defaultdict
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[2]
sys.path.insert(0, str(HERE))

from short_sample import (RULE, clean, figure_variant, fullwidth, halfwidth, kept, traditional,  # noqa: E402
                          truncate, typo, wrap, zh_punct)

CACHE = ROOT / "target" / "wide"
THRESHOLD, CONTAIN = 0.3, 0.5
MAX_LEN = 600                       # texts longer than this are left out (readers read both texts)
EDIT_MAX = 540                      # originals of made-up edits: room for a prefix
MIN_KEPT = 6                        # both texts: kept characters (letters and digits after NFKC)
MIN_WIDTH_CONTAIN = 20              # a 'contain' pair: the shorter text's kept width (a CJK character counts 2)
MAX_USES = 2                        # a text in at most this many drawn pairs of its source
SHORT = 100
BANDS = [(round(0.3 + 0.1 * k, 1), round(0.4 + 0.1 * k, 1)) for k in range(7)]      # last: [0.9, 1.0]
CONTAIN_BANDS = BANDS[2:]                                                            # 0.5-0.6 .. 0.9-1.0
PACKET = 250                        # pairs per reader's packet (about)
SECOND = 0.22                       # share of the pairs read a second time

# ---------------------------------------------------------------- pinned inputs

DEBS = {                            # Debian 12 (bookworm) binary packages, by exact version
    # gettext catalogues (.mo) under /usr/share/locale
    "apt": "2.6.2", "aptitude-common": "0.8.13-5", "bash": "5.2.15-2+b13", "coreutils": "9.1-1",
    "debconf-i18n": "1.5.82", "diffutils": "1:3.8-4", "dpkg": "1.21.23", "e2fsprogs-l10n": "1.47.0-2",
    "findutils": "4.9.0-4", "gettext-base": "0.21-12", "git": "1:2.39.5-0+deb12u3",
    "gnupg-l10n": "2.2.40-1.1+deb12u2", "grep": "3.8-5", "libc-l10n": "2.36-9+deb12u14",
    "nano": "7.2-1+deb12u1", "procps": "2:4.0.2-3", "psmisc": "23.6-1", "sed": "4.9-1+deb12u1",
    "util-linux-locales": "2.38.1-5+deb12u3", "wget": "1.21.3-1+deb12u1",
    # documents
    "debian-faq": "11.1", "debian-faq-zh-cn": "11.1", "fortunes-zh": "2.98",
    "python3.11-doc": "3.11.2-6+deb12u9",
}
NPM = {"spdx-license-list": "6.12.0", "chinese-poetry": "2.0.1"}
PYPI = {"chatterbot-corpus": "1.3.3"}
# Debian 12 'main' package descriptions (apt's Translation-<lang> index files; see fetch_translations)
TRANSLATIONS = ("en", "zh_CN", "ja")


# ---------------------------------------------------------------- fetching (cached under target/wide)

def run(cmd: list[str], cwd: Path) -> None:
    subprocess.run(cmd, cwd=cwd, check=True, stdout=subprocess.DEVNULL)


def fetch_debs() -> Path:
    """The pinned Debian packages, unpacked (never installed) into target/wide/root."""
    root, debs = CACHE / "root", CACHE / "deb"
    stamp = root / ".pins"
    pins = json.dumps(DEBS, sort_keys=True)
    if stamp.exists() and stamp.read_text() == pins:
        return root
    debs.mkdir(parents=True, exist_ok=True)
    try:
        shutil.chown(debs, "_apt")         # apt-get download writes as _apt where it can
    except (LookupError, PermissionError):
        pass
    def cached(name: str, ver: str) -> list[Path]:
        return sorted(debs.glob(f"{name}_{ver.replace(':', '%3a')}_*.deb"))

    missing = [f"{name}={ver}" for name, ver in sorted(DEBS.items()) if not cached(name, ver)]
    if missing:
        try:
            run(["apt-get", "download", "-q=2", *missing], debs)
        except subprocess.CalledProcessError:      # no package lists yet (a fresh container)
            run(["apt-get", "update", "-q=2"], debs)
            run(["apt-get", "download", "-q=2", *missing], debs)
    shutil.rmtree(root, ignore_errors=True)
    for name, ver in sorted(DEBS.items()):
        run(["dpkg-deb", "-x", str(cached(name, ver)[0]), str(root)], debs)
    stamp.write_text(pins)
    return root


def fetch_npm(name: str) -> Path:
    """An npm package's tarball (npm pack), unpacked into target/wide/npm/NAME."""
    ver = NPM[name]
    dest = CACHE / "npm" / f"{name}-{ver}"
    if (dest / "package" / "package.json").exists():
        return dest / "package"
    tgz = CACHE / "npm" / f"{name}-{ver}.tgz"
    if not tgz.exists():
        tgz.parent.mkdir(parents=True, exist_ok=True)
        run(["npm", "pack", "--silent", f"{name}@{ver}"], tgz.parent)
    with tarfile.open(tgz) as tf:
        tf.extractall(dest, filter="data")
    return dest / "package"


def fetch_pypi(name: str) -> Path:
    """A PyPI wheel (pip download), unpacked into target/wide/pypi/NAME-VER."""
    ver = PYPI[name]
    dest = CACHE / "pypi" / f"{name}-{ver}"
    if dest.exists():
        return dest
    wheels = CACHE / "pypi"
    wheels.mkdir(parents=True, exist_ok=True)
    stem = name.replace("-", "_")
    found = list(wheels.glob(f"{stem}-{ver}-*.whl"))
    if not found:
        run([sys.executable, "-m", "pip", "download", "--quiet", "--no-deps", "--only-binary", ":all:",
             "-d", str(wheels), f"{name}=={ver}"], wheels)
        found = list(wheels.glob(f"{stem}-{ver}-*.whl"))
    with zipfile.ZipFile(found[0]) as z:
        z.extractall(dest)
    return dest


def fetch_translations() -> Path:
    """Debian 12 main's description indexes Translation-en/-zh_CN/-ja, fetched once by apt-get update
    into a private list directory (the system's lists are not touched) and kept decompressed in
    target/wide/apt/text. Their sha256 are printed; the ones this sample was drawn from are in the
    docstring."""
    text = CACHE / "apt" / "text"
    if all((text / f"Translation-{lang}").exists() for lang in TRANSLATIONS):
        return text
    lists = CACHE / "apt" / "lists"
    (lists / "partial").mkdir(parents=True, exist_ok=True)
    run(["apt-get", "update", "-q=2", f"-o=Dir::State::Lists={lists}",
         f"-o=Acquire::Languages={','.join(TRANSLATIONS)}"], lists)
    text.mkdir(parents=True, exist_ok=True)
    for lang in TRANSLATIONS:
        src = next(lists.glob(f"*_dists_bookworm_main_i18n_Translation-{lang.replace('_', '%5f')}*"))
        data = subprocess.run(["/usr/lib/apt/apt-helper", "cat-file", str(src)], check=True,
                              capture_output=True).stdout
        (text / f"Translation-{lang}").write_bytes(data)
    return text


# ---------------------------------------------------------------- text helpers

CJK = re.compile(r"[\u3400-\u9fff\uf900-\ufaff]")
KANA = re.compile(r"[\u3040-\u30ff\uff66-\uff9f]")


def lang_of(t: str) -> str:
    if KANA.search(t):
        return "ja"
    if CJK.search(t):
        return "zh"
    return "en"


def join_lines(lines: list[str]) -> str:
    """Wrapped lines as one: no space where both sides are CJK (Chinese and Japanese are wrapped
    without one), one space elsewhere."""
    out = ""
    for line in lines:
        line = line.strip()
        if not line:
            continue
        if out and not (is_wide(out[-1]) and is_wide(line[0])):
            out += " "
        out += line
    return out


def is_wide(c: str) -> bool:
    return unicodedata.east_asian_width(c) in "WF"


def kept_width(t: str) -> int:
    return sum(2 if is_wide(c) else 1 for c in kept(t))


def squash(t: str) -> str:
    return re.sub(r"\s+", " ", t).strip()


def distinct(texts, min_kept: int = MIN_KEPT) -> list[str]:
    """Texts in first-seen order, one per kept string, MIN_KEPT+ kept characters, at most MAX_LEN."""
    seen: dict[str, str] = {}
    for t in texts:
        t = squash(t)
        k = kept(t)
        if len(k) >= min_kept and len(t) <= MAX_LEN and k not in seen:
            seen[k] = t
    return list(seen.values())


ANSI = re.compile(r"\x1b\[[0-9;]*m")


# ---------------------------------------------------------------- sources: the texts

def licenses() -> list[str]:
    """The paragraphs of the SPDX licence texts (English; MulanPSL's Chinese)."""
    pkg = fetch_npm("spdx-license-list")
    out = []
    for f in sorted((pkg / "licenses").glob("*.json")):
        text = json.loads(f.read_text(encoding="utf-8"))["licenseText"]
        if english_or_chinese(text):
            out += [join_lines(p.splitlines()) for p in re.split(r"\n\s*\n", text)]
    return distinct(out, 10)


ENGLISH = {"the", "of", "and", "to", "or", "in", "any", "this", "is", "by", "for", "be", "that", "with", "you"}


def english_or_chinese(text: str) -> bool:
    """A licence in English (or Chinese, MulanPSL) rather than French, German, Spanish, ..."""
    words = re.findall(r"[A-Za-z]+", text.lower())
    return bool(CJK.search(text)) or (bool(words) and sum(w in ENGLISH for w in words) >= 0.12 * len(words))


DIALOGUE_LANGS = ("chinese", "traditionalchinese", "japanese", "english")


def dialogue() -> list[str]:
    """The statements of chatterbot-corpus's conversations in Chinese (both scripts), Japanese, English."""
    import yaml
    base = fetch_pypi("chatterbot-corpus") / "chatterbot_corpus" / "data"
    out = []
    for lang in DIALOGUE_LANGS:
        for f in sorted((base / lang).glob("*.yml")):
            doc = yaml.safe_load(f.read_text(encoding="utf-8")) or {}
            for conv in doc.get("conversations") or []:
                out += [s for s in conv if isinstance(s, str) and "```" not in s]   # no code snippets
    return distinct(out)


# A message that is (part of) a command's usage or option help is what manual pages are made of:
# those are left out (manual pages are kept for verification).
HELP = re.compile(r"(?:^|\n)\s*-{1,2}[A-Za-z0-9?]|^\s*(?:[Uu]sage|[Ss]yntax|用法|语法|語法|使い方|使用法|書式|構文)|\[<|\[--|\[-[A-Za-z]|<[a-z-]+>\.\.\."
                  r"|(?:^|\n)\s*%[:A-Za-z]|\n {2,}\S.*\n {2,}\S")


# Builtin synopses ('if COMMANDS; then COMMANDS; ... fi'): a lowercase word, then placeholders in capitals.
SYNOPSIS = re.compile(r"^[a-z][\w-]*\b.*\b[A-Z]{3,}\b.*\b[A-Z]{3,}\b")
# Catalogues whose --help text becomes a manual page (help2man and the like): their multi-line
# messages are left out whole (usage blocks and command descriptions are multi-line; errors mostly not).
HELP_CATALOGUES = {"bash", "coreutils", "diffutils", "e2fsprogs", "findutils", "gettext-runtime", "grep", "nano",
                   "procps-ng", "psmisc", "sed", "util-linux", "wget", "wget-gnulib"}


def catalogue(path: str) -> dict[str, str]:
    """msgid -> msgstr of a .mo file (the singular of a plural), less usage and option help."""
    name = Path(path).stem
    with open(path, "rb") as fp:
        cat = gettext.GNUTranslations(fp)._catalog
    out = {}
    for k, v in cat.items():
        if isinstance(k, tuple):
            if k[1] != 0:
                continue
            k = k[0]
        if not k or not v or HELP.search(k) or HELP.search(v) or SYNOPSIS.search(k):
            continue
        if name in HELP_CATALOGUES and "\n" in k.strip("\n"):
            continue
        if name in HELP_CATALOGUES and k.endswith("\n"):
            continue
        out[k] = v
    return out


def messages(langs: tuple[str, ...], msgid: bool = False) -> list[str]:
    """Translated messages (msgstr) of the pinned packages' catalogues in `langs`, or with `msgid`
    their English originals."""
    root = fetch_debs()
    out = []
    for lang in langs:
        for mo in sorted(glob.glob(str(root / "usr/share/locale" / lang / "LC_MESSAGES" / "*.mo"))):
            for k, v in catalogue(mo).items():
                out.append(k if msgid else v)
    return distinct(out)


def translation_records(path: Path, lang: str):
    """(package, description-md5, short description, long-description paragraphs) of a Translation file."""
    field = f"Description-{lang}: "
    for rec in path.read_text(encoding="utf-8").split("\n\n"):
        pkg = md5 = short = None
        paras, cur, body = [], [], False
        for line in rec.splitlines():
            if line.startswith("Package: "):
                pkg = line[9:]
            elif line.startswith("Description-md5: "):
                md5 = line[17:]
            elif line.startswith(field):
                short, body = line[len(field):], True
            elif body and line.startswith(" "):
                if line.strip() == ".":
                    paras.append(cur)
                    cur = []
                else:
                    cur.append(line)
        paras.append(cur)
        if pkg and short:
            yield pkg, md5, short, [join_lines(p) for p in paras if p]


def descriptions() -> list[str]:
    """Debian package descriptions: short descriptions and long-description paragraphs in Chinese and
    Japanese, and in English for the same packages."""
    text = fetch_translations()
    recs = {lang: list(translation_records(text / f"Translation-{lang}", lang)) for lang in TRANSLATIONS}
    translated = {md5 for lang in ("zh_CN", "ja") for _, md5, _, _ in recs[lang]}
    out = []
    for lang in ("zh_CN", "ja", "en"):
        for _, md5, short, paras in recs[lang]:
            if lang == "en" and md5 not in translated:
                continue
            out += [short, *paras]
    return distinct(out)


def debian_faq(path: Path) -> list[str]:
    """Questions and answer paragraphs of the Debian FAQ's plain-text form."""
    lines = gzip.open(path, "rt", encoding="utf-8").read().replace("\u00a0", " ").splitlines()
    start = next(i for i, l in enumerate(lines) if re.match(r"^(Chapter 1\. |第 1 章)", l))
    out = []
    for block in "\n".join(lines[start:]).split("\n\n"):
        bl = [l for l in block.splitlines() if l.strip()]
        if not bl:
            continue
        m = re.match(r"^\d+(?:\.\d+)+\.\s+(.*)", bl[0])
        if m:
            out.append(join_lines([m.group(1), *bl[1:]]))
        elif all(l.startswith("    ") for l in bl) and not re.match(r"^\s*[$#/]", bl[0]):
            out.append(re.sub(r"^\* ", "", join_lines(bl)))
    return out


RST_ROLE = re.compile(r":[\w:]+:`~?!?([^`<]*?)(?:\s*<[^>]*>)?`")


def rst_text(t: str) -> str:
    t = RST_ROLE.sub(r"\1", t)
    t = re.sub(r"``([^`]*)``", r"\1", t)
    t = re.sub(r"`([^`<]*?)\s*<[^>]*>`__?", r"\1", t)
    t = re.sub(r"`([^`]*)`_?", r"\1", t)
    t = re.sub(r"\*\*([^*]+)\*\*|\*([^*\s][^*]*)\*", lambda m: m.group(1) or m.group(2), t)
    return t


def python_faq(path: Path) -> list[str]:
    """Questions (section titles) and prose paragraphs of the Python FAQ's reST sources."""
    out = []
    for block in path.read_text(encoding="utf-8").split("\n\n"):
        bl = block.strip("\n").splitlines()
        if not bl or bl[0].startswith((" ", "\t", "..", ">>>", "|", "+", "*", "-", "=")):
            continue
        if len(bl) >= 2 and re.fullmatch(r"([=\-~^*])\1+", bl[-1].strip()):
            out.append(rst_text(" ".join(bl[:-1])))
        elif not any(l.startswith((" ", "\t")) for l in bl):
            out.append(rst_text(" ".join(bl)).rstrip(":"))
    return out


def faq() -> list[str]:
    """Debian FAQ (English, Chinese) and Python FAQ (English): questions and answer paragraphs."""
    root = fetch_debs()
    out = []
    for name in ("debian-faq.en.txt.gz", "debian-faq.zh-cn.txt.gz"):
        out += debian_faq(root / "usr/share/doc/debian/FAQ" / name)
    for f in sorted((root / "usr/share/doc/python3.11/html/_sources/faq").glob("*.rst.txt")):
        out += python_faq(f)
    return distinct(out)


def fortunes(path: Path) -> list[str]:
    """Poem bodies of a fortunes-zh file (title and author lines dropped)."""
    out = []
    for entry in ANSI.sub("", path.read_text(encoding="utf-8")).split("\n%\n"):
        body = [l.strip() for l in entry.splitlines() if l.strip() and not l.strip().startswith(("《", "作者："))]
        out.append("".join(body))
    return out


def poems_of(node) -> list[str]:
    """Every poem body ('paragraphs' or 'para' joined) under a chinese-poetry JSON node."""
    if isinstance(node, list):
        return [p for x in node for p in poems_of(x)]
    if isinstance(node, dict):
        body = node.get("paragraphs", node.get("para"))
        if isinstance(body, list) and body and isinstance(body[0], str):
            return ["".join(s.strip() for s in body)]
        return poems_of(node.get("content", []))
    return []


POETRY_FILES = ("mengxue/tangshisanbaishou.json", "mengxue/qianjiashi.json", "shuimotangshi/shuimotangshi.json",
                "songci/宋词三百首.json", "yuanqu/yuanqu.json", "wudaishici/huajianji/*.json",
                "wudaishici/nantang/poetrys.json", "nalanxingde/纳兰性德诗集.json", "caocaoshiji/caocao.json")


def poetry() -> list[str]:
    """Whole poems: Tang, Song, Five Dynasties, Yuan and Qing (simplified and traditional script)."""
    root, cp = fetch_debs(), fetch_npm("chinese-poetry") / "dist"
    out = []
    for name in ("tang300.u8", "song100.u8"):
        out += fortunes(root / "usr/share/games/fortunes" / name)
    for pat in POETRY_FILES:
        for f in sorted(glob.glob(str(cp / pat))):
            out += poems_of(json.loads(Path(f).read_text(encoding="utf-8")))
    return distinct(out)


CLASSICS_PARAGRAPHS = ("lunyu/lunyu.json", "sishuwujing/*.json", "mengxue/sanzijing-new.json",
                       "mengxue/sanzijing-traditional.json", "mengxue/dizigui.json", "mengxue/zengguangxianwen.json",
                       "mengxue/zhuzijiaxun.json", "mengxue/shenglvqimeng.json", "mengxue/youxueqionglin.json",
                       "mengxue/guwenguanzhi.json")


def paragraphs_of(node) -> list[str]:
    if isinstance(node, list):
        if node and all(isinstance(x, str) for x in node):
            return list(node)
        return [p for x in node for p in paragraphs_of(x)]
    if isinstance(node, dict):
        return [p for k in ("paragraphs", "content") if k in node for p in paragraphs_of(node[k])]
    return []


def classics() -> list[str]:
    """Paragraphs of the Confucian classics and primers, the stanzas of the Shijing, and the sayings of
    Youmengying with their comments."""
    cp = fetch_npm("chinese-poetry") / "dist"
    out = []
    for pat in CLASSICS_PARAGRAPHS:
        for f in sorted(glob.glob(str(cp / pat))):
            out += paragraphs_of(json.loads(Path(f).read_text(encoding="utf-8")))
    for poem in json.loads((cp / "shijing/shijing.json").read_text(encoding="utf-8")):
        out += poem["content"]
    for item in json.loads((cp / "youmengying/youmengying.json").read_text(encoding="utf-8")):
        out += [item["content"], *item.get("comment", [])]
    return distinct(out)


INFO_FILES = ("coreutils.info.gz", "grep.info.gz", "sed.info.gz", "find.info-1.gz", "find.info-2.gz",
              "diffutils.info.gz", "wget.info.gz", "nano.info.gz")


def info_text(path: Path) -> list[str]:
    """Section titles and prose paragraphs of an Info manual (no menus, examples, or the licence)."""
    out = []
    for node in gzip.open(path, "rt", encoding="utf-8").read().split("\x1f")[1:]:
        head, _, body = node.lstrip("\n").partition("\n")
        if "Node: " not in head or re.search(r"Node: (GNU Free Documentation License|Copying|.*Index)", head):
            continue
        blocks = body.split("\n\n")
        for block in blocks:
            bl = [l for l in block.splitlines() if l.strip()]
            if not bl or bl[0].startswith(("* ", "File: ", "Tag Table")):
                continue
            if len(bl) == 2 and re.fullmatch(r"([*=\-.])\1+", bl[1].strip()):
                out.append(re.sub(r"^[\d.]+\s+", "", bl[0].strip()))
                continue
            indent = min(len(l) - len(l.lstrip()) for l in bl)
            words = " ".join(bl).split()
            if indent >= 5 and not (len(words) >= 6 and bl[-1].rstrip().endswith((".", ":"))):
                continue                  # an example: indented, not a sentence
            out.append(join_lines(bl))
    return out


def info() -> list[str]:
    """GNU Info manuals (English): coreutils, grep, sed, findutils, diffutils, wget, nano."""
    root = fetch_debs()
    out = []
    for name in INFO_FILES:
        out += info_text(root / "usr/share/info" / name)
    return distinct(out, 10)


# ---------------------------------------------------------------- the project's measure

def allpairs(binary: Path, texts: list[str]) -> list[tuple[int, int, float, float, float]]:
    """Every pair of `texts` at measure-2 similarity >= THRESHOLD or containment >= CONTAIN, exactly."""
    inp = "".join(json.dumps(t, ensure_ascii=False) + "\n" for t in texts)
    res = subprocess.run([str(binary), "allpairs", str(THRESHOLD), str(CONTAIN)], input=inp, capture_output=True,
                         text=True, check=True)
    out = []
    for line in res.stdout.splitlines():
        i, j, s, a, b = line.split()
        out.append((int(i), int(j), float(s), float(a), float(b)))
    return out


def score(binary: Path, pairs: list[tuple[str, str]]) -> list[tuple[float, float, float]]:
    """(similarity, a in b, b in a) of each pair by measure 2."""
    inp = "".join(json.dumps([a, b], ensure_ascii=False) + "\n" for a, b in pairs)
    res = subprocess.run([str(binary), "pairs"], input=inp, capture_output=True, text=True, check=True)
    return [tuple(map(float, line.split())) for line in res.stdout.splitlines()]


def band_of(lo_hi: list[tuple[float, float]], v: float) -> tuple[float, float]:
    return next(b for b in lo_hi if b[0] <= v < b[1] or v == b[1] == 1.0 or (b is lo_hi[-1] and v >= b[0]))


def stratum(s: float, ca: float, cb: float) -> str:
    """'m2 0.5-0.6' for a pair at similarity >= THRESHOLD, else 'contain 0.7-0.8' by the larger containment."""
    if s >= THRESHOLD:
        lo, hi = band_of(BANDS, s)
        return f"m2 {lo:.1f}-{hi:.1f}"
    lo, hi = band_of(CONTAIN_BANDS, max(ca, cb))
    return f"contain {lo:.1f}-{hi:.1f}"


# ---------------------------------------------------------------- made-up edits of a real text

def rng(source: str, purpose: str) -> random.Random:
    return random.Random(f"wide:{source}:{purpose}")


def sentences(t: str) -> list[str]:
    """The text cut after each sentence end (the pieces joined give the text back)."""
    if lang_of(t) == "en":
        parts = re.split(r"(?<=[.!?:;])(\s+)(?=[A-Z\"'(‘“‘0-9])", t)
        out, cur = [], ""
        for p in parts:
            cur += p
            if not p.isspace():
                out.append(cur)
                cur = ""
        if cur:
            out[-1:] = [out[-1] + cur] if out else [cur]
        return [s for s in out if s]
    return [s for s in re.split(r"(?<=[。！？；!?])", t) if s]


CN_DIGITS = "零一二三四五六七八九"


def to_chinese(n: int) -> str:
    """A number up to 9999 in Chinese numerals (1024 -> 一千零二十四; a year digit by digit: see numerals)."""
    units = [(1000, "千"), (100, "百"), (10, "十")]
    out, zero = "", False
    for u, name in units:
        q, n = divmod(n, u)
        if q:
            if zero:
                out += "零"
            out += ("" if (u == 10 and q == 1 and not out) else CN_DIGITS[q]) + name
            zero = False
        elif out:
            zero = True
    if n:
        out += ("零" if zero else "") + CN_DIGITS[n]
    return out or "零"


CN_NUM = re.compile(r"[零〇一二两三四五六七八九十百千]+")


def from_chinese(s: str) -> int | None:
    vals = {c: i for i, c in enumerate(CN_DIGITS)} | {"〇": 0, "两": 2}
    if all(c in vals for c in s):
        return int("".join(str(vals[c]) for c in s)) if len(s) > 1 else vals[s]
    total, cur = 0, 0
    for c in s:
        if c in vals:
            cur = vals[c]
        else:
            unit = {"十": 10, "百": 100, "千": 1000}[c]
            total += (cur or 1) * unit
            cur = 0
    return total + cur


DIGITS = re.compile(r"(?<![0-9A-Za-z.])[0-9]{1,4}(?![0-9A-Za-z.])")


def numerals(t: str, r: random.Random) -> str:
    """Digits to Chinese numerals, or Chinese numerals in a counting frame (第三章, 三个, 五年) to digits."""
    digits = list(DIGITS.finditer(t))
    cn = {m.span() for m in CN_NUM.finditer(t)
          if re.match(r"[章条节篇年月日个次名人项款岁号卷回种位步]", t[m.end():m.end() + 1])
          or t[max(0, m.start() - 1):m.start()] == "第"}
    if digits and (not cn or r.random() < 0.5):
        return DIGITS.sub(lambda m: "".join(CN_DIGITS[int(d)] for d in m.group()) if t[m.end():].lstrip()[:1] == "年"
                          else to_chinese(int(m.group())), t)
    if cn:
        return CN_NUM.sub(lambda m: str(from_chinese(m.group())) if m.span() in cn else m.group(), t)
    return t


def cjk_typo(t: str, r: random.Random) -> str:
    """A slip in CJK text: two neighbouring characters swapped, one dropped or one doubled."""
    idx = [i for i in range(1, len(t) - 2) if is_wide(t[i]) and t[i].isalpha() and t[i + 1].isalpha()]
    if not idx:
        return t
    i = r.choice(idx)
    kind = r.choice(("swap", "drop", "double"))
    if kind == "swap" and t[i] != t[i + 1]:
        return t[:i] + t[i + 1] + t[i] + t[i + 2:]
    if kind == "drop":
        return t[:i] + t[i + 1:]
    return t[:i + 1] + t[i:]


def en_punct(t: str, r: random.Random) -> str:
    """English punctuation as another site writes it: commas and the final stop dropped, or quotes
    and dashes changed."""
    if r.random() < 0.5:
        return re.sub(r",", "", t).rstrip(".")
    table = {"‘": "'", "’": "'", "“": '"', "”": '"', "'": "’", '"': "”", "--": "—", "—": " - ", ";": ".", ":": " -"}
    return re.sub(r"--|[‘’“”'\"—;:]", lambda m: table[m.group()], t)


def swap_word(t: str, table: list[tuple[str, str]], r: random.Random) -> str:
    """One occurrence of a word of `table` (either side) replaced by its mate; English words whole."""
    hits = []
    for x, y in [*table, *[(y, x) for x, y in table]]:
        pat = re.compile(rf"\b{re.escape(x)}\b" if x.isascii() else re.escape(x))
        for m in pat.finditer(t):
            if y not in t:
                hits.append((m.start(), m.end(), y))
    if not hits:
        return t
    s, e, y = r.choice(sorted(hits))
    return t[:s] + y + t[e:]


def cn_figure(t: str, r: random.Random) -> str:
    """One Chinese numeral changed (三人行 -> 五人行)."""
    hits = [m for m in re.finditer(r"[一二三四五六七八九十百千万两]", t)]
    if not hits:
        return t
    m = r.choice(hits)
    return t[:m.start()] + r.choice([c for c in "一二三四五六七八九" if c != m.group()]) + t[m.end():]


def affix_lang(o: str) -> str:
    """An affix's language: ja, zh, cjk (full-width signs only: fits Chinese and Japanese) or en."""
    lang = lang_of(o)
    return "cjk" if lang == "en" and any(is_wide(c) for c in o) else lang


class Edits:
    """The made-up edits of one source: its affixes, list markers, word swaps and names."""

    def __init__(self, name: str, texts: list[str], prefix=(), suffix=(), markers=(), swaps=(), names=()):
        self.name, self.texts = name, texts
        self.prefix, self.suffix, self.markers = prefix, suffix, markers
        self.swaps, self.names = list(swaps), list(names)
        r = rng(name, "leads")
        self.leads = {lang: [s[0] for s in (sentences(t) for t in r.sample(texts, min(len(texts), 3000)))
                             if len(s) >= 2 and lang_of(s[0]) == lang] for lang in ("zh", "ja", "en")}

    def affix(self, options, t: str, r: random.Random) -> str:
        """An affix in the text's language (a Latin one also fits a Chinese or Japanese text)."""
        lang = lang_of(t)
        pool = [o for o in options if affix_lang(o) in ((lang, "cjk", "en") if lang != "en" else ("en",))]
        return r.choice(pool) if pool else ""

    def repost(self, kind: str, t: str, r: random.Random) -> str:
        lang = lang_of(t)
        if kind == "prefix":
            return self.affix(self.prefix, t, r) + t
        if kind == "suffix":
            return t + self.affix(self.suffix, t, r)
        if kind == "marker":
            m = self.affix(self.markers, t, r)
            return m + t
        if kind == "punct":
            return en_punct(t, r) if lang == "en" else zh_punct(t, r)
        if kind == "width":
            if lang == "en":
                return t
            return halfwidth(t) if t != halfwidth(t) else fullwidth(t, digits_only=r.random() < 0.5)
        if kind == "case":
            return (t.upper() if t != t.upper() else t.capitalize()) if lang == "en" else t
        if kind == "trunc":
            return truncate(t, r, 0.5, 0.85, ("", "…", "...", "……") if lang != "en" else ("", "…", "...", " [...]"))
        if kind == "typo":
            return typo(t, r) if lang == "en" else cjk_typo(t, r)
        if kind == "typo2":
            return self.repost("typo", self.repost("typo", t, r), r)
        if kind == "numerals":
            return numerals(t, r) if lang != "en" else t
        if kind == "traditional":
            if lang != "zh":
                return t
            import zhconv
            simp = zhconv.convert(t, "zh-hans")
            return simp if simp != t else traditional(t)
        if kind == "drop":
            ss = sentences(t)
            if len(ss) < 3 and lang != "en":
                ss = [s for s in re.split(r"(?<=[，,])", t) if s]
            if len(ss) < 3:
                return t
            k = r.randrange(len(ss))
            return squash("".join(ss[:k] + ss[k + 1:]) if lang != "en" else " ".join(s.strip() for s in ss[:k] + ss[k + 1:]))
        if kind == "lead":
            ss = sentences(t)
            leads = [s for s in self.leads.get(lang, []) if s.strip() != ss[0].strip()]
            if len(ss) < 3 or not leads:
                return t
            sep = " " if lang == "en" else ""
            return squash(r.choice(leads).strip() + sep + sep.join(s.strip() for s in ss[1:]))
        raise ValueError(kind)

    def variant(self, kind: str, t: str, r: random.Random) -> str:
        if kind == "figure":
            return figure_variant(t, r) or t
        if kind == "cnfigure":
            return cn_figure(t, r)
        if kind == "word":
            return swap_word(t, self.swaps, r)
        if kind == "name":
            hits = [n for n in self.names if re.search(rf"\b{re.escape(n)}\b" if n.isascii() else re.escape(n), t)]
            if not hits:
                return t
            x = r.choice(hits)
            others = [n for n in self.names if n != x and n not in t and lang_of(n) == lang_of(x)]
            if not others:
                return t
            return re.sub(rf"\b{re.escape(x)}\b" if x.isascii() else re.escape(x), r.choice(others), t, count=1)
        raise ValueError(kind)


def apply(kind: str, t: str, r: random.Random, fn) -> tuple[str, str]:
    """The text after the edits of `kind` ('prefix+punct'), and the edits that changed it."""
    done = []
    for k in kind.split("+"):
        u = fn(k, t, r)
        if u != t:
            done.append(k)
        t = u
    return t, "+".join(done)


def made_up(ed: Edits, reposts: list[str], variants: list[str], n_repost: int, n_variant: int) -> list[tuple[str, str, str]]:
    """Candidate made-up pairs (drawn, original, edited): reposts of n_repost originals (alternating
    under and over SHORT characters) and slot variants of up to n_variant others of at most 160."""
    r = rng(ed.name, "edits")
    pool = [t for t in ed.texts if len(t) <= EDIT_MAX]
    r.shuffle(pool)
    short = [t for t in pool if len(t) < SHORT]
    long_ = [t for t in pool if len(t) >= SHORT]
    mixed = [t for pair in zip(short, long_) for t in pair] + short[len(long_):] + long_[len(short):]
    out = []
    for t in mixed[:n_repost]:
        kind = r.choice(reposts)
        b, done = apply(kind, t, r, ed.repost)
        if done:
            out.append((f"repost {done}", t, squash(b)))
    if variants:                         # a slot changed matters in a short text: originals up to 160 characters
        for t in [t for t in mixed[n_repost:] if len(t) <= 160][:n_variant]:
            kind = r.choice(variants)
            b, done = apply(kind, t, r, ed.variant)
            if done:
                out.append((f"variant {done}", t, squash(b)))
    return out


# ---------------------------------------------------------------- the sources and their quotas

# name -> by_lang (real strata per language of the text a), share of pairs wanted with the shorter
# text under SHORT characters, id prefix, loader, quotas (real: measure-2 bands; contain: containment bands of pairs
# under THRESHOLD; repost / variant: made-up edits), the repost and variant edits drawn from, and
# the Edits' affixes, markers, word swaps and names.
SOURCES = {
    "licenses": dict(
        short=0.5, id="li", load=licenses, real=110, contain=40, repost=42, variant=25,
        reposts=["prefix", "marker", "case", "punct", "trunc", "drop", "typo", "lead", "marker+typo", "prefix+trunc",
                 "case+drop"],
        variants=["name", "figure", "word", "name+word"],
        edits=dict(
            prefix=["License: ", "LICENSE TEXT: ", "Copyright notice. ", "NOTICE: ", "许可证：", "本许可证规定："],
            suffix=[" (see LICENSE)", " END OF TERMS AND CONDITIONS", "（完）"],
            markers=["1. ", "2) ", "(a) ", "(iii) ", "Section 4. ", "§ 2. ", "- ", "第三条 ", "（四）", "4、"],
            swaps=[("software", "documentation"), ("source code", "object code"), ("permitted", "prohibited"),
                   ("Licensor", "Licensee"), ("copyright holders", "contributors"), ("modify", "distribute"),
                   ("written", "oral"), ("commercial", "non-commercial"), ("shall", "may"), ("软件", "文档"),
                   ("许可人", "被许可人"), ("复制", "修改"), ("Software", "Font Software"), ("sublicense", "sell")],
            names=["the Regents of the University of California", "Massachusetts Institute of Technology",
                   "The Apache Software Foundation", "Free Software Foundation", "Sun Microsystems", "Netscape",
                   "Mozilla Foundation", "Lucent Technologies", "IBM", "Intel Corporation", "Silicon Graphics",
                   "Carnegie Mellon University", "Adobe", "Unicode, Inc.", "Python Software Foundation",
                   "Creative Commons", "X Consortium", "The Open Group", "Stanford University", "Microsoft",
                   "Oracle", "Eclipse Foundation", "GNU", "BSD", "Apache", "Mozilla", "Perl", "PHP", "Zope",
                   "MIT", "Linux Foundation", "Harvard University"])),
    "dialogue": dict(
        by_lang=True, short=0.8, id="dl", load=dialogue, real=110, contain=40, repost=42, variant=25,
        reposts=["prefix", "suffix", "punct", "width", "trunc", "typo", "traditional", "case", "prefix+punct",
                 "suffix+typo", "traditional+punct"],
        variants=["word", "figure", "word+figure"],
        edits=dict(
            prefix=["转发：", "回复 @小明：", "引用：", "楼主说：", "RT @user: ", "Re: ", "> ", "Quote: ", "返信：",
                    ">>1 ", "転載："],
            suffix=[" 哈哈哈", "😂", "！！", "～", "[笑]", " lol", " :)", "!!", "（笑）", "ｗｗｗ", "…", "です。"],
            swaps=[("猫", "狗"), ("电影", "音乐"), ("早上", "晚上"), ("喜欢", "讨厌"), ("夏天", "冬天"), ("咖啡", "茶"),
                   ("電影", "音樂"), ("男人", "女人"), ("cat", "dog"), ("movie", "book"), ("morning", "evening"),
                   ("like", "hate"), ("coffee", "tea"), ("summer", "winter"), ("he", "she"), ("映画", "音楽"),
                   ("朝", "夜"), ("好き", "嫌い"), ("コーヒー", "紅茶"), ("夏", "冬"), ("男性", "女性")])),
    "messages_zh": dict(
        short=0.75, id="mz", load=lambda: messages(("zh_CN", "zh_TW")), real=110, contain=40, repost=40, variant=25,
        reposts=["prefix", "suffix", "punct", "width", "trunc", "typo", "traditional", "prefix+width",
                 "suffix+punct", "numerals"],
        variants=["word", "figure", "word+figure"],
        edits=dict(
            prefix=["错误：", "警告：", "E: ", "W: ", "git: ", "dpkg: ", "提示：", "錯誤：", "tar: "],
            suffix=["。", "（已忽略）", " [Y/n]", "！", " (code 1)", "，退出。"],
            swaps=[("文件", "目录"), ("读取", "写入"), ("打开", "关闭"), ("删除", "创建"), ("源", "目标"), ("用户", "组"),
                   ("输入", "输出"), ("服务器", "客户端"), ("密钥", "签名"), ("启用", "禁用"), ("成功", "失败"),
                   ("安装", "卸载"), ("上游", "下游"), ("分支", "标签"), ("提交", "引用"), ("檔案", "目錄"),
                   ("讀取", "寫入"), ("開啟", "關閉"), ("刪除", "建立"), ("使用者", "群組")])),
    "messages_ja": dict(
        short=0.75, id="mj", load=lambda: messages(("ja",)), real=110, contain=40, repost=40, variant=25,
        reposts=["prefix", "suffix", "punct", "width", "trunc", "typo", "prefix+width", "suffix+punct", "numerals",
                 "typo2"],
        variants=["word", "figure", "word+figure"],
        edits=dict(
            prefix=["エラー: ", "警告: ", "E: ", "W: ", "注意: ", "gpg: "],
            suffix=["。", "(無視しました)", " [Y/n]", "！", " (code 1)"],
            swaps=[("ファイル", "ディレクトリ"), ("読み込み", "書き込み"), ("開け", "閉じ"), ("削除", "作成"),
                   ("ユーザ", "グループ"), ("入力", "出力"), ("サーバ", "クライアント"), ("鍵", "署名"), ("有効", "無効"),
                   ("成功", "失敗"), ("インストール", "アンインストール"), ("送信", "受信"), ("開始", "終了"),
                   ("公開", "秘密")])),
    "messages_en": dict(
        short=0.75, id="me", load=lambda: messages(("zh_CN", "zh_TW", "ja"), msgid=True), real=110, contain=40, repost=40,
        variant=25,
        reposts=["prefix", "suffix", "punct", "case", "trunc", "typo", "prefix+case", "suffix+punct", "typo2"],
        variants=["word", "figure", "word+figure"],
        edits=dict(
            prefix=["error: ", "warning: ", "E: ", "W: ", "fatal: ", "hint: ", "tar: ", "gpg: "],
            suffix=[".", " (ignored)", " [Y/n]", "!", " (code 1)", ", aborting"],
            swaps=[("file", "directory"), ("read", "write"), ("open", "close"), ("remove", "create"),
                   ("source", "destination"), ("user", "group"), ("input", "output"), ("server", "client"),
                   ("key", "signature"), ("enabled", "disabled"), ("success", "failure"), ("install", "uninstall"),
                   ("upstream", "downstream"), ("branch", "tag"), ("commit", "ref"), ("local", "remote"),
                   ("public", "secret")])),
    "descriptions": dict(
        by_lang=True, short=0.6, id="ds", load=descriptions, real=110, contain=40, repost=42, variant=25,
        reposts=["prefix", "suffix", "punct", "width", "trunc", "drop", "typo", "traditional", "lead", "prefix+punct",
                 "trunc+typo"],
        variants=["word", "name", "figure"],
        edits=dict(
            prefix=["软件包说明：", "描述：", "简介：", "パッケージの説明: ", "概要: ", "Description: ",
                    "Package description: "],
            suffix=["（过渡包）", "（元软件包）", "（移行用パッケージ）", " (transitional package)", " (metapackage)"],
            swaps=[("development files", "documentation"), ("runtime library", "development files"),
                   ("library", "utility"), ("client", "server"), ("plugin", "theme"), ("shared library", "static library"),
                   ("header files", "debugging symbols"), ("开发文件", "文档"), ("运行时库", "开发文件"),
                   ("客户端", "服务器"), ("插件", "主题"), ("共享库", "静态库"), ("開発用ファイル", "ドキュメント"),
                   ("ランタイムライブラリ", "開発用ファイル"), ("クライアント", "サーバ"), ("プラグイン", "テーマ")],
            names=["GNOME", "KDE", "Qt", "GTK", "Perl", "Python", "Ruby", "PHP", "Java", "MySQL", "PostgreSQL",
                   "SQLite", "Emacs", "Vim", "X11", "Wayland", "OCaml", "Haskell", "Lua", "Node.js", "Xfce", "LXQt"])),
    "faq": dict(
        by_lang=True, short=0.55, id="fq", load=faq, real=110, contain=40, repost=42, variant=25,
        reposts=["marker", "prefix", "punct", "width", "trunc", "drop", "typo", "lead", "case", "marker+punct",
                 "numerals"],
        variants=["word", "figure", "word+figure"],
        edits=dict(
            prefix=["Q: ", "Question: ", "FAQ: ", "问：", "问题：", "常见问题："],
            markers=["1. ", "3.2. ", "Q. ", "- ", "• ", "（三）", "4、", "问：", "Q："],
            swaps=[("Debian", "Ubuntu"), ("stable", "testing"), ("i386", "amd64"), ("Windows", "macOS"),
                   ("Python", "Perl"), ("list", "tuple"), ("install", "remove"), ("kernel", "bootloader"),
                   ("upgrade", "downgrade"), ("module", "package"), ("稳定版", "测试版"), ("安装", "卸载"),
                   ("内核", "引导程序"), ("软件包", "源代码")])),
    "poetry": dict(
        short=0.5, id="po", load=poetry, real=110, contain=40, repost=62, variant=0,
        reposts=["prefix", "suffix", "punct", "traditional", "drop", "trunc", "typo", "prefix+traditional",
                 "punct+drop"],
        variants=[],
        edits=dict(
            prefix=["分享一首诗：", "【每日一诗】", "古诗欣赏：", "转：", "诗曰："],
            suffix=["（唐诗）", " —— 转自古诗文网", "（宋词）", " #古诗词#"])),
    "classics": dict(
        short=0.65, id="cl", load=classics, real=110, contain=40, repost=40, variant=25,
        reposts=["prefix", "punct", "traditional", "drop", "trunc", "typo", "numerals", "prefix+punct", "marker"],
        variants=["word", "cnfigure"],
        edits=dict(
            prefix=["子曰：", "古人云：", "《论语》有言：", "俗话说：", "转："],
            markers=["一、", "（二）", "3、", "第五章 "],
            swaps=[("君子", "小人"), ("父", "母"), ("天", "地"), ("东", "西"), ("春", "秋"), ("上", "下"), ("仁", "义"),
                   ("左", "右"), ("古", "今"), ("兄", "弟"), ("日", "月"), ("山", "水"), ("富", "贫"), ("貴", "賤"),
                   ("贵", "贱"), ("東", "西")])),
    "info": dict(
        short=0.5, id="in", load=info, real=110, contain=40, repost=42, variant=25,
        reposts=["prefix", "marker", "punct", "case", "trunc", "drop", "typo", "lead", "marker+typo", "prefix+drop"],
        variants=["word", "figure", "word+figure"],
        edits=dict(
            prefix=["Note: ", "Tip: ", "From the manual: ", "NOTE: "],
            markers=["• ", "1. ", "- ", "* ", "(a) "],
            swaps=[("file", "directory"), ("input", "output"), ("first", "last"), ("before", "after"),
                   ("minimum", "maximum"), ("newline", "null"), ("read", "write"), ("source", "destination"),
                   ("byte", "character"), ("line", "field"), ("owner", "group"), ("local", "remote"),
                   ("download", "upload"), ("beginning", "end"), ("enabled", "disabled")])),
}
NORMALIZATION_ONLY = {"punct", "width", "case", "traditional"}     # edits that may leave the kept string as it was


def eligible(drawn: str, a: str, b: str, s: tuple[float, float, float]) -> bool:
    """In the candidate pool (similarity >= THRESHOLD or containment >= CONTAIN), both texts long
    enough, different; a made-up pair equal in its kept characters only for normalization edits."""
    if a == b or len(kept(a)) < MIN_KEPT or len(kept(b)) < MIN_KEPT or len(b) > MAX_LEN + 60:
        return False
    if not (s[0] >= THRESHOLD or max(s[1], s[2]) >= CONTAIN):
        return False
    if s[0] < THRESHOLD and min(kept_width(a), kept_width(b)) < MIN_WIDTH_CONTAIN:
        return False                     # 'Dependencies' in 'Unable to resolve dependencies: %s'

    if kept(a) == kept(b):
        return drawn.startswith("repost") and set(drawn.split()[1].split("+")) <= NORMALIZATION_ONLY
    return True


# ---------------------------------------------------------------- candidates and drawing

Cand = tuple  # (drawn, a, b, (similarity, a_in_b, b_in_a))


def candidates(binary: Path, name: str, spec: dict) -> tuple[list[str], list[Cand]]:
    """The source's distinct texts and its eligible candidate pairs: every real pair of the texts
    in the pool (found exactly), and made-up edits of seeded originals (four per drawn pair wanted)."""
    texts = spec["load"]()
    r = rng(name, "real")
    out = []
    for i, j, s, ca, cb in allpairs(binary, texts):
        a, b = texts[i], texts[j]
        if r.random() < 0.5:
            a, b, ca, cb = b, a, cb, ca
        drawn = stratum(s, ca, cb)
        if spec.get("by_lang"):          # one stratum per language: the languages are drawn alike
            drawn += f" {lang_of(a)}"
        if eligible(drawn, a, b, (s, ca, cb)):
            out.append((drawn, a, b, (s, ca, cb)))
    ed = Edits(name, texts, **spec["edits"])
    made = made_up(ed, spec["reposts"], spec["variants"], 4 * spec["repost"], 12 * spec["variant"])
    for (drawn, a, b), s in zip(made, score(binary, [(a, b) for _, a, b in made])):
        if eligible(drawn, a, b, s):
            out.append((drawn, a, b, s))
    return texts, out


GROUPS = (("real", "m2 "), ("contain", "contain "), ("repost", "repost "), ("variant", "variant "))


def draw(name: str, spec: dict, cands: list[Cand]) -> list[Cand]:
    """Per group, its quota of pairs drawn round-robin over its cells (a band, or an edit), one pair
    of a cell in turn in a seeded order; within a cell, a pair whose shorter text is under SHORT
    characters while the source's drawn pairs hold no more than its share 'short' of such, else one of
    100+ (the other kind when a cell has none left). A text is in at most MAX_USES pairs; no pair twice."""
    r = rng(name, "draw")
    uses: dict[str, int] = defaultdict(int)
    taken: set[tuple[str, str]] = set()
    rows: list[Cand] = []
    n_short = 0
    for group, prefix in GROUPS:
        quota = spec[group]
        cells: dict[str, tuple[list, list]] = defaultdict(lambda: ([], []))
        for c in cands:
            if c[0].startswith(prefix):
                cells[c[0]][0 if min(len(c[1]), len(c[2])) < SHORT else 1].append(c)
        order = sorted(cells)
        r.shuffle(order)
        for cell in order:
            for lst in cells[cell]:
                lst.sort()
                r.shuffle(lst)
        n = 0
        while n < quota and any(any(cells[c]) for c in order):
            for cell in order:
                if n >= quota:
                    break
                short_first = n_short <= spec["short"] * len(rows)
                for lst in (cells[cell] if short_first else cells[cell][::-1]):
                    got = None
                    while lst:
                        c = lst.pop()
                        key = (min(c[1], c[2]), max(c[1], c[2]))
                        if key in taken or uses[c[1]] >= MAX_USES or uses[c[2]] >= MAX_USES:
                            continue
                        got = c
                        break
                    if got:
                        taken.add(key)
                        uses[got[1]] += 1
                        uses[got[2]] += 1
                        rows.append(got)
                        n_short += min(len(got[1]), len(got[2])) < SHORT
                        n += 1
                        break
    return rows


# ---------------------------------------------------------------- output

HEAD = [
    "# Pairs of texts to label by reading. Label each pair by this rule:", "#",
    *(f"#   {line}" for line in RULE.splitlines()), "#",
    "# Columns (tab-separated): pair = the pair's id; corpus = the source: licenses (SPDX licence texts),",
    "# dialogue (chatterbot conversations in Chinese, Japanese, English), messages_zh / messages_ja /",
    "# messages_en (program messages of Debian packages: Chinese translations, Japanese translations,",
    "# English originals), descriptions (Debian package descriptions in Chinese, Japanese, English), faq",
    "# (Debian and Python FAQ questions and answers), poetry (Tang, Song, Yuan poems), classics (Confucian",
    "# classics, primers, Shijing), info (GNU Info manuals); drawn = how the pair was drawn: a band of",
    "# measure 2 ('m2 0.5-0.6') or of containment ('contain 0.7-0.8') for real pairs of a source (with the",
    "# language of a in dialogue, descriptions and faq: 'm2 0.5-0.6 ja'), or a made-up edit of the text a",
    "# ('repost prefix+punct', 'variant word'); label = 1 or 0 by the rule above",
    "# (to fill in); reason = a few words on why (to fill in; 'borderline:' first when a careful reader could",
    "# go either way); a, b = the two texts (tabs and line breaks made spaces).",
    "# Generated by tests/quality/labels/wide_sample.py; do not edit the columns pair, corpus, drawn, a, b.",
]
PACKET_HEAD = [*(f"# {line}" for line in RULE.splitlines()),
               "# Write label (1 or 0) and a one-line reason for each pair"]


def old_labels(path: Path) -> dict[tuple[str, str], tuple[str, str]]:
    old = {}
    if path.exists():
        for line in path.read_text(encoding="utf-8").splitlines():
            f = line.split("\t")
            if len(f) == 7 and not line.startswith("#") and f[0] != "pair":
                old[(f[5], f[6])] = (f[3], f[4])
    return old


def chunks(rows: list, size: int) -> list[list]:
    """rows cut into about-`size` packets of nearly equal length."""
    k = max(1, round(len(rows) / size))
    step = len(rows) / k
    return [rows[round(i * step):round((i + 1) * step)] for i in range(k)]


def write_packets(out_dir: Path, stem: str, rows: list[tuple[str, str, str]]) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    for old in out_dir.glob(f"{stem}-[0-9][0-9].tsv"):
        old.unlink()
    paths = []
    for k, part in enumerate(chunks(rows, PACKET), 1):
        p = out_dir / f"{stem}-{k:02d}.tsv"
        with open(p, "w", encoding="utf-8") as f:
            f.write("\n".join(PACKET_HEAD) + "\n")
            f.write("pair\ta\tb\n")
            for pid, a, b in part:
                f.write(f"{pid}\t{a}\t{b}\n")
        paths.append(p)
    return paths


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    target = Path(os.environ.get("CARGO_TARGET_DIR", ROOT / "target"))
    here = ROOT / "tests" / "quality" / "labels"
    ap.add_argument("--bin", type=Path, default=target / "release" / "examples" / "quality_similarity")
    ap.add_argument("--out", type=Path, default=here / "wide_pairs.tsv")
    ap.add_argument("--pool", type=Path, default=here / "wide_pool.tsv")
    ap.add_argument("--packets", type=Path, default=here / "packets")
    ap.add_argument("--scores", type=Path, default=ROOT / "target" / "labels" / "wide_scores.tsv")
    ap.add_argument("--only", help="comma-separated sources (a trial run: nothing is written)")
    args = ap.parse_args()
    if not args.bin.exists():
        sys.exit(f"wide_sample: no {args.bin}; build it: CARGO_TARGET_DIR=... cargo build --release -p simhash-core "
                 "--example quality_similarity")
    only = set(args.only.split(",")) if args.only else None
    rows, pool_rows = [], []
    for name, spec in SOURCES.items():
        if only and name not in only:
            continue
        texts, cands = candidates(args.bin, name, spec)
        drawn = draw(name, spec, cands)
        rng(name, "order").shuffle(drawn)
        rows += [(f"{spec['id']}-{k:03d}", name, *row) for k, row in enumerate(drawn, 1)]
        pool, got = Counter(c[0] for c in cands), Counter(c[0] for c in drawn)
        pool_rows += [(name, st, pool[st], got[st]) for st in sorted(pool)]
        short = sum(min(len(a), len(b)) < SHORT for _, a, b, _ in drawn)
        made = sum(not d.startswith(("m2", "contain")) for d, *_ in drawn)
        print(f"wide_sample: {name}: {len(texts)} texts, {len(cands)} candidates, {len(drawn)} drawn "
              f"({made} made up), {short} with the shorter text under {SHORT} characters", file=sys.stderr)
    if only:
        return 0

    old = old_labels(args.out)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(HEAD) + "\n")
        f.write("pair\tcorpus\tdrawn\tlabel\treason\ta\tb\n")
        for pid, name, drawn, a, b, _ in rows:
            a, b = clean(a), clean(b)
            label, reason = old.get((a, b), ("", ""))
            f.write(f"{pid}\t{name}\t{drawn}\t{label}\t{reason}\t{a}\t{b}\n")
    with open(args.pool, "w", encoding="utf-8") as f:
        f.write("# Candidate pairs per source and drawing stratum of wide_pairs.tsv (tests/quality/labels/wide_sample.py):\n"
                "# pool_pairs = the eligible candidate pairs of the stratum, drawn_pairs = how many of them were drawn.\n"
                "# For 'm2' and 'contain' strata the pool is every such pair of the source's distinct texts (found\n"
                "# exactly), so a stratum's figures weigh pool_pairs / drawn_pairs; for 'repost' and 'variant' strata\n"
                "# it is only the made-up candidates generated (four per pair wanted), not a population.\n")
        f.write("corpus\tstratum\tpool_pairs\tdrawn_pairs\n")
        for name, st, n_pool, n_drawn in pool_rows:
            f.write(f"{name}\t{st}\t{n_pool}\t{n_drawn}\n")
    args.scores.parent.mkdir(parents=True, exist_ok=True)
    with open(args.scores, "w", encoding="utf-8") as f:
        f.write("pair\tcorpus\tdrawn\tsimilarity\ta_in_b\tb_in_a\tshorter\n")
        for pid, name, drawn, a, b, s in rows:
            f.write(f"{pid}\t{name}\t{drawn}\t{s[0]:.4f}\t{s[1]:.4f}\t{s[2]:.4f}\t{min(len(a), len(b))}\n")

    # Readers' packets: pair, a, b only; every packet mixes the sources.
    plain = [(pid, clean(a), clean(b)) for pid, _, _, a, b, _ in rows]
    first = list(plain)
    rng("packets", "first").shuffle(first)
    by_source = defaultdict(list)
    for row, (_, name, *_rest) in zip(plain, rows):
        by_source[name].append(row)
    second = []
    for name in SOURCES:
        if by_source[name]:
            second += rng(name, "second").sample(by_source[name], round(SECOND * len(by_source[name])))
    rng("packets", "second").shuffle(second)
    p1 = write_packets(args.packets, "wide", first)
    p2 = write_packets(args.packets, "wide-second", second)
    short = sum(min(len(a), len(b)) < SHORT for *_, a, b, _ in rows)
    print(f"wide_sample: {len(rows)} pairs ({short} with the shorter text under {SHORT} characters) written to "
          f"{args.out}; pool to {args.pool}; {len(p1)} + {len(p2)} packets ({len(second)} pairs for a second "
          f"reading) in {args.packets}", file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
