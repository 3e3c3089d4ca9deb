"""Dedup decisions on the independent sets (tests/quality/apart/: built apart from the
project's corpora, labels and decision code; its README.md describes them). The last part of
`make quality` (run.sh), after labels.py.

Builds the sets (`python3 tests/quality/apart/build.py OUT/apart.tsv`: rows `set group kind
text`; rows of one group are the same item, rows of different groups different items) and
forms the pairs:

  products  each item (base or variant) against each of its reposts (same group: must be
            called the same), per repost kind (punctuation, case, prefix, fullwidth); each base
            against each of its variants (different groups: must not), per variant kind (model,
            colour, size, gender, capacity). A variant's group is its base's with "-vN" after it.
  figures   each repost against its original (must be called the same), per family (invoice,
            quotes, stats, changelog); up to RANDOM random pairs of different rows of each
            family (its originals; seeded: random.Random("apart:FAMILY")), which must not.

For each kind: the share called duplicates by "m2 dedup" (5.2.0's decision, the gate: measure 2's
similarity >= 0.5 or a containment either way >= 0.8, `quality_similarity pairs m=2`) and by
"decision" (the latest, 7.0's balanced: the gate AND `quality_decision`'s "dup" at its defaults; decision.py).

Targets, for each detector (reported PASS/FAIL, not failing the run): variants called duplicates
<= 5% per kind; reposts caught >= 95% per kind; no random pair of a figure family called a
duplicate. A few of the decision's misses per failing kind follow the table.

Writes DIR/apart.tsv (the sets) and DIR/apart.txt (--out), prints the latter. Deterministic.

  python3 apart.py --tool quality_similarity --decision quality_decision --out DIR
"""
from __future__ import annotations

import argparse
import itertools
import random
import subprocess
import sys
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path

from decision import Decider, gate, run_tool
from tables import ratio, table

HERE = Path(__file__).resolve().parent
BUILD = HERE / "apart" / "build.py"
RANDOM = 3000                                     # random pairs per figure family, at most
MAX_VARIANTS = 0.05                               # variants called duplicates, at most
MIN_REPOSTS = 0.95                                # reposts caught, at least
EXAMPLES = 2                                      # the decision's misses shown per failing kind
DETECTORS = ("m2 dedup", "decision")


@dataclass
class Kind:
    """One kind of pair: its pairs and whether they must be called duplicates."""
    set: str
    name: str
    same: bool
    pairs: list[tuple[str, str]]


def read_rows(path: Path) -> list[tuple[str, str, str, str]]:
    rows = [tuple(l.split("\t")) for l in path.read_text(encoding="utf-8").splitlines() if l]
    assert all(len(r) == 4 for r in rows), next(r for r in rows if len(r) != 4)
    return rows


def kinds_of(rows: list[tuple[str, str, str, str]]) -> list[Kind]:
    """The pairs of module docs, grouped by kind, in the order of the rows."""
    items: dict[str, str] = {}                    # products: group -> its base or variant text
    reposts: dict[str, list[tuple[str, str]]] = defaultdict(list)     # group -> (kind, text)
    variant_kind: dict[str, str] = {}
    originals: dict[str, list[tuple[str, str]]] = defaultdict(list)   # figures: family -> (group, text)
    fig_reposts: list[tuple[str, str]] = []       # (group, text)
    for s, group, kind, text in rows:
        if s == "products" and kind.startswith("repost:"):
            reposts[group].append((kind.removeprefix("repost:"), text))
        elif s == "products":
            items[group] = text
            if kind.startswith("variant:"):
                variant_kind[group] = kind.removeprefix("variant:")
        elif kind == "repost":
            fig_reposts.append((group, text))
        else:
            originals[kind].append((group, text))
    out: dict[tuple[str, str, bool], list] = defaultdict(list)
    for group, text in items.items():
        for kind, r in reposts[group]:
            out["products", f"repost: {kind}", True].append((text, r))
    for group, kind in variant_kind.items():
        out["products", f"variant: {kind}", False].append((items[group.rsplit("-v", 1)[0]], items[group]))
    original = {g: (fam, t) for fam, gts in originals.items() for g, t in gts}
    for group, r in fig_reposts:
        fam, text = original[group]
        out["figures", f"repost: {fam}", True].append((text, r))
    for fam, gts in originals.items():
        every = list(itertools.combinations(range(len(gts)), 2))
        picks = sorted(random.Random(f"apart:{fam}").sample(every, min(RANDOM, len(every))))
        out["figures", f"random: {fam}", False] = [(gts[i][1], gts[j][1]) for i, j in picks]
    return [Kind(s, name, same, ps) for (s, name, same), ps in out.items()]


def report(kinds: list[Kind], measures: dict, decider: Decider) -> list[str]:
    def called(name: str, p: tuple[str, str]) -> bool:
        return gate(measures[p]) and (name == "m2 dedup" or decider.dup(*p))

    rows, misses, failed = [], [], defaultdict(int)
    for k in kinds:
        goal = f">= {MIN_REPOSTS:.0%}" if k.same else (f"<= {MAX_VARIANTS:.0%}" if k.set == "products" else "none")
        cells = []
        for name in DETECTORS:
            n = sum(called(name, p) for p in k.pairs)
            x = n / len(k.pairs)
            ok = x >= MIN_REPOSTS if k.same else (x <= MAX_VARIANTS if k.set == "products" else n == 0)
            failed[name] += not ok
            cells.append(f"{ratio(n, len(k.pairs))} {'PASS' if ok else 'FAIL'}")
            if name == "decision" and not ok:
                wrong = [p for p in k.pairs if called(name, p) != k.same][:EXAMPLES]
                misses += [f"  {k.set} {k.name}: {decider.reason(*p) if gate(measures[p]) else 'gate not passed'}: "
                           f"{p[0]!r} / {p[1]!r}" for p in wrong]
        rows.append([k.set, k.name, "same" if k.same else "different", f"{len(k.pairs):,}", goal, *cells])
    out = ["Independent sets (tests/quality/apart/): the share of each kind of pair called duplicates by m2 dedup",
           "(5.2.0, the gate) and by the decision (7.0's balanced: the gate AND quality_decision's dup). Targets: reposts caught",
           f">= {MIN_REPOSTS:.0%} per kind, variants called duplicates <= {MAX_VARIANTS:.0%} per kind, none of a "
           "figure family's random pairs (reported, not failing the run)", ""]
    out += table(["set", "kind", "must be", "pairs", "target", *(f"{d}: called duplicates" for d in DETECTORS)],
                 rows, {3})
    out += ["", *(f"{d} targets: {'PASS' if not failed[d] else 'FAIL'} ({failed[d]} of {len(kinds)} kinds failed)"
                  for d in DETECTORS)]
    if misses:
        out += ["", f"The decision's misses (up to {EXAMPLES} per failing kind: its reason, the pair):", *misses]
    return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--tool", required=True, help="quality_similarity")
    ap.add_argument("--decision", required=True, help="quality_decision")
    ap.add_argument("--out", required=True)
    a = ap.parse_args()
    out = Path(a.out)
    out.mkdir(parents=True, exist_ok=True)
    subprocess.run([sys.executable, str(BUILD), str(out / "apart.tsv")], check=True, capture_output=True)
    kinds = kinds_of(read_rows(out / "apart.tsv"))
    pairs = list(dict.fromkeys(p for k in kinds for p in k.pairs))
    measures = {p: tuple(float(x) for x in line.split())
                for p, line in zip(pairs, run_tool(a.tool, ["pairs", "m=2"], [list(p) for p in pairs]), strict=True)}
    decider = Decider(a.decision)
    decider.decide([p for p in pairs if gate(measures[p])])
    text = "\n".join(report(kinds, measures, decider)) + "\n"
    (out / "apart.txt").write_text(text, encoding="utf-8")
    print(text)
    return 0


if __name__ == "__main__":
    sys.exit(main())
