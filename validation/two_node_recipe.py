#!/usr/bin/env python3
"""two_node_recipe.py [--only CASE,...] SITSENERGY [R_DIE_BOARD R_BOARD_AMB C_DIE C_BOARD] - the outside checks'
recipe on every trace the validation cases hold (and, marked *, the traces of
cases/unfitted.txt, which no case is fitted to): a new user's two-node network (die and board,
die -> board -> ambient, the values given or 1 K/W, 2 K/W, 5 J/K, 100 J/K), the case's own
power columns and sensors all on the die, then `calibrate --fit auto --train-fraction 0.6`.
Prints per trace the worst sensor's training and held-out RMSE, the held-out band's coverage
and mean half-width, and the seconds it took. Scenarios and outputs go to a temporary folder (TWO_NODE_KEEP=DIR: to DIR,
with each calibration's JSON report).
"""
import json
import os
import re
import subprocess
import sys
import tempfile
import time

here = os.path.dirname(os.path.abspath(__file__))


def scenario(case, guess):
    text = re.sub(r"#.*", "", open(os.path.join(here, "cases", case + ".cfg")).read())
    replay = re.search(r"replay\s*=\s*\{(.*?)\n\};", text, re.S).group(1)
    replay = re.sub(r'node\s*=\s*"[^"]*"', 'node = "die"', replay)
    amb = re.search(r"ambient_c\s*=\s*([0-9.]+)", text)
    r1, r2, c1, c2 = guess
    return """platform = { name = "two_node";
  thermal = {
    nodes = ( { name = "die"; c_j_per_k = %s; junction = true; },
              { name = "board"; c_j_per_k = %s; } );
    links = ( { a = "die"; b = "board"; r_k_per_w = %s; },
              { a = "board"; b = "ambient"; r_k_per_w = %s; } );
  };
};
replay = {%s
};
ambient_c = %s;
""" % (c1, c2, r1, r2, replay, amb.group(1) if amb else "25.0")


def main():
    args = sys.argv[1:]
    only = None
    if "--only" in args:
        k = args.index("--only")
        only = set(args[k + 1].split(","))
        del args[k:k + 2]
    keep = os.environ.get("TWO_NODE_KEEP")
    exe = args[0]
    guess = args[1:5] if len(args) >= 5 else ["1", "2", "5", "100"]
    if keep:
        run_all(exe, guess, only, keep, True)
    else:  # the scenarios and outputs go away with the folder
        with tempfile.TemporaryDirectory(prefix="two_node_") as work:
            run_all(exe, guess, only, work, False)


def run_all(exe, guess, only, work, keep):
    seen = set()
    print("%-30s %8s %8s %9s %9s %6s" % ("trace (case)", "train_K", "held_K", "coverage",
                                          "half_K", "s"))
    runs = []  # (name, case whose replay group it takes, trace)
    for line in open(os.path.join(here, "cases", "cases.txt")):
        if line.strip() and not line.startswith("#"):
            case, trace = line.split()[:2]
            runs.append((case, case, trace))
    for line in open(os.path.join(here, "cases", "unfitted.txt")):
        if line.strip() and not line.startswith("#"):
            trace, like = line.split()[:2]
            runs.append((trace[:-4] + " *", like, trace))
    for case, like, trace in runs:
        if trace in seen or (only and case.rstrip(" *") not in only):
            continue
        seen.add(trace)
        cfg = os.path.join(work, case.rstrip(" *") + ".cfg")
        open(cfg, "w").write(scenario(like, guess))
        t0 = time.time()
        run = subprocess.run([exe, "calibrate", cfg, "--trace", os.path.join(here, "data", trace),
                              "--fit", "auto", "--train-fraction", "0.6", "-o",
                              os.path.join(work, case.rstrip(" *") + ".out.cfg")],
                             capture_output=True, text=True)
        dt = time.time() - t0
        if run.returncode:
            print("%-30s failed: %s" % (case, run.stderr.strip()[-200:]))
            continue
        if keep:
            open(os.path.join(work, case.rstrip(" *") + ".json"), "w").write(run.stdout)
        j = json.loads(run.stdout)
        worst = lambda part: max(v["rmse_c"] for v in j[part].values())
        band = list(j.get("band", {}).values())
        cov = min(b["holdout_coverage"] for b in band) if band else float("nan")
        hw = max(b["holdout_mean_half_width_c"] for b in band) if band else float("nan")
        st = " ".join("%s%.3f" % ("*" if x["chosen"] else "", x["validation_rmse_c"] or -1)
                      for x in j.get("structure", []))
        print("%-30s %8.3f %8.3f %9.2f %9.2f %6.0f %s" % (case, worst("train"), worst("holdout"),
                                                         cov, hw, dt, st), flush=True)


if __name__ == "__main__":
    main()
