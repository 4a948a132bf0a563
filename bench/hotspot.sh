#!/usr/bin/env bash
# bench/hotspot.sh - `sitsenergy hotspot` on HotSpot's ev6/gcc example, beside HotSpot's own
# timings (shared/data/hotspot_ev6/PROVENANCE.txt: hyperfine medians on a 2-core machine,
# HotSpot commit f18831e, gcc -O3; HotSpot itself is not installed here).
#
#   bench/hotspot.sh          ev6 block and grid cases, then the grid-size scaling
#   bench/hotspot.sh quick    block cases and the 64x64 steady only
#   bench/hotspot.sh --build-dir DIR [quick]   time DIR's sitsenergy as built (also
#                             SITS_BUILD_DIR=DIR); without it a Release build in build-bench
#
# Whole-process wall times (start-up, reading, solving, writing), median of N runs for the
# short cases. The grid transients are one run each. Scaling: the
# ev6 floorplan on R x R grids, steady (median of 3) and the first 5 transient intervals.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$here/out/hotspot
mkdir -p "$out"
source "$here/build_dir.sh"
set -- "${bench_args[@]}"
in=$root/tests/data/hotspot_ev6/inputs
ref=$root/tests/data/hotspot_ev6
blk=(-c "$in/example.config" -f "$in/ev6.flp" -p "$in/gcc.ptrace")
grd=(-c "$in/example2.config" -f "$in/ev6.flp" -p "$in/gcc.ptrace" -materials_file "$in/example.materials" -model_type grid)

median() { # $1 runs, rest: command; prints the median wall time in seconds and the peak RSS
  local n=$1
  shift
  for ((k = 0; k < n; k++)); do
    /usr/bin/time -f "%e %M" -o "$out/t.txt" "$@" > /dev/null 2> "$out/err.txt"
    cat "$out/t.txt"
  done | sort -n | awk -v n="$n" '{w[NR]=$1; m[NR]=$2} END {printf "%.4f %d", w[int((n+1)/2)], m[int((n+1)/2)]}'
}

precise() { # $1 runs, rest: command; median with sub-millisecond resolution (python clock)
  python3 - "$@" <<'PY'
import subprocess, sys, time
n, cmd = int(sys.argv[1]), sys.argv[2:]
ts = []
for _ in range(n):
    t = time.perf_counter(); subprocess.run(cmd, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    ts.append(time.perf_counter() - t)
ts.sort(); print(f"{ts[len(ts)//2]:.4f}")
PY
}

row() { printf '%-34s %10s s   HotSpot %-28s %s\n' "$1" "$2" "$3" "$4"; }

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
echo "startup (sitsenergy --version): $(precise 30 "$bin" --version) s"
row "ev6 block steady" "$(precise 30 "$bin" hotspot "${blk[@]}" -steady_file "$out/b.steady")" "7.9 ms" ""
t=$(precise 30 "$bin" hotspot "${blk[@]}" -init_file "$ref/outputs_block/gcc.steady" -o "$out/b.ttrace")
row "ev6 block transient, 1 s (100 x 10 ms)" "$t" "2.6 s (RK4)" "$(awk -v t="$t" 'BEGIN{printf "%.0fx faster", 2.6/t}')"
m=$(median 5 "$bin" hotspot "${grd[@]}" -steady_file "$out/g.steady")
row "ev6 grid 64x64 steady" "${m% *}" "0.69 s (SuperLU), 1.01 s (multigrid)" "rss $((${m#* } / 1024)) MB"
m=$(median 5 "$bin" hotspot "${grd[@]}" -steady_file "$out/g.steady" --cholmod)
row "  same, --cholmod" "${m% *}" "" "rss $((${m#* } / 1024)) MB"
[[ ${1:-all} == quick ]] && exit 0
/usr/bin/time -f "%e %M" -o "$out/t.txt" "$bin" hotspot "${grd[@]}" -init_file "$ref/outputs_grid64/gcc.init" \
  -o "$out/g.ttrace" --stats 2> "$out/stats.txt"
read -r wall rss < "$out/t.txt"
row "ev6 grid 64x64 transient, 1 s" "$wall" "69 s (SuperLU BE), 346 s (RK4)" "rss $((rss / 1024)) MB; $(tail -1 "$out/stats.txt" | sed 's/.*transient //')"
/usr/bin/time -f "%e %M" -o "$out/t.txt" "$bin" hotspot "${grd[@]}" -init_file "$ref/outputs_grid64/gcc.init" \
  -o "$out/gc.ttrace" --stats --cholmod 2> "$out/stats.txt"
read -r wall rss < "$out/t.txt"
row "  same, --cholmod" "$wall" "" "rss $((rss / 1024)) MB; $(tail -1 "$out/stats.txt" | sed 's/.*transient //')"
head -6 "$in/gcc.ptrace" > "$out/gcc5.ptrace"
/usr/bin/time -f "%e %M" -o "$out/t.txt" "$bin" hotspot -c "$in/example2.config" -f "$in/ev6.flp" \
  -p "$out/gcc5.ptrace" -materials_file "$in/example.materials" -model_type grid \
  -init_file "$ref/outputs_grid64/gcc.init" -o "$out/g5.ttrace" --cvode --stats 2> "$out/stats.txt"
read -r wall rss < "$out/t.txt"
row "  same, first 5 intervals, --cvode" "$wall" "" "$(tail -1 "$out/stats.txt" | sed 's/.*transient //')"
echo
echo "scaling: ev6 on R x R grids (steady: median of 3 whole runs; transient: 5 intervals, one run)"
for r in 16 32 64 128 256; do
  s=$(median 3 "$bin" hotspot "${grd[@]}" -grid_rows "$r" -grid_cols "$r" -steady_file "$out/s$r.steady")
  /usr/bin/time -f "%e %M" -o "$out/t.txt" "$bin" hotspot -c "$in/example2.config" -f "$in/ev6.flp" \
    -p "$out/gcc5.ptrace" -materials_file "$in/example.materials" -model_type grid -grid_rows "$r" \
    -grid_cols "$r" -o "$out/s$r.ttrace" --stats 2> "$out/stats.txt"
  read -r tw trss < "$out/t.txt"
  printf '%4dx%-4d cells %6d  steady %8s s (rss %4d MB)   transient 5 x 10 ms %8s s (rss %4d MB)  %s\n' \
    "$r" "$r" $((r * r)) "${s% *}" $((${s#* } / 1024)) "$tw" $((trss / 1024)) \
    "$(tail -1 "$out/stats.txt" | sed 's/.*transient //')"
done
