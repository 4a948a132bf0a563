#!/usr/bin/env python3
"""function_lengths.py [MIN] [DIR ...] - the library's and the program's functions longer than
MIN lines (default 40), longest first, from the sources: a function is a top-level line that
opens with a name and a parameter list and ends with '{', to the '}' in column 0 that closes
it. Prints `lines file:line name` and a count over 40 and over 80."""
import os
import re
import sys

DIRS = ["core", "models", "solvers", "config", "hotspot", "sim", "traces", "outputs", "sweeps",
        "calibration", "runtime", "cli"]
head = re.compile(r"^(?:static\s+|inline\s+)*[A-Za-z_][\w\s\*]*?\b(\w+)\s*\(")


def functions(path):
    lines = open(path, errors="replace").read().split("\n")
    i = 0
    while i < len(lines):
        m = head.match(lines[i])
        if m and not lines[i].startswith((" ", "\t", "#", "/", "}")) and not lines[i].rstrip().endswith(";"):
            j = i
            while j < len(lines) and not lines[j].rstrip().endswith("{") and not lines[j].rstrip().endswith(";"):
                j += 1
            if j < len(lines) and lines[j].rstrip().endswith("{"):
                k = j + 1
                while k < len(lines) and lines[k] != "}":
                    k += 1
                yield m.group(1), i + 1, k - i + 1
                i = k
        i += 1


def main():
    lim = int(sys.argv[1]) if len(sys.argv) > 1 else 40
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    dirs = sys.argv[2:] or [os.path.join(root, d) for d in DIRS]
    found = []
    for d in dirs:
        for f in sorted(os.listdir(d)):
            if f.endswith(".c"):
                p = os.path.join(d, f)
                for name, line, n in functions(p):
                    found.append((n, os.path.relpath(p, root), line, name))
    found.sort(reverse=True)
    for n, p, line, name in found:
        if n > lim:
            print("%4d %s:%d %s" % (n, p, line, name))
    print("functions: %d; over 40 lines: %d; over 80 lines: %d"
          % (len(found), sum(1 for f in found if f[0] > 40), sum(1 for f in found if f[0] > 80)))


if __name__ == "__main__":
    main()
