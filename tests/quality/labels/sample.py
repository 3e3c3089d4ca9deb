"""A blind sample of text pairs to be labelled by reading: tests/quality/labels/pairs.tsv.

The independent judge of the similarity measure (issue: two invoice lines or two days' stock
quotes score 1.00 under measure 1 though a reader calls them different content). This script
only draws the pairs; people label them later, by the rule written at the head of pairs.tsv.

Measures (a Python model of crates/simhash-core/src/similarity/shingles.rs, without its
traditional-to-simplified folding): NFKC, lowercase, keep `str.isalnum()` characters;
  m1  every numeric character (Unicode category N*, as Rust's `char::is_numeric`) read as '0'
      (the measure as it is);
  m2  digits kept as written (after NFKC, so full-width digits are ASCII): the proposal.
A shingle is the shortest run of kept characters ending at each character that is at least
5 wide (a CJK/kana/hangul character counts 2, any other 1); a text narrower than one shingle
is one shingle. similarity = Jaccard of the distinct shingle sets; containment = the share of
the smaller set found in the other.

Corpora (target/corpus/, fetched by tests/harness/corpus.sh and tests/quality/corpora.sh; lines
unescaped as edits.read_corpus does): chinese = People's Daily 1998-01; english = english.txt
and pydocs.txt; japanese; mixed. Per corpus, the distinct lines of 10+ kept characters and at
most 600 characters (readers must read both texts; longer ones are left out of everything).
Pairs whose m2 kept strings are equal (the same text but for punctuation, case or width) are
dropped. No subset is taken: every corpus is searched whole and exactly.

Pairs found exactly: all pairs with similarity >= 0.3 under m1, and under m2 (prefix filtering,
rarest shingles first, Bayardo et al. 2007's index and probe prefixes); all pairs whose m2
containment is >= 0.5 (the smaller set's prefix indexed, every shingle of the larger probed).

Drawn per corpus (every choice from random.Random("labels:<corpus>:<purpose>")):
  m1 / m2 BAND    for each measure and band [0.3,0.4) .. [0.8,0.9), [0.9,1.0], PER_CELL pairs
                  with the measure's similarity in the band, half with the shorter text under
                  100 characters and half 100+ (the other half fills in when one runs short);
                  a pair already drawn (by m1) is not drawn again;
  contain BAND    m2 containment >= 0.5 while m2 similarity < 0.5 (quotations, excerpts), per
                  containment band [0.5,0.6) .. [0.9,1.0], PER_CONTAIN_BAND pairs, same halves;
  edit KIND       repost edits of edits.py (languages.py's Language of the corpus): each of the
                  nine KINDS on one original of 50-99 characters and one of 150-450, and
                  "excerpt 60%" and "merged" (segment_pairs.py) likewise; a = the original.
                  An edit whose result equals the original after normalization is redrawn,
                  except "half-width", whose pairs are equal after NFKC by construction.
A text appears in at most MAX_USES drawn pairs of its corpus, so that no templated line fills a
band. A corpus with fewer than TARGET pairs after that (japanese and mixed: their upper bands
hold few pairs or none) is topped up one pair per band in turn, short and long by turns.
Rows are shuffled within a corpus; pair ids follow the row order.

Run time: about 4 minutes of CPU on one core (english, 27k texts, takes most of it).

pairs.tsv holds no measure values (the labels must be blind); target/labels/scores.tsv has
them, per pair, for checking.

  target/labels-venv/bin/python tests/quality/labels/sample.py
(numpy is needed by edits.py: python3 -m venv target/labels-venv &&
 target/labels-venv/bin/pip install numpy==2.2.6)
"""
from __future__ import annotations

import argparse
import math
import random
import sys
import time
import unicodedata
from collections import Counter, defaultdict
from pathlib import Path

ROOT = Path(__file__).resolve().parents[3]
sys.path.insert(0, str(ROOT / "tests" / "quality"))

import edits                                   # noqa: E402
import languages                               # noqa: E402
import segment_pairs                           # noqa: E402
from edits import KINDS, CharSampler, read_corpus   # noqa: E402

RULE = (
    "1 = the same passage: a copy, an edited copy (sentences dropped, added, moved or reworded in part), "
    "or a quotation (one text quotes a substantial passage of the other);\n"
    "0 = different content on a shared frame: other figures, another item of a list or statute, "
    "other names in the same sentence frame, or only a shared phrase."
)
CORPORA = {                         # name -> (id prefix, files, Language of the edits)
    "chinese": ("zh", ("peoples_daily_199801.txt",), edits.CHINESE),
    "english": ("en", ("english.txt", "pydocs.txt"), languages.ENGLISH),
    "japanese": ("ja", ("japanese.txt",), languages.JAPANESE),
    "mixed": ("mx", ("mixed.txt",), languages.MIXED),
}
MIN_KEPT = 10
MAX_LEN = 600
SHORT = 100                         # length band: the shorter text under 100 characters
THRESHOLD = 0.3
CONTAIN = 0.5
BANDS = [(round(0.3 + 0.1 * k, 1), round(0.4 + 0.1 * k, 1)) for k in range(7)]   # last: [0.9, 1.0]
CONTAIN_BANDS = BANDS[2:]
PER_CELL = 12                       # pairs per measure and band
PER_CONTAIN_BAND = 2
EDIT_KINDS = (*KINDS, *languages.CONTAINMENT)
EDIT_SHORT = (50, SHORT - 1)        # originals of the edits, by length band
EDIT_LONG = (150, 450)
MAX_USES = 2
TARGET = {"chinese": 200, "english": 200, "japanese": 190, "mixed": 180}   # pairs per corpus, topped up

WIDE = ((0x1100, 0x115F), (0x2E80, 0x303E), (0x3041, 0x33FF), (0x3400, 0x4DBF), (0x4E00, 0x9FFF),
        (0xA960, 0xA97F), (0xAC00, 0xD7A3), (0xF900, 0xFAFF), (0xFE30, 0xFE4F), (0x1B000, 0x1B16F),
        (0x20000, 0x3FFFD))
_width: dict[str, int] = {}


def width(c: str) -> int:
    w = _width.get(c)
    if w is None:
        o = ord(c)
        w = _width[c] = 2 if any(lo <= o <= hi for lo, hi in WIDE) else 1
    return w


def kept(text: str, fold: bool) -> str:
    """The kept characters: NFKC, lowercase, letters and digits; `fold`: digits read as '0'."""
    out = []
    for c in unicodedata.normalize("NFKC", text).lower():
        if c.isalnum():
            if fold and unicodedata.category(c)[0] == "N":
                c = "0"
            out.append(c)
    return "".join(out)


def shingles(k: str) -> frozenset[str]:
    ws = [width(c) for c in k]
    out = set()
    for i in range(len(k)):
        acc = 0
        for j in range(i, max(-1, i - 5), -1):
            acc += ws[j]
            if acc >= 5:
                out.add(k[j:i + 1])
                break
    if not out and k:
        out.add(k)
    return frozenset(out)


def measures(a: frozenset, b: frozenset) -> tuple[float, float]:
    """(similarity, containment of the smaller set in the other)."""
    o = len(a & b)
    return o / (len(a) + len(b) - o), o / min(len(a), len(b))


# ---------------------------------------------------------------- exact pair search

def ranked(sets: list[frozenset[str]]) -> tuple[list[list[int]], list[frozenset[int]]]:
    """Each set as shingle ids sorted rarest first (the id is the rank of (frequency, shingle)),
    and as a frozenset of those ids."""
    freq = Counter(s for x in sets for s in x)
    rank = {s: i for i, s in enumerate(sorted(freq, key=lambda s: (freq[s], s)))}
    lists = [sorted(rank[s] for s in x) for x in sets]
    return lists, [frozenset(x) for x in lists]


def ceil(x: float) -> int:
    return math.ceil(x - 1e-9)


def similar_pairs(lists: list[list[int]], fsets: list[frozenset[int]], t: float) -> dict[tuple[int, int], float]:
    """Every (i, j), i < j, with Jaccard >= t. Sets are taken in order of size; a set probes
    with its first |x| - ceil(t|x|) + 1 ids and is indexed by its first |x| - ceil(2t/(1+t)|x|) + 1
    (every earlier set is no larger), which no pair over t can miss. A candidate is verified
    only if the ids shared within both prefixes, plus the ids after the prefix that ends at the
    rarer id, can reach the overlap t/(1+t)(|x|+|y|) that Jaccard t needs."""
    order = sorted(range(len(lists)), key=lambda i: (len(lists[i]), i))
    index: dict[int, list[int]] = defaultdict(list)
    rest, last = [0] * len(lists), [0] * len(lists)     # per indexed set: ids after its prefix, its last prefix id
    out = {}
    for j in order:
        x, xs, lx = lists[j], fsets[j], len(lists[j])
        probe = x[:lx - ceil(t * lx) + 1]
        shared = Counter()
        for e in probe:
            if (ps := index.get(e)) is not None:
                shared.update(ps)
        low, xrest, xlast = ceil(t * lx), lx - len(probe), probe[-1]
        for i, a in shared.items():
            li = len(lists[i])
            if li < low or a + (xrest if xlast <= last[i] else rest[i]) < t / (1 + t) * (li + lx) - 1e-9:
                continue
            o = len(xs & fsets[i])
            if o >= t * (li + lx - o) - 1e-9:
                out[(min(i, j), max(i, j))] = o / (li + lx - o)
        prefix = x[:lx - ceil(2 * t / (1 + t) * lx) + 1]
        rest[j], last[j] = lx - len(prefix), prefix[-1]
        for e in prefix:
            index[e].append(j)
    return out


def contained_pairs(lists: list[list[int]], fsets: list[frozenset[int]], c: float) -> dict[tuple[int, int], float]:
    """Every (i, j), i < j, with |X∩Y| >= c min(|X|, |Y|): the smaller set (taken first, in order of
    size) indexed by its first |x| - ceil(c|x|) + 1 ids, each larger one probing with all of its ids.
    (A count of the shared prefix ids prunes nothing here: one shared id can still reach c|x|.)"""
    order = sorted(range(len(lists)), key=lambda i: (len(lists[i]), i))
    index: dict[int, list[int]] = defaultdict(list)
    out = {}
    for j in order:
        x, xs = lists[j], fsets[j]
        cand = set()
        for e in x:
            if (ps := index.get(e)) is not None:
                cand.update(ps)
        for i in cand:
            li = len(lists[i])
            o = len(xs & fsets[i])
            if o >= c * li - 1e-9:
                out[(min(i, j), max(i, j))] = o / li
        for e in x[:len(x) - ceil(c * len(x)) + 1]:
            index[e].append(j)
    return out


# ---------------------------------------------------------------- the corpus and its pairs

class Corpus:
    def __init__(self, name: str, corpus_dir: Path):
        self.name = name
        self.prefix, files, self.lang = CORPORA[name]
        lines = list(dict.fromkeys(line for f in files for line in read_corpus(corpus_dir / f)))
        self.lines = len(lines)
        self.too_long = sum(len(t) > MAX_LEN for t in lines)
        self.texts = [t for t in lines if len(t) <= MAX_LEN and len(kept(t, False)) >= MIN_KEPT]
        self.sampler = CharSampler(lines)
        self.norm = [kept(t, False) for t in self.texts]
        self.sets = {m: [shingles(kept(t, m == "m1")) if m == "m1" else shingles(k)
                         for t, k in zip(self.texts, self.norm)] for m in ("m1", "m2")}
        self.found: dict[str, dict[tuple[int, int], float]] = {}
        lists = {}
        for m in ("m1", "m2"):
            lists[m] = ranked(self.sets[m])
            self.found[m] = {p: s for p, s in similar_pairs(*lists[m], THRESHOLD).items()
                             if self.norm[p[0]] != self.norm[p[1]]}
        self.contained = {p: c for p, c in contained_pairs(*lists["m2"], CONTAIN).items()
                          if self.norm[p[0]] != self.norm[p[1]]}
        self.pairs = sorted(set(self.found["m1"]) | set(self.found["m2"]))

    def sim(self, m: str, p: tuple[int, int]) -> float:
        return self.found[m].get(p) if p in self.found[m] else measures(self.sets[m][p[0]], self.sets[m][p[1]])[0]

    def rng(self, purpose: str) -> random.Random:
        return random.Random(f"labels:{self.name}:{purpose}")


def band_of(x: float, bands) -> tuple[float, float] | None:
    for lo, hi in bands:
        if lo <= x < hi or (hi == 1.0 and x == 1.0):
            return lo, hi
    return None


def short(a: str, b: str) -> bool:
    return min(len(a), len(b)) < SHORT


def clean(t: str) -> str:
    return t.replace("\t", " ").replace("\r", " ").replace("\n", " ")


class Draw:
    """The pairs drawn from one corpus: (drawn, a, b), each text in at most MAX_USES of them."""

    def __init__(self, c: Corpus):
        self.c, self.rows, self.uses, self.taken = c, [], Counter(), set()

    def free(self, p: tuple[int, int]) -> bool:
        return p not in self.taken and self.uses[p[0]] < MAX_USES and self.uses[p[1]] < MAX_USES

    def take(self, drawn: str, p: tuple[int, int]):
        self.taken.add(p)
        self.uses.update(p)
        self.rows.append((drawn, self.c.texts[p[0]], self.c.texts[p[1]]))

    def cell(self, drawn: str, pool: list[tuple[int, int]], n: int, r: random.Random, long_first: bool = False) -> int:
        """n pairs of `pool` (half of them short, the odd one short unless `long_first`), the other
        length band filling in where one runs short; how many were drawn."""
        t = self.c.texts
        halves = [[p for p in pool if short(t[p[0]], t[p[1]])], [p for p in pool if not short(t[p[0]], t[p[1]])]]
        for h in halves:
            r.shuffle(h)
        want, got = [n - n // 2, n // 2], [0, 0]
        if long_first:
            want.reverse()
        for k in (0, 1, 0, 1):           # each half its share, then either fills in for the other
            for p in halves[k]:
                if got[k] >= want[k] or sum(got) >= n:
                    break
                if self.free(p):
                    self.take(drawn, p)
                    got[k] += 1
            if k == 1:
                want = [n - got[1], n - got[0]]
        return sum(got)


def cells(c: Corpus) -> dict[str, list[tuple[int, int]]]:
    """drawn -> the pairs of its band: the similarity bands of m1 and m2, the containment bands."""
    out = {}
    for m in ("m1", "m2"):
        for band in BANDS:
            out[f"{m} {band[0]:.1f}-{band[1]:.1f}"] = [p for p in c.pairs if band_of(c.sim(m, p), BANDS) == band]
    for band in CONTAIN_BANDS:
        out[f"contain {band[0]:.1f}-{band[1]:.1f}"] = [
            p for p, x in sorted(c.contained.items()) if band_of(x, CONTAIN_BANDS) == band and c.sim("m2", p) < CONTAIN]
    return out


def draw_bands(d: Draw, pools: dict[str, list[tuple[int, int]]]):
    for drawn, pool in pools.items():
        d.cell(drawn, pool, PER_CONTAIN_BAND if drawn.startswith("contain") else PER_CELL, d.c.rng(drawn))


def top_up(d: Draw, pools: dict[str, list[tuple[int, int]]], target: int):
    """One more pair from each band in turn (short and long preferred by turns) until the corpus
    has `target` pairs or no band has a free pair left."""
    turn = 0
    while len(d.rows) < target:
        added = 0
        for drawn, pool in pools.items():
            if len(d.rows) >= target:
                break
            added += d.cell(drawn, pool, 1, d.c.rng(f"{drawn} top-up {turn}"), long_first=turn % 2 == 1)
        if not added:
            break
        turn += 1


def edited(kind: str, text: str, r: random.Random, c: Corpus, donor: str) -> str | None:
    if kind == "excerpt 60%":
        return segment_pairs.excerpt(text, r, c.lang.sentence)
    if kind == "merged":
        return donor + "\n" + text
    return edits.edit(kind, text, r, c.sampler, donor, c.lang)


def draw_edits(d: Draw):
    c = d.c
    for kind in EDIT_KINDS:
        for lo, hi in (EDIT_SHORT, EDIT_LONG):
            r = c.rng(f"edit {kind} {lo}")
            idx = [i for i, t in enumerate(c.texts) if lo <= len(t) <= hi and d.uses[i] < MAX_USES]
            if kind == "merged" and lo >= SHORT:
                idx = [i for i in idx if len(c.texts[i]) <= MAX_LEN // 2]
            r.shuffle(idx)
            for i in idx:
                text = c.texts[i]
                room = MAX_LEN - len(text) - 1 if kind == "merged" else hi
                donors = [t for t in c.texts if lo <= len(t) <= min(hi, room) and t != text]
                new = edited(kind, text, r, c, r.choice(donors))
                if new is None or len(new) > MAX_LEN or len(kept(new, False)) < MIN_KEPT:
                    continue
                if kind == "half-width" and new == text:
                    continue
                if kind != "half-width" and kept(new, False) == c.norm[i]:
                    continue
                d.uses[i] += 1
                d.rows.append((f"edit {kind}", text, new))
                break


def draw(c: Corpus) -> list[tuple[str, str, str]]:
    d, pools = Draw(c), cells(c)
    draw_bands(d, pools)
    draw_edits(d)
    top_up(d, pools, TARGET[c.name])
    return d.rows


# ---------------------------------------------------------------- output

def scores(a: str, b: str) -> list[str]:
    out = []
    for fold in (True, False):
        x, y = shingles(kept(a, fold)), shingles(kept(b, fold))
        out += [f"{v:.3f}" for v in measures(x, y)]
    return out


def table(header: list[str], rows: list[list[str]]) -> list[str]:
    widths = [max(len(str(r[i])) for r in [header, *rows]) for i in range(len(header))]
    return ["  ".join(str(v).rjust(w) if i else str(v).ljust(w) for i, (v, w) in enumerate(zip(r, widths)))
            for r in [header, *rows]]


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--corpus-dir", type=Path, default=ROOT / "target" / "corpus")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "quality" / "labels" / "pairs.tsv")
    ap.add_argument("--scores", type=Path, default=ROOT / "target" / "labels" / "scores.tsv")
    ap.add_argument("--corpora", default=",".join(CORPORA))
    args = ap.parse_args()
    start = time.time()
    rows, stats = [], []
    for name in args.corpora.split(","):
        t0 = time.time()
        c = Corpus(name, args.corpus_dir)
        drawn = draw(c)
        drawn.sort(key=lambda row: row[0])
        c.rng("order").shuffle(drawn)
        rows += [(f"{c.prefix}-{k:03d}", name, *row) for k, row in enumerate(drawn, 1)]
        stats.append([name, f"{c.lines:,}", f"{c.too_long:,}", f"{len(c.texts):,}", f"{len(c.found['m1']):,}",
                      f"{len(c.found['m2']):,}", f"{len(c.pairs):,}",
                      f"{sum(c.sim('m2', p) < CONTAIN for p in c.contained):,}", f"{time.time() - t0:.0f}s"])
        print(f"labels: {name}: {len(drawn)} pairs drawn ({time.time() - t0:.0f} s)", file=sys.stderr, flush=True)

    head = ["# Pairs of texts to label by reading. Label each pair by this rule:", "#",
            *(f"#   {line}" for line in RULE.splitlines()), "#",
            "# Columns (tab-separated): pair = the pair's id; corpus = chinese (People's Daily 1998-01),",
            "# english (Botchan, Debian Reference, Python 3.11 library reference), japanese (Debian documents",
            "# in Japanese), mixed (Debian Reference in Chinese); drawn = how the pair was drawn: a band of",
            "# measure 1 or 2 ('m1 0.9-1.0'), of containment ('contain 0.6-0.7'), or a made-up repost edit of",
            "# the text a ('edit drop sentence'); label = 1 or 0 by the rule above (to fill in); reason = a",
            "# few words on why (to fill in); a, b = the two texts (tabs and line breaks made spaces).",
            "# Generated by tests/quality/labels/sample.py; do not edit the columns pair, corpus, drawn, a, b."]
    args.out.parent.mkdir(parents=True, exist_ok=True)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write("\n".join(head) + "\n")
        f.write("pair\tcorpus\tdrawn\tlabel\treason\ta\tb\n")
        for pid, name, drawn, a, b in rows:
            f.write(f"{pid}\t{name}\t{drawn}\t\t\t{clean(a)}\t{clean(b)}\n")
    args.scores.parent.mkdir(parents=True, exist_ok=True)
    with open(args.scores, "w", encoding="utf-8") as f:
        f.write("pair\tcorpus\tdrawn\tshort\tlen_a\tlen_b\tm1_sim\tm1_contain\tm2_sim\tm2_contain\n")
        for pid, name, drawn, a, b in rows:
            f.write("\t".join([pid, name, drawn, "<100" if short(a, b) else "100+", str(len(a)), str(len(b)),
                               *scores(a, b)]) + "\n")

    print("\n".join(table(["corpus", "lines", ">600", "texts", "m1>=0.3", "m2>=0.3", "either",
                           "contain>=0.5,m2<0.5", "time"], stats)))
    names = list(dict.fromkeys(r[1] for r in rows))
    src = lambda d: d.split()[0]
    print()
    out = []
    for name in names:
        rs = [r for r in rows if r[1] == name]
        for s in ("m1", "m2", "contain", "edit"):
            n = [sum(src(r[2]) == s and short(r[3], r[4]) == k for r in rs) for k in (True, False)]
            out.append([name, s, str(n[0]), str(n[1]), str(sum(n))])
        n = [sum(short(r[3], r[4]) == k for r in rs) for k in (True, False)]
        out.append([name, "all", str(n[0]), str(n[1]), f"{sum(n)} ({100 * n[0] / sum(n):.0f}% <100)"])
    print("\n".join(table(["corpus", "drawn", "<100", "100+", "pairs"], out)))
    print()
    labels = [f"{m} {lo:.1f}-{hi:.1f}" for m in ("m1", "m2") for lo, hi in BANDS] + \
             [f"contain {lo:.1f}-{hi:.1f}" for lo, hi in CONTAIN_BANDS]
    out = []
    for label in labels:
        cells = []
        for name in names:
            rs = [r for r in rows if r[1] == name and r[2] == label]
            cells.append(f"{sum(short(r[3], r[4]) for r in rs)}+{sum(not short(r[3], r[4]) for r in rs)}")
        out.append([label, *cells])
    print("\n".join(table(["drawn (<100+100+)", *names], out)))
    print("\nEvery pair of the sample (drawn any way) by its similarity band under each measure:")
    out = []
    sims = {r[0]: scores(r[3], r[4]) for r in rows}
    for col, m in ((0, "m1"), (2, "m2")):
        for lo, hi in [(0.0, 0.3), *BANDS]:
            cells = [str(sum(r[1] == name and band_of(float(sims[r[0]][col]), [(lo, hi)]) is not None for r in rows))
                     for name in names]
            out.append([f"{m} {lo:.1f}-{hi:.1f}", *cells])
    print("\n".join(table(["band", *names], out)))
    print(f"\n{len(rows)} pairs -> {args.out.relative_to(ROOT) if args.out.is_relative_to(ROOT) else args.out}; "
          f"scores -> {args.scores}; {time.time() - start:.0f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main())
