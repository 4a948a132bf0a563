#!/usr/bin/env bash
# bench/run.sh - benchmark figures: wall time, peak memory, solver steps and evaluations.
#
#   bench/run.sh            the cases: chain10_1h, grid64_10m, video_enc_8h
#   bench/run.sh video      only video_enc_8h (8-hour video_enc on the Orin NX, 50 ms governor)
#   bench/run.sh threshold  dense vs KLU on growing grids (picks SITS_KLU_THRESHOLD_DEFAULT)
#   bench/run.sh quick      chain10 for 6 minutes and grid64 for 10 s (a fast look)
#
# Builds a Release binary in build-bench, writes generated inputs to bench/out.
# Timings on shared machines are noisy: compare ratios from one run.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$here/out
bin=$root/build-bench/cli/sitsenergy
cmake -S "$root" -B "$root/build-bench" -DCMAKE_BUILD_TYPE=Release -DSITS_BUILD_TESTS=OFF >/dev/null
cmake --build "$root/build-bench" -j "$(nproc)" >/dev/null

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

OUT=$out "$here/gen.sh" all
case ${1:-all} in
  all)
    measure chain10_1h "$out/chain10_1h.cfg"
    measure grid64_10m "$out/grid64_10m.cfg"
    measure video_enc_8h "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=28800
    ;;
  video)
    measure video_enc_8h "$root/configs/scenarios/orin_nx_video_enc.cfg" --set duration_s=28800
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
