"""The `imports` gate of `make test`: no import cycle among a crate's modules.

    python3 tests/harness/import_cycles.py DIR...   (each DIR a crate's src/)

An edge is a `crate::`/`super::` path in a module's code (comments and its `mod tests` left
out), to the deepest module the path names. Prints each crate's module and edge counts, the
imports between concepts (top-level modules), and every cycle; exits 1 if there is one.
"""
import collections
import os
import re
import sys


def modules(root):
    out = {}
    for d, _, fs in os.walk(root):
        for f in fs:
            if f.endswith(".rs"):
                path = os.path.relpath(os.path.join(d, f), root)[:-3].split(os.sep)
                if path[-1] in ("mod", "lib"):
                    path = path[:-1]
                out[tuple(path)] = os.path.join(d, f)
    return out


def edges(mods):
    out = collections.defaultdict(set)
    for m, f in mods.items():
        code = open(f, encoding="utf-8").read().split("#[cfg(test)]\nmod tests")[0]
        code = "\n".join(line for line in code.split("\n") if not line.strip().startswith("//"))
        for base, rest in re.findall(r"\b(crate|super)((?:::\w+)+)", code):
            parts = rest.strip(":").split("::")
            here = () if base == "crate" else m[:-1]
            while parts and parts[0] == "super":
                here, parts = here[:-1], parts[1:]
            target = here
            for p in parts:
                if target + (p,) not in mods:
                    break
                target += (p,)
            if target and target != m and m[: len(target)] != target:
                out[m].add(target)
    return out


def cycles(graph, nodes):
    state, found = {}, []

    def visit(u, stack):
        state[u] = 1
        stack.append(u)
        for v in sorted(graph[u]):
            if state.get(v) == 1:
                found.append(stack[stack.index(v):] + [v])
            elif v not in state:
                visit(v, stack)
        stack.pop()
        state[u] = 2

    for n in sorted(nodes):
        if n not in state:
            visit(n, [])
    return found


bad = 0
for root in sys.argv[1:]:
    mods = modules(root)
    graph = edges(mods)
    found = cycles(graph, mods)
    concepts = collections.defaultdict(set)
    for u, vs in graph.items():
        if u:
            concepts[u[0]].update(v[0] for v in vs if v[0] != u[0])
    print(f"{root}: {len(mods)} modules, {sum(map(len, graph.values()))} imports, {len(found)} cycles;",
          "concepts import", {k: sorted(v) for k, v in sorted(concepts.items()) if v})
    for c in found:
        print("  cycle:", " -> ".join("::".join(x) for x in c))
    bad += len(found)
sys.exit(1 if bad else 0)
