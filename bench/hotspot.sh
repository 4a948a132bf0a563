#!/usr/bin/env bash
# bench/hotspot.sh - `sitsenergy hotspot` on HotSpot's ev6/gcc example, beside HotSpot run on
# the same cases in the same run (HOTSPOT_BIN or HOTSPOT_SRC below; HotSpot is not a Debian
# package), else beside its recorded timings (shared/data/hotspot_ev6/PROVENANCE.txt:
# hyperfine medians on a 2-core machine, HotSpot commit f18831e, gcc -O3).
#
#   bench/hotspot.sh          ev6 block and grid cases, then the grid-size scaling
#   bench/hotspot.sh quick    block cases and the 64x64 steady only
#   bench/hotspot.sh --build-dir DIR [quick]   time DIR's sitsenergy as built (also
#                             SITS_BUILD_DIR=DIR); without it a Release build in build-bench
#
#   HOTSPOT_BIN=PATH bench/hotspot.sh   also time that HotSpot build on the same cases, on
#                             this machine (a build with `make SUPERLU=1` uses SuperLU for the
#                             grid steady state and backward Euler for its transient: ~2.5
#                             min here); without it HotSpot's recorded figures are shown
#   HOTSPOT_SRC=DIR bench/hotspot.sh    build HotSpot from its source folder first (a copy in
#                             bench/out/hotspot; `make SUPERLU=1` when Debian's libsuperlu-dev
#                             is installed, else HotSpot's default build) and time it as above
#
# Whole-process wall times (start-up, reading, solving, writing), medians with sub-ms
# resolution (python's clock). FFT plans are measured once before the timed runs (FFTW
# wisdom in bench/out/hotspot unless SITS_FFTW_WISDOM says otherwise). Scaling: the ev6
# floorplan on R x R grids, steady (median of 3) and the first 5 transient intervals.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
out=$here/out/hotspot
mkdir -p "$out"
source "$here/build_dir.sh"
set -- "${bench_args[@]}"
if [[ -n ${HOTSPOT_SRC:-} && -z ${HOTSPOT_BIN:-} ]]; then
  [[ -f $HOTSPOT_SRC/Makefile && -f $HOTSPOT_SRC/hotspot.c ]] ||
    { echo "bench/hotspot.sh: HOTSPOT_SRC=$HOTSPOT_SRC: not HotSpot's source folder" >&2; exit 2; }
  rm -rf "$out/hotspot-build" && cp -r "$HOTSPOT_SRC" "$out/hotspot-build"
  superlu=0
  [[ -f /usr/include/superlu/slu_ddefs.h ]] && superlu=1
  make -C "$out/hotspot-build" SUPERLU=$superlu hotspot > "$out/hotspot-build.log" 2>&1 ||
    { echo "bench/hotspot.sh: building HotSpot failed (see $out/hotspot-build.log)" >&2; exit 1; }
  HOTSPOT_BIN=$out/hotspot-build/hotspot
  echo "HotSpot built from $HOTSPOT_SRC (SUPERLU=$superlu)"
fi
if [[ -n ${HOTSPOT_BIN:-} && ! ( -f $HOTSPOT_BIN && -x $HOTSPOT_BIN ) ]]; then
  echo "bench/hotspot.sh: HOTSPOT_BIN=$HOTSPOT_BIN: not an executable file" >&2
  exit 2
fi
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

row() { printf '%-40s %8s s   HotSpot %-36s %s\n' "$1" "$2" "$3" "$4"; }

ratio() { awk -v h="$1" -v t="$2" 'BEGIN{printf "%.0fx faster", h/t}'; }

# HotSpot's time for a case: measured here with HOTSPOT_BIN ($1 runs of the arguments after
# the recorded seconds $2), else the recorded figure; sets hs (seconds) and hs_what
hotspot_time() {
  local n=$1 recorded=$2
  shift 2
  if [[ -n ${HOTSPOT_BIN:-} ]]; then
    (cd "$out" && precise "$n" "$HOTSPOT_BIN" "$@") > "$out/hs.txt"
    hs=$(cat "$out/hs.txt") hs_what="$hs s (measured here)"
  else
    hs=$recorded hs_what="$recorded s (recorded)"
  fi
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')"
# FFT plans: measured once and kept (FFTW wisdom, docs/hotspot.md); the untimed first runs
# below measure every grid size's plans, so the timed runs read them, as a user's second run
export SITS_FFTW_WISDOM=${SITS_FFTW_WISDOM:-$out/fftw-wisdom}
echo "FFTW wisdom: $SITS_FFTW_WISDOM"
"$bin" hotspot "${grd[@]}" -steady_file "$out/g.steady" > /dev/null 2>&1
echo "startup (sitsenergy --version): $(precise 30 "$bin" --version) s"
t=$(precise 30 "$bin" hotspot "${blk[@]}" -steady_file "$out/b.steady")
hotspot_time 30 0.0079 "${blk[@]}" -steady_file "$out/hb.steady"
row "ev6 block steady" "$t" "$hs_what" "$(ratio "$hs" "$t")"
t=$(precise 30 "$bin" hotspot "${blk[@]}" -init_file "$ref/outputs_block/gcc.steady" -o "$out/b.ttrace")
hotspot_time 5 2.6 "${blk[@]}" -init_file "$ref/outputs_block/gcc.steady" -o "$out/hb.ttrace"
row "ev6 block transient, 1 s (100 x 10 ms)" "$t" "$hs_what, RK4" "$(ratio "$hs" "$t")"
t=$(precise 21 "$bin" hotspot "${grd[@]}" -steady_file "$out/g.steady")
m=$(median 3 "$bin" hotspot "${grd[@]}" -steady_file "$out/g.steady")
hotspot_time 5 0.69 "${grd[@]}" -steady_file "$out/hg.steady"
row "ev6 grid 64x64 steady" "$t" "$hs_what, SuperLU" "$(ratio "$hs" "$t") (goal 20x); rss $((${m#* } / 1024)) MB"
m=$(median 5 "$bin" hotspot "${grd[@]}" -steady_file "$out/g.steady" --cholmod)
row "  same, --cholmod" "${m% *}" "" "rss $((${m#* } / 1024)) MB"
[[ ${1:-all} == quick ]] && exit 0
t=$(precise 5 "$bin" hotspot "${grd[@]}" -init_file "$ref/outputs_grid64/gcc.init" -o "$out/g.ttrace")
/usr/bin/time -f "%e %M" -o "$out/t.txt" "$bin" hotspot "${grd[@]}" -init_file "$ref/outputs_grid64/gcc.init" \
  -o "$out/g.ttrace" --stats 2> "$out/stats.txt"
read -r wall rss < "$out/t.txt"
hotspot_time 1 69 "${grd[@]}" -init_file "$ref/outputs_grid64/gcc.init" -o "$out/hg.ttrace"
row "ev6 grid 64x64 transient, 1 s" "$t" "$hs_what, SuperLU BE" "$(ratio "$hs" "$t") (goal 150x); rss $((rss / 1024)) MB; $(tail -1 "$out/stats.txt" | sed 's/.*transient //')"
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
  "$bin" hotspot "${grd[@]}" -grid_rows "$r" -grid_cols "$r" -steady_file "$out/s$r.steady" > /dev/null 2>&1
  s=$(median 3 "$bin" hotspot "${grd[@]}" -grid_rows "$r" -grid_cols "$r" -steady_file "$out/s$r.steady")
  /usr/bin/time -f "%e %M" -o "$out/t.txt" "$bin" hotspot -c "$in/example2.config" -f "$in/ev6.flp" \
    -p "$out/gcc5.ptrace" -materials_file "$in/example.materials" -model_type grid -grid_rows "$r" \
    -grid_cols "$r" -o "$out/s$r.ttrace" --stats 2> "$out/stats.txt"
  read -r tw trss < "$out/t.txt"
  printf '%4dx%-4d cells %6d  steady %8s s (rss %4d MB)   transient 5 x 10 ms %8s s (rss %4d MB)  %s\n' \
    "$r" "$r" $((r * r)) "${s% *}" $((${s#* } / 1024)) "$tw" $((trss / 1024)) \
    "$(tail -1 "$out/stats.txt" | sed 's/.*transient //')"
done
