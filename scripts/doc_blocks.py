#!/usr/bin/env python3
"""doc_blocks.py SITSENERGY ROOT [--check] - the parts of the docs that a command prints.

Between marker lines (<!-- NAME:begin --> ... <!-- NAME:end -->) it writes, or with --check
compares:
  README.md          demo      `sitsenergy run configs/examples/video_enc.cfg` (the demo's summary)
  README.md          commands  the command list of `sitsenergy --help`
  docs/commands.md   synopsis  every command's usage lines (`sitsenergy CMD --help` up to its
                               first blank line), in the order --help lists them
With --check it also holds the README to 200 lines and the README and docs/ to no notes of
work in progress ("added 20..", "the issue", "come next"). Exit 1 on any difference."""
import re
import subprocess
import sys

cli, root = sys.argv[1], sys.argv[2]
check = "--check" in sys.argv[3:]


def out(*args):
    return subprocess.run([cli, *args], capture_output=True, text=True, cwd=root,
                          check=True).stdout


help_text = out("--help").splitlines()
start = help_text.index("commands:") + 1
end = help_text.index("", start)
commands = help_text[start:end]
names = [c.split()[0] for c in commands]
synopsis = []
for name in names:
    usage = out(name, "--help").splitlines()
    synopsis += usage[:usage.index("")] if "" in usage else usage
    synopsis.append("")
blocks = {
    ("README.md", "demo"): ["```"] + out("run", "configs/examples/video_enc.cfg").splitlines()
    + ["```"],
    ("README.md", "commands"): ["```"] + commands + ["```"],
    ("docs/commands.md", "synopsis"): ["```"] + synopsis[:-1] + ["```"],
}
bad = 0
for (path, name), body in blocks.items():
    text = open(f"{root}/{path}").read().split("\n")
    b, e = text.index(f"<!-- {name}:begin -->"), text.index(f"<!-- {name}:end -->")
    new = text[:b + 1] + body + text[e:]
    if new == text:
        continue
    if check:
        print(f"{path}: the {name} block differs from what sitsenergy prints; run "
              f"scripts/doc_blocks.py {cli} {root}", file=sys.stderr)
        bad = 1
    else:
        open(f"{root}/{path}", "w").write("\n".join(new))
if check:
    import glob
    readme = open(f"{root}/README.md").read()
    if readme.count("\n") > 200:
        print(f"README.md: {readme.count(chr(10))} lines (at most 200)", file=sys.stderr)
        bad = 1
    for path in ["README.md"] + sorted(glob.glob(f"{root}/docs/*.md")):
        p = path if path.startswith("/") else f"{root}/{path}"
        for k, line in enumerate(open(p), 1):
            if re.search(r"added 20\d\d|the issue|come next|this session", line):
                print(f"{p}:{k}: a note of work in progress: {line.strip()}", file=sys.stderr)
                bad = 1
    print(f"doc blocks: {len(blocks)} checked, {len(names)} commands; "
          f"{'1 failed' if bad else '0 failed'}")
sys.exit(bad)
