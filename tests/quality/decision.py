"""The dedup decision (the latest: 7.0's decision 3, balanced) for `make quality`: labels.py, similarity.py and apart.py.

The decision takes a candidate pair in two steps, as 6.0's did: the gate, 5.2.0's dedup trigger on measure 2
(`simhash_similarity(a, b) >= 0.5`, or a containment either way >= 0.8), then the decision,
which aligns the two texts and says whether a reader would call them the same passage
(`quality_decision`, crates/simhash-core/examples/quality_decision.rs, at its default
parameters: stdin `[a, b]` a line, stdout a JSON object a line with "dup" and "reason"). A
pair is a duplicate under the decision when it passes both ("decision"); under 5.2.0 when it passes
the gate ("m2 dedup").

Helpers only, no report of their own:
  run_tool(binary, args, lines)   one of the quality examples over JSON lines
  gate(m)                         5.2.0's trigger on (similarity, a_in_b, b_in_a)
  Decider(binary)                 the decision of each pair, run once per distinct pair
"""
from __future__ import annotations

import json
import subprocess

THETA, GAMMA = 0.5, 0.8                     # the gate: README's defaults


def run_tool(binary: str, args: list[str], lines: list) -> list[str]:
    """`binary ARGS` with each of `lines` as a JSON line on stdin: its stdout lines."""
    data = "".join(json.dumps(x, ensure_ascii=False) + "\n" for x in lines)
    return subprocess.run([binary, *args], input=data, capture_output=True, text=True, check=True).stdout.splitlines()


def gate(m: tuple[float, float, float]) -> bool:
    """5.2.0's dedup trigger ("m2 dedup") on measure 2's (similarity, a_in_b, b_in_a)."""
    return m[0] >= THETA or max(m[1], m[2]) >= GAMMA


class Decider:
    """quality_decision at its defaults, each distinct pair decided once."""

    def __init__(self, binary: str):
        self.binary = binary
        self.verdicts: dict[tuple[str, str], dict] = {}

    def decide(self, pairs: list[tuple[str, str]]) -> None:
        new = list(dict.fromkeys(p for p in pairs if p not in self.verdicts))
        for p, line in zip(new, run_tool(self.binary, [], [list(p) for p in new]), strict=True):
            self.verdicts[p] = json.loads(line)

    def dup(self, a: str, b: str) -> bool:
        return self.verdicts[a, b]["dup"]

    def reason(self, a: str, b: str) -> str:
        return self.verdicts[a, b]["reason"]
