#!/usr/bin/env python3
"""check_layers.py BUILD_DIR [SOURCE_DIR] - the library's layering, from the object files.

Every function or object a file uses and another file defines is an edge between the two
files (read with `nm` from the compiled objects, so it sees exactly what links). The check
fails when
  - a file uses a file of a higher layer (core <- models <- solvers <- config <- hotspot <- sim
    <- runtime: a back-edge), or
  - the files of one folder use each other in a circle (a.c uses b.c, which uses a.c, directly
    or through others), or
  - a source file includes a header of a higher layer.
It prints the folders' file graphs' sizes and every violation, and exits 1 on any.
"""
import os
import re
import subprocess
import sys

LAYERS = ["core", "models", "solvers", "config", "hotspot", "sim", "runtime"]


def objects(build, source):
    for layer in LAYERS:
        d = os.path.join(build, layer, "CMakeFiles", "sits_%s.dir" % layer)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            # an object whose source is gone (a moved file's stale build) is not the library's
            if f.endswith(".c.o") and os.path.exists(os.path.join(source, layer, f[:-2])):
                yield layer, f[:-2], os.path.join(d, f)


def symbols(path):
    out = subprocess.run(["nm", path], capture_output=True, text=True, check=True).stdout
    defined, used = set(), set()
    for line in out.splitlines():
        parts = line.split()
        if len(parts) == 2 and parts[0] == "U":
            used.add(parts[1])
        elif len(parts) == 3 and parts[1] in "TDBRC":
            defined.add(parts[2])
    return defined, used


def cycles(nodes, edges):
    """Strongly connected components with more than one file (Tarjan)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]

    def visit(v):
        index[v] = low[v] = counter[0]
        counter[0] += 1
        stack.append(v)
        on.add(v)
        for w in edges.get(v, ()):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    sys.setrecursionlimit(10000)
    for v in nodes:
        if v not in index:
            visit(v)
    return out


def header_layers(source):
    """Which layer each header of the source tree belongs to."""
    where = {}
    for layer in LAYERS:
        d = os.path.join(source, layer)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".h"):
                    where[f] = layer
    return where


def main():
    build = sys.argv[1]
    source = sys.argv[2] if len(sys.argv) > 2 else os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    files, owner = [], {}
    for layer, name, path in objects(build, source):
        d, u = symbols(path)
        files.append((layer, name, d, u))
        for s in d:
            owner[s] = (layer, name)
    bad = 0
    edges = {}
    for layer, name, _, used in files:
        for s in used:
            if s not in owner:
                continue
            ol, on = owner[s]
            if LAYERS.index(ol) > LAYERS.index(layer):
                print("back-edge: %s/%s uses %s from %s/%s" % (layer, name, s, ol, on))
                bad += 1
            if ol == layer and on != name:
                edges.setdefault((layer, name), set()).add((ol, on))
    for comp in cycles([(l, n) for l, n, _, _ in files], edges):
        print("circle in %s/: %s" % (comp[0][0], " <-> ".join(n for _, n in comp)))
        bad += 1
    where = header_layers(source)
    inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
    for layer in LAYERS:
        d = os.path.join(source, layer)
        if not os.path.isdir(d):
            continue
        for f in sorted(os.listdir(d)):
            if not f.endswith((".c", ".h")):
                continue
            with open(os.path.join(d, f)) as fh:
                for lineno, line in enumerate(fh, 1):
                    m = inc.match(line)
                    if m and m.group(1) in where and LAYERS.index(where[m.group(1)]) > LAYERS.index(layer):
                        print("back-include: %s/%s:%d includes %s/%s" % (layer, f, lineno, where[m.group(1)], m.group(1)))
                        bad += 1
    n_edges = sum(len(v) for v in edges.values())
    print("layers: %d files, %d same-folder edges, %d violations" % (len(files), n_edges, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
