#!/usr/bin/env bash
# check_hotspot_traces.sh CLI CONFIGS WORK - HotSpot traces both ways on the ev6 floorplan:
#  1. `run --ptrace` writes the simulated block powers; `hotspot` (our drop-in, HotSpot's
#     network and file formats) runs that .ptrace; its .ttrace matches the run's own block
#     temperatures at the interval ends within 0.1 K (the .ttrace's %.2f rounding is 0.005 K;
#     the rest is leakage moving within an interval, which a .ptrace row holds constant);
#  2. every .ptrace row sums to the run's total power (all of ev6's power enters blocks);
#  3. a grid floorplan's rows sum to the total power too; a platform without a floorplan is
#     refused and leaves no file;
#  4. `replay` reads the .ttrace with its .ptrace beside it (no replay group: the columns name
#     the blocks) and reports every block.
set -euo pipefail
cli=$1 configs=$2 work=$3
fail() { echo "check_hotspot_traces: $*" >&2; exit 1; }
rm -rf "$work" && mkdir -p "$work" && cd "$work"
sc=$configs/scenarios/ev6_floorplan_throttle.cfg
"$cli" run "$sc" --set duration_s=2 --set sample_period_s=0.01 --ptrace ev6.ptrace \
  --csv ev6.csv --quiet > /dev/null
"$cli" hotspot -f "$configs/platforms/floorplans/ev6.flp" -p ev6.ptrace \
  -c "$configs/platforms/floorplans/example.config" -sampling_intvl 0.01 -ambient 328.15 \
  -init_temp 328.15 -o ev6.ttrace
python3 - <<'PY' || fail "the traces disagree"
import csv
rows = list(csv.reader(open("ev6.csv")))
hdr, data = rows[0], [list(map(float, r)) for r in rows[1:]]
pt = [l.split() for l in open("ev6.ptrace")]
tt = [l.split() for l in open("ev6.ttrace")]
assert pt[0] == tt[0] and len(pt[0]) == 30, "block names"
assert len(pt) - 1 == len(data), f"{len(pt) - 1} ptrace rows for {len(data)} samples"
tot = hdr.index("power_w.total")
for k, r in enumerate(pt[1:]):
    s = sum(map(float, r))
    assert abs(s - data[k][tot]) <= 1e-6 * max(1, data[k][tot]), f"row {k}: {s} W vs {data[k][tot]} W"
worst = 0.0
for k, r in enumerate(tt[1:]):
    if k + 1 >= len(data):
        break
    for j, name in enumerate(tt[0]):
        c = hdr.index("temp_c." + name)
        worst = max(worst, abs(data[k + 1][c] - (float(r[j]) - 273.15)))
assert worst < 0.1, f"worst {worst} K"
print(f"check_hotspot_traces: hotspot on our .ptrace within {worst:.3f} K of the run")
PY
"$cli" replay "$sc" --trace ev6.ttrace --interval-ms 10 --summary json > replay.json
python3 - <<'PY' || fail "replay of the .ttrace"
import json
r = json.load(open("replay.json"))
assert len(r["sensors"]) == 30, len(r["sensors"])
worst = max(s["rmse_c"] for s in r["sensors"].values())
assert worst < 2.0, worst
print(f"check_hotspot_traces: replay read the .ttrace/.ptrace pair, 30 blocks, worst rmse {worst:.2f} K")
PY
# a grid floorplan: block powers from the domains' and static power's shares of each block
"$cli" run "$sc" --set duration_s=0.3 --set 'platform.thermal.hotspot.model="grid"' \
  --set platform.thermal.hotspot.rows=16 --set platform.thermal.hotspot.cols=16 \
  --ptrace grid.ptrace --csv grid.csv --quiet > /dev/null
python3 - <<'PY' || fail "grid .ptrace"
import csv
rows = list(csv.reader(open("grid.csv")))
hdr, data = rows[0], [list(map(float, r)) for r in rows[1:]]
pt = [l.split() for l in open("grid.ptrace")]
tot = hdr.index("power_w.total")
assert len(pt[0]) == 30 and len(pt) - 1 == len(data)
worst = max(abs(sum(map(float, r)) - data[k][tot]) / data[k][tot] for k, r in enumerate(pt[1:]))
assert worst < 1e-6, worst
PY
if "$cli" run "$configs/scenarios/hotspot_3node_step.cfg" --ptrace x.ptrace > err.txt 2>&1; then
  fail "--ptrace on a platform without a floorplan ran"
fi
grep -q "needs a floorplan platform" err.txt || fail "$(cat err.txt)"
[[ ! -e x.ptrace ]] || fail "a refused --ptrace left a file"
if "$cli" replay "$sc" --trace ev6.ttrace > err.txt 2>&1; then fail "a .ttrace without --interval-ms ran"; fi
grep -q "no time column" err.txt || fail "$(cat err.txt)"
echo "check_hotspot_traces: ok"
