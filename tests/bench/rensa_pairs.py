"""Bulk pairs at similarity THETA with rensa (tests/bench/similarity_pairs.sh), end to end:
reads "id<TAB>text" lines, shingles each text as measure 2 does (NFKC, lowercase, letters
and digits kept, digits as written, the shortest run of width 5 ending at each character, a
CJK/kana/hangul character counting 2; a text narrower than that is one shingle, the whole;
traditional characters are not folded), R-MinHash of NUM_PERM values, rensa's RMinHashLSH
with BANDS bands, every text queried, and every candidate pair checked exactly: the Jaccard
index of the two shingle sets >= THETA. The figures' agreement of measure 2 is not applied
(rensa's pipeline measures sets; the bench computes measure 2 for its pairs afterwards).

Memory: the texts are held (to re-shingle the candidates); the shingle sets only a chunk at
a time, so 1M texts fit where datasketch's script (every set held) does not.

  python rensa_pairs.py TEXTS OUT [theta=0.5] [num_perm=128] [bands=32] [chunk=20000] [procs=2]

The shingles and sketches are made in `procs` processes (the machine's 2 cores, as the
server's 2 worker threads); rensa's LSH and the check run in the main one.

OUT gets "id1 id2 jaccard" per kept pair (id1 < id2); stdout one line: "candidates kept".
"""
import functools
import multiprocessing
import re
import sys
import unicodedata

from rensa import RMinHash, RMinHashLSH

WIDE = ("\u1100-\u115f\u2e80-\u303e\u3041-\u33ff\u3400-\u4dbf\u4e00-\u9fff\ua960-\ua97f"
        "\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\U0001b000-\U0001b16f\U00020000-\U0003fffd")
has_wide = re.compile(f"[{WIDE}]").search
all_wide = re.compile(f"[{WIDE}]*").fullmatch
is_wide = re.compile(f"[{WIDE}]").match
runs = re.compile(f"[{WIDE}]+|[^{WIDE}]+").finditer
# Python's \w is str.isalnum() or '_': [\W_] is every character that is not a letter or digit.
not_kept = re.compile(r"[\W_]+")


def kept(text: str) -> str:
    return not_kept.sub("", unicodedata.normalize("NFKC", text).lower())


def shingles(k: str) -> list[str]:
    n = len(k)
    if n == 0:
        return []
    # One script's width throughout: fixed-length slices (3 wide characters, 5 narrow).
    w = 3 if all_wide(k) else 5 if not has_wide(k) else 0
    if w:
        return [k] if n < w else [k[j:j + w] for j in range(n - w + 1)]
    # Mixed: inside a run of one width the shingle ending at i is a slice of 3 (wide) or 5
    # (narrow) characters; only the first characters of each run need the widths summed.
    out, first = [], []
    for m in runs(k):
        a, b = m.span()
        w = 3 if is_wide(k[a]) else 5
        out.extend(k[i - w + 1:i + 1] for i in range(a + w - 1, b))
        first.extend(range(a, min(a + w - 1, b)))
    for i in first:
        acc = 0
        for j in range(i, max(-1, i - 5), -1):
            acc += 2 if is_wide(k[j]) else 1
            if acc >= 5:
                out.append(k[j:i + 1])
                break
    return out or [k]


TEXTS: list[str] = []


def sketch(span: tuple[int, int], num_perm: int) -> tuple[list[int], list]:
    """The rows of TEXTS[a:b] that have shingles, and their R-MinHashes."""
    a, b = span
    toks = [shingles(kept(t)) for t in TEXTS[a:b]]
    rows = [a + k for k, t in enumerate(toks) if t]
    return rows, RMinHash.from_token_sets([t for t in toks if t], num_perm=num_perm, seed=42)


def main() -> None:
    path, out_path = sys.argv[1:3]
    opt = dict(a.split("=", 1) for a in sys.argv[3:])
    theta = float(opt.get("theta", 0.5))
    num_perm = int(opt.get("num_perm", 128))
    bands = int(opt.get("bands", 32))
    chunk = int(opt.get("chunk", 20000))
    procs = int(opt.get("procs", 2))
    ids, texts = [], TEXTS
    with open(path, encoding="utf-8") as f:
        for line in f:
            i, text = line.rstrip("\n").split("\t", 1)
            ids.append(int(i))
            texts.append(text)
    # Shingles and sketches in `procs` processes (forked: they read TEXTS), a chunk at a
    # time; texts without shingles are in no pair.
    keys, sketches = [], []
    spans = [(s, min(s + chunk, len(texts))) for s in range(0, len(texts), chunk)]
    with multiprocessing.get_context("fork").Pool(procs) as pool:
        for rows, mh in pool.imap(functools.partial(sketch, num_perm=num_perm), spans):
            keys.extend(rows)
            sketches.extend(mh)
    lsh = RMinHashLSH(threshold=theta, num_perm=num_perm, num_bands=bands)
    lsh.insert_many(sketches, start_key=0)
    found = lsh.query_all(sketches)
    del sketches
    # The exact check, each candidate once (x < y): x's set made once, y's for each pair
    # (holding every candidate's set would not fit at 1M texts).
    def set_of(x: int) -> frozenset:
        return frozenset(shingles(kept(texts[keys[x]])))

    candidates = kept_pairs = 0
    with open(out_path, "w") as out:
        for x, cand in enumerate(found):
            a = None
            for y in cand:
                if y <= x:
                    continue
                candidates += 1
                if a is None:
                    a = set_of(x)
                b = set_of(y)
                common = len(a & b)
                j = common / (len(a) + len(b) - common)
                if j >= theta:
                    kept_pairs += 1
                    i1, i2 = ids[keys[x]], ids[keys[y]]
                    out.write(f"{min(i1, i2)}\t{max(i1, i2)}\t{j!r}\n")
    print(candidates, kept_pairs)


if __name__ == "__main__":
    main()
