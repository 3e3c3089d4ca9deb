"""Tables of the quality report: `make quality` (quality.py, segments.py, labels.py, apart.py)."""
from __future__ import annotations


def table(header: list[str], rows: list[list[str]], right: set[int]) -> list[str]:
    """A Markdown table, aligned for a terminal."""
    widths = [max(len(r[c]) for r in [header, *rows]) for c in range(len(header))]

    def line(cells):
        return "| " + " | ".join(c.rjust(w) if i in right else c.ljust(w)
                                 for i, (c, w) in enumerate(zip(cells, widths))) + " |"
    rule = "|" + "|".join("-" * (w + 1) + (":" if i in right else "-") for i, w in enumerate(widths)) + "|"
    return [line(header), rule, *map(line, rows)]


def ratio(k: int, n: int, counts_too: bool = True) -> str:
    """A share as a cell: "0.750 3/4" (or "0.750"); "- 0/0" when there is nothing to share."""
    if not n:
        return "- 0/0" if counts_too else "-"
    return f"{k / n:.3f} {k}/{n}" if counts_too else f"{k / n:.3f}"
