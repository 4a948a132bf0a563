#!/usr/bin/env bash
# bench/run.sh - benchmark figures: wall time, peak memory, solver steps and evaluations.
#
#   bench/run.sh            the cases: chain10_1h, grid64_10m, video_enc_8h
#   bench/run.sh video      only video_enc_8h (8-hour video_enc on the Orin NX, 50 ms governor)
#   bench/run.sh threshold  dense vs KLU on growing grids (picks SITS_KLU_THRESHOLD_DEFAULT)
#   bench/run.sh quick      chain10 for 6 minutes and grid64 for 10 s (a fast look)
#   bench/run.sh sweep      10,000 ten-minute Orin NX video_enc combinations on -j 2, ambient
#                           x module-to-heatsink resistance 1.0-1.6 K/W
#   bench/run.sh montecarlo 100,000 sampled ten-minute rows on -j 2 (ambient, interface
#                           resistance) with P(violation) and its 95 % interval
#   bench/run.sh paths      the fast-path table: each case on CVODE (before) and on
#                           solver.method "auto" (after), and the exact-discretisation limit
#                           (as many N x N mat-vecs as the run took steps; bench/limit.c)
#   bench/run.sh ev6        the ev6 block network (134 states) on CVODE, forced "exponential"
#                           and "auto", throttling (55 C, 20 s) and not (25 C, 60 s); and the
#                           synthetic 8 x 8-block floorplan (268 states) throttling (gen.sh tiles 8)
#   bench/run.sh battery    battery fits on the shipped 0.1-s Panasonic logs, as recorded and
#                           on 1-s block averages (--average-s 1): wall time, peak memory,
#                           samples fitted, train and held-out RMSE
#   bench/run.sh trips      the trip scan (calibrate --fit ...,trips) against the plain fit on
#                           the shipped Orin Nano log with a one-trip fan on the heatsink's
#                           path: wall time, peak memory, starts, evaluations
#
#   bench/run.sh --build-dir DIR [CASE]   times DIR/cli/sitsenergy as built (also
#                           SITS_BUILD_DIR=DIR); without it a Release build in build-bench
#
# Writes generated inputs to bench/out.
# Timings on shared machines are noisy: compare ratios from one run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$here/out
source "$here/build_dir.sh"
set -- "${bench_args[@]}"

measure() { # $1 label, $2 scenario, rest: extra args
  local label=$1 cfg=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" run "$cfg" --quiet --summary json "$@" \
    > "$out/summary.json"
  read -r wall rss < "$out/time.txt"
  python3 - "$label" "$wall" "$rss" "$out/summary.json" <<'PY'
import json, sys
label, wall, rss, path = sys.argv[1], float(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
d = json.load(open(path)); s = d["solver"]
print(f"{label:<22} wall {wall:8.2f} s  rss {rss/1024:6.1f} MB  sim/wall {d['simulated_s']/max(wall,1e-3):9.1f}  "
      f"steps {s['steps']:>9}  rhs {s['rhs_evals']:>9}  jac {s['jac_evals']:>7}  "
      f"setups {s['lin_setups']:>8}  reinits {s['reinits']:>7}  {s['linear_solver']}")
PY
}

# one row of the paths table: label, scenario, extra run arguments
path_row() {
  local label=$1 cfg=$2
  shift 2
  local row=()
  for m in cvode auto; do
    /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" run "$cfg" --quiet --summary json \
      --set "solver.method=\"$m\"" "$@" > "$out/summary_$m.json"
    row+=("$(cat "$out/time.txt")")
  done
  python3 - "$label" "${row[0]}" "${row[1]}" "$out/summary_cvode.json" "$out/summary_auto.json" \
    "$limit" <<'PY'
import json, subprocess, sys
label, before, after, pa, pb, limit = sys.argv[1:7]
a, b = json.load(open(pa)), json.load(open(pb))
wa, wb = float(before.split()[0]), float(after.split()[0])
ny = len(b["peak_temp_c"]) + 2  # nodes + the two energy states (a battery's not counted)
steps = b["solver"]["steps"]
lim = float(subprocess.run([limit, str(ny), str(steps)], capture_output=True, text=True).stdout)
sim = b["simulated_s"]
print(f"| {label} | {b['solver']['method']} | {wa:.2f} s ({sim/max(wa,1e-3):,.0f}x) | "
      f"{wb:.2f} s ({sim/max(wb,1e-3):,.0f}x) | {wa/max(wb,1e-3):.1f}x | "
      f"{a['solver']['steps']:,} / {steps:,} | {lim:.3f} s ({ny} states) |")
PY
}

# one fit's row: kind (battery or thermal), label, calibrate arguments (without -o); the
# wall time and peak memory from /usr/bin/time, the rest from the Calibrate JSON
fit_row() {
  local kind=$1 label=$2
  shift 2
  /usr/bin/time -f "%e %M" -o "$out/time.txt" "$bin" calibrate "$@" -o "$out/fit.cfg" \
    > "$out/fit.json" 2> "$out/fit.err"
  read -r wall rss < "$out/time.txt"
  python3 - "$kind" "$label" "$wall" "$rss" "$out/fit.json" <<'PY'
import json, sys
kind, label, wall, rss, path = sys.argv[1:3] + [float(sys.argv[3]), int(sys.argv[4]), sys.argv[5]]
d = json.load(open(path))
head = f"| {label} | {wall:.2f} s | {rss/1024:.1f} MB | "
if kind == "battery":
    n = d["train"]["voltage_v"]["n"] + d["holdout"]["voltage_v"]["n"]
    print(head + f"{n:,} of {d.get('recorded_samples', n):,} | "
          f"{1e3*d['train']['voltage_v']['rmse_v']:.2f} mV | {1e3*d['holdout']['voltage_v']['rmse_v']:.2f} mV | "
          f"{'yes' if d['converged'] else 'no'} |")
else:
    tr = max(v["rmse_c"] for v in d["train"].values())
    ho = max(v["rmse_c"] for v in d["holdout"].values())
    print(head + f"{d['starts']} | {d['evaluations']:,} | {tr:.3f} K | {ho:.3f} K | "
          f"{d.get('trip_offset_c', '-')} |")
PY
}

if [[ ${1:-all} == trips ]]; then
  mkdir -p "$out"
  v=$root/validation
  fan='platform.fans=({name="fan";a="heatsink";b="ambient";sensor="die";duty=[0.0,1.0];'
  fan+='r_k_per_w=[3.4,2.0];trips=({temp_c=55.0;hysteresis_c=5.0;duty=1.0;});})'
  base=("$v/cases/orin_nano_jp6.cfg" --trace "$v/data/orin_nano_jp6_tegrastats.raw"
    --train-fraction 0.6 --set "$fan")
  echo "| fit | wall | peak RSS | starts | evaluations | train | held out | trip offset |"
  echo "|---|---|---|---|---|---|---|---|"
  fit_row thermal "thermal,ambient,initial (trip as given)" "${base[@]}" --fit thermal,ambient,initial
  fit_row thermal "thermal,ambient,initial,trips" "${base[@]}" --fit thermal,ambient,initial,trips
  exit 0
fi

if [[ ${1:-all} == battery ]]; then
  mkdir -p "$out"
  v=$root/validation
  us06=("$v/cases/pan18650pf_us06.cfg" --trace "$v/data/pan18650pf_us06_25degC.csv"
    --fit battery,lag --train-fraction 0.6 --ocv-test "$v/data/pan18650pf_c20_25degC.csv")
  rows=("$v/cases/pan18650pf_us06.cfg" --trace "$v/data/pan18650pf_nn_m10degC.csv"
    --trace "$v/data/pan18650pf_nn_m20degC.csv" --temp-col temp_c --fit battery,rows
    --train-fraction 0.6)
  echo "| fit | wall | peak RSS | samples fitted | train | held out | converged |"
  echo "|---|---|---|---|---|---|---|"
  fit_row battery "US06 25 C, battery,lag, 60 %" "${us06[@]}"
  fit_row battery "the same, --average-s 1" "${us06[@]}" --average-s 1
  fit_row battery "NN -10 and -20 C, battery,rows, 60 %" "${rows[@]}"
  fit_row battery "the same, --average-s 1" "${rows[@]}" --average-s 1
  exit 0
fi

OUT=$out "$here/gen.sh" all
case ${1:-all} in
  sweep)
    # links.[1]: module to heatsink (the interface material); links.[2], the heatsink's path
    # to the air, is the fan's link, which the fan curve sets
    /usr/bin/time -f "sweep 10,000 x 600 s video_enc, -j 2: %e s wall, %M KB peak (per job)" \
      "$bin" sweep "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=600 \
      --vary ambient_c=20:45:100 --vary "platform.thermal.links.[1].r_k_per_w=1.0:1.6:100" -j 2 -o "$out/sweep10k.csv"
    echo "rows: $(($(wc -l < "$out/sweep10k.csv") - 1))"
    ;;
  montecarlo)
    # 100,000 ten-minute rows: the ambient uniform over 25-70 C, the interface resistance
    # normal around the platform's 1.315 K/W (10 %), Latin hypercube; P(Tj over 85 C) with
    # its 95 % interval from --summary
    /usr/bin/time -f "sample 100,000 x 600 s video_enc, -j 2: %e s wall, %M KB peak (per job)" \
      "$bin" sweep "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=600 \
      --dist "ambient_c=uniform(25,70)" --dist "platform.thermal.links.[1].r_k_per_w=normal(1.315,0.1315)" \
      --sample 100000 -j 2 --summary text -o "$out/sample100k.csv" | grep -iE "violat|max_junction_temp_c"
    echo "rows: $(($(wc -l < "$out/sample100k.csv") - 1))"
    ;;
  paths)
    mkdir -p "$out"
    limit=$out/limit
    cc -O2 -o "$limit" "$here/limit.c"
    echo "| case | after: method | before: CVODE | after: auto | ratio | steps before / after | limit: N x N mat-vecs |"
    echo "|---|---|---|---|---|---|---|"
    path_row chain10_1h "$out/chain10_1h.cfg"
    path_row video_enc_8h "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=28800
    path_row "ev6 block, 20 s" "$root/configs/scenarios/ev6_floorplan_throttle.cfg" --set duration_s=20
    path_row "ev6 grid 32x32, 20 s" "$root/configs/scenarios/ev6_floorplan_throttle.cfg" \
      --set duration_s=20 --set 'platform.thermal.hotspot.model="grid"' \
      --set platform.thermal.hotspot.rows=32 --set platform.thermal.hotspot.cols=32
    path_row "ev6 grid 32x32, 100 phases" "$out/ev6_phases.cfg" \
      --set 'platform.thermal.hotspot.model="grid"' \
      --set platform.thermal.hotspot.rows=32 --set platform.thermal.hotspot.cols=32
    for m in cvode auto; do
      /usr/bin/time -f "calibrate orin_nano_jp6 --fit thermal,ambient, $m: %e s" "$bin" calibrate \
        "$root/validation/cases/orin_nano_jp6.cfg" --trace "$root/validation/data/orin_nano_jp6_tegrastats.raw" \
        --fit thermal,ambient --set "solver.method=\"$m\"" -o "$out/calibrated_$m.cfg" > /dev/null 2>"$out/cal.txt" || true
      tail -1 "$out/cal.txt"
    done
    ;;
  all)
    measure chain10_1h "$out/chain10_1h.cfg"
    measure grid64_10m "$out/grid64_10m.cfg"
    measure video_enc_8h "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=28800
    ;;
  video)
    measure video_enc_8h "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=28800
    # whole processes, interleaved, timed by perf_counter (ms resolution, medians): the default,
    # every tick evaluated, with the HDF5 written, CVODE; the figures against CVODE's
    python3 - "$bin" "$root/configs/scenarios/orin_nx_video_enc.cfg" "$out" "$here" <<'PY'
import statistics, subprocess, sys, time
exe, cfg, out = sys.argv[1:4]
sys.path.insert(0, sys.argv[4])
from interleave import interleave, rows
base = [exe, "run", cfg, "--set", "duration_s=28800", "--quiet", "--summary", "json"]
runs = {"auto (default)": [], "auto, -o out.h5": ["-o", out + "/video8h.h5"],
        "auto, skip_quiet_ticks=false": ["--set", "solver.skip_quiet_ticks=false"],
        "cvode": ["--set", 'solver.method="cvode"']}
reps = {k: (3 if k == "cvode" or "false" in k else 15) for k in runs}
wall, summ = interleave(base, runs, reps)
t = time.perf_counter()
subprocess.run([exe, "--version"], capture_output=True)
start = time.perf_counter() - t
for k, w, s, dt, de in rows(wall, summ, "cvode"):
    print(f"video_enc_8h {k:<30} median {1e3*w:7.1f} ms (min {1e3*min(wall[k]):6.1f}, {len(wall[k])} runs)"
          f"  {28800/w:>11,.0f}x real time  steps {s['solver']['steps']:>7,}  ticks evaluated "
          f"{s['solver'].get('governor_ticks', 0):>7,}  peak vs cvode {dt:.1e} K  energy {de:.1e}")
print(f"process start-up (--version) {1e3*start:.1f} ms")
PY
    ;;
  ev6)
    # the ev6 block network (134 states, above "auto"'s exponential bound) throttling at a
    # 55 C ambient (20 s) and warming without throttling (25 C, 60 s), a synthetic 8 x 8-block
    # floorplan throttling, and the ev6 grid model at 12 x 12 cells with its trip lowered to
    # 66 C (an OPP change every tick for 0.7 s): CVODE, forced "exponential" and "auto",
    # interleaved, medians of 3 (the grid case's of 9)
    OUT=$out "$here/gen.sh" tiles 8
    python3 - "$bin" "$root/configs/scenarios/ev6_floorplan_throttle.cfg" "$here" "$out/tiles8.cfg" <<'PY'
import statistics, sys
exe, cfg = sys.argv[1:3]
sys.path.insert(0, sys.argv[3])
from interleave import interleave, rows
for label, sets, c in (("ev6 block throttling, 55 C, 20 s", ["ambient_c=55", "duration_s=20"], cfg),
                       ("ev6 block no throttling, 25 C, 60 s", ["ambient_c=25", "duration_s=60"], cfg),
                       ("8x8 tiles, 268 states, throttling, 20 s", ["duration_s=20"], sys.argv[4]),
                       ("ev6 grid 12x12, 588 states, trip 66 C, 20 s",
                        ["duration_s=20", "platform.governor.thermal.trip_c=66",
                         'platform.thermal.hotspot.model="grid"', "platform.thermal.hotspot.rows=12",
                         "platform.thermal.hotspot.cols=12"], cfg)):
    base = [exe, "run", c, "--quiet", "--summary", "json"] + [a for v in sets for a in ("--set", v)]
    runs = {m: ["--set", f'solver.method="{m}"'] for m in ("cvode", "exponential", "auto")}
    # the grid case's runs are ~0.1 s, where this machine's noise is ~10 %: medians of 9
    wall, summ = interleave(base, runs, {k: 9 if "grid" in label else 3 for k in runs})
    for k, w, s, dt, de in rows(wall, summ, "cvode"):
        print(f"{label:<40} {k:<12} median {w:6.3f} s  {statistics.median(wall['cvode'])/w:5.1f}x cvode  "
              f"steps {s['solver']['steps']:>7,}  phi/lin setups {s['solver']['lin_setups']:>6,}  "
              f"{s['solver']['method']:<12} peak vs cvode {dt:.1e} K  energy {de:.1e}")
PY
    ;;
  quick)
    measure chain10_6min "$out/chain10_1h.cfg" --set duration_s=360
    measure grid64_10s "$out/grid64_10m.cfg" --set duration_s=10
    ;;
  threshold)
    sizes=(2 3 4 5 6 8 10 12)
    OUT=$out "$here/gen.sh" grids "${sizes[@]}"
    for n in "${sizes[@]}"; do
      for ls in dense klu; do
        measure "grid${n}x${n} $ls" "$out/grid${n}_1m.cfg" --set "solver.linear_solver=\"$ls\""
      done
    done
    measure "chain10 6min dense" "$out/chain10_1h.cfg" --set duration_s=360 --set 'solver.linear_solver="dense"'
    measure "chain10 6min klu" "$out/chain10_1h.cfg" --set duration_s=360 --set 'solver.linear_solver="klu"'
    ;;
esac
