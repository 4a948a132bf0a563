#!/usr/bin/env python3
"""check_layers.py BUILD_DIR [SOURCE_DIR] - the library's layering, from the object files.

Every function or object a file uses and another file defines is an edge between the two
files (read with `nm` from the compiled objects, so it sees exactly what links). The check
fails when
  - a file uses a file of a higher layer (LAYERS, lowest first: a back-edge), or
  - the files of one folder use each other in a circle (a.c uses b.c, which uses a.c, directly
    or through others), or
  - a source file includes a header of a higher layer: a folder's headers belong to it; a
    public header (include/sitsenergy/) belongs to the lowest layer that defines one of the
    functions it declares (core when it declares none), or
  - a file includes another folder's private header (*_impl.h; a folder's *_internal.h
    headers are what it offers the layers above), or
  - inside a folder, a file includes the header of a file that uses it (x.c's x_impl.h or
    x_internal.h: an include running back up the folder's own file graph), or
  - a public header declares functions that two layers define, or a sits_*.h header lives
    outside include/sitsenergy/, or the program (cli/) includes anything but the public
    headers and its own.
It prints the folders' file graphs' sizes and every violation, and exits 1 on any.
"""
import os
import re
import subprocess
import sys

LAYERS = ["core", "models", "solvers", "config", "hotspot", "sim", "traces", "outputs", "sweeps",
          "calibration", "runtime"]


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


def header_layers(source, owner):
    """Which layer each header of the source tree belongs to, and the public headers whose
    functions two layers define."""
    where, split = {}, []
    for layer in LAYERS:
        d = os.path.join(source, layer)
        if os.path.isdir(d):
            for f in os.listdir(d):
                if f.endswith(".h"):
                    where[f] = layer
    pub = os.path.join(source, "include", "sitsenergy")
    api = re.compile(r"SITS_API\b[^;{]*?\b(sits_\w+)\s*\(", re.S)
    for f in sorted(os.listdir(pub)):
        if not f.endswith(".h"):
            continue
        with open(os.path.join(pub, f)) as fh:
            names = api.findall(fh.read())
        layers = sorted({owner[n][0] for n in names if n in owner}, key=LAYERS.index)
        where[f] = layers[0] if layers else "core"
        if len(layers) > 1:
            split.append((f, layers))
    return where, split


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
    where, split = header_layers(source, owner)
    for f, layers in split:
        print("split header: include/sitsenergy/%s declares functions of %s" % (f, ", ".join(layers)))
        bad += 1
    # the files each file uses, directly or through others, inside its folder
    reach = {}

    def uses(node):
        if node not in reach:
            reach[node] = set()
            for w in edges.get(node, ()):
                reach[node] |= {w} | uses(w)
        return reach[node]

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
                    if not m or m.group(1) not in where:
                        continue
                    h, hl = m.group(1), where[m.group(1)]
                    at = "%s/%s:%d" % (layer, f, lineno)
                    if LAYERS.index(hl) > LAYERS.index(layer):
                        print("back-include: %s includes %s/%s" % (at, hl, h))
                        bad += 1
                    elif h.endswith("_impl.h") and hl != layer:
                        print("private include: %s includes %s/%s" % (at, hl, h))
                        bad += 1
                    elif hl == layer and f.endswith(".c") and h.endswith(("_impl.h", "_internal.h")):
                        stem = h[: -len("_impl.h")] if h.endswith("_impl.h") else h[: -len("_internal.h")]
                        me, it = (layer, f[:-2]), (layer, stem)
                        if it != me and me in uses(it):
                            print("include back up: %s includes %s, whose %s.c uses %s" % (at, h, stem, f))
                            bad += 1
    pub = set(os.listdir(os.path.join(source, "include", "sitsenergy")))
    for layer in LAYERS:
        d = os.path.join(source, layer)
        for f in sorted(os.listdir(d)) if os.path.isdir(d) else ():
            if f.startswith("sits") and f.endswith(".h"):
                print("public header outside include/sitsenergy/: %s/%s" % (layer, f))
                bad += 1
    cli = os.path.join(source, "cli")
    own = {f for f in os.listdir(cli) if f.endswith(".h")}
    for f in sorted(os.listdir(cli)):
        if f.endswith((".c", ".h")):
            with open(os.path.join(cli, f)) as fh:
                for lineno, line in enumerate(fh, 1):
                    m = inc.match(line)
                    if m and m.group(1) not in pub and m.group(1) not in own:
                        print("cli/%s:%d includes %s, not a public header" % (f, lineno, m.group(1)))
                        bad += 1
    n_edges = sum(len(v) for v in edges.values())
    print("layers: %d files, %d same-folder edges, %d violations" % (len(files), n_edges, bad))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
