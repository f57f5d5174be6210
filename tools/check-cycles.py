#!/usr/bin/env python3
"""No module calls back into a module that calls it: the call graph between the program's
object files (build/core/*/*.o, build/ui/*.o, build/main.o), read from their symbols with
nm, must have no cycle.  Prints each cycle (a strongly connected set of modules) and exits
1 when there is one.  --only PREFIX: report only cycles with a module under PREFIX (ui/).
Run after `make`; objects whose source is gone are ignored."""
import glob
import os
import subprocess
import sys


def modules(build):
    objs = glob.glob(f"{build}/core/*/*.o") + glob.glob(f"{build}/ui/*.o") + [f"{build}/main.o"]
    for o in sorted(objs):
        name = o[len(build) + 1:-2].replace("core/", "", 1)
        if os.path.exists(f"src/{name}.c"):
            yield name, o


def graph(build):
    defined, used = {}, {}
    for name, obj in modules(build):
        out = subprocess.run(["nm", obj], capture_output=True, text=True, check=True).stdout
        used[name] = set()
        for line in out.splitlines():
            f = line.split()
            if len(f) == 3 and f[1] in "TDRB":
                defined[f[2]] = name
            elif len(f) == 2 and f[0] == "U":
                used[name].add(f[1])
    return {m: {defined[s] for s in syms if s in defined and defined[s] != m}
            for m, syms in used.items()}


def cycles(g):
    """Strongly connected sets of more than one module (Tarjan, iterative)."""
    index, low, on, stack, found, n = {}, {}, set(), [], [], 0
    for root in g:
        if root in index:
            continue
        work = [(root, iter(sorted(g[root])))]
        index[root] = low[root] = n; n += 1
        stack.append(root); on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = n; n += 1
                    stack.append(w); on.add(w)
                    work.append((w, iter(sorted(g.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop(); on.discard(w); comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    found.append(sorted(comp))
    return found


def main():
    only = sys.argv[sys.argv.index("--only") + 1] if "--only" in sys.argv else ""
    bad = [c for c in cycles(graph("build")) if any(m.startswith(only) for m in c)]
    for c in bad:
        print("cycle:", " <-> ".join(c))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
