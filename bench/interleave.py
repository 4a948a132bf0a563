"""bench/interleave.py - whole `sitsenergy run` processes timed side by side (bench/run.sh).

interleave(base, runs, reps) runs each variant's extra arguments after the common ones,
round-robin (so that a busy moment of the machine falls on every variant alike), timed by
perf_counter; it returns the wall times per variant and each variant's last JSON summary.
against(s, ref) is a summary's largest peak difference (K) and relative energy difference
from a reference summary's; rows(wall, summ, ref) gives, per variant, its median wall time,
its summary and those two differences from variant ref's.
"""
import json
import subprocess
import time


def interleave(base, runs, reps):
    wall, summ = {k: [] for k in runs}, {}
    for i in range(max(reps.values())):
        for k, extra in runs.items():
            if i >= reps[k]:
                continue
            t = time.perf_counter()
            r = subprocess.run(base + extra, capture_output=True, text=True, check=True)
            wall[k].append(time.perf_counter() - t)
            summ[k] = json.loads(r.stdout)
    return wall, summ


def against(s, ref):
    dt = max(abs(a - b) for a, b in zip(s["peak_temp_c"].values(), ref["peak_temp_c"].values()))
    de = abs(s["energy_j"] - ref["energy_j"]) / ref["energy_j"]
    return dt, de


def rows(wall, summ, ref):
    import statistics
    for k in wall:
        yield (k, statistics.median(wall[k]), summ[k]) + against(summ[k], summ[ref])
