#!/usr/bin/env bash
# scripts/snapshot_outputs.sh - runs every shipped scenario through every command that reads
# it and keeps what each printed and wrote, so that a refactoring can be checked to change
# no output byte:
#
#   scripts/snapshot_outputs.sh OLD_BUILD/cli/sitsenergy /tmp/before
#   scripts/snapshot_outputs.sh build/cli/sitsenergy /tmp/after
#   diff -r /tmp/before /tmp/after && echo identical
#
# Per scenario: run (text and JSON summary, CSV, HDF5 dumped by h5dump without the
# version attribute), steady, dvfs-table in every format for every domain, and the exit
# code of each. Scenarios meant for replay/calibrate are also run through those commands
# with their shipped traces. Long runs are shortened with --set so the whole snapshot takes
# about a minute; the shortening is the same on both sides.
set -uo pipefail

bin=${1:?usage: snapshot_outputs.sh SITSENERGY OUT_DIR}
out=${2:?usage: snapshot_outputs.sh SITSENERGY OUT_DIR}
root=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
mkdir -p "$out"
bin=$(cd "$(dirname "$bin")" && pwd)/$(basename "$bin")

# Runs one command, keeping stdout, stderr (with the build-specific paths removed) and the
# exit code under $out/$1.
keep() {
  local name=$1
  shift
  "$@" > "$out/$name.out" 2> "$out/$name.err"
  echo $? > "$out/$name.rc"
  sed -i -e "s#$out#OUT#g" -e "s#$root#ROOT#g" "$out/$name.err" "$out/$name.out"
}

# The HDF5 file as text, less the attribute that names the build (and the build's version
# wherever else a provenance attribute quotes it).
h5text() {
  if [ -f "$1" ]; then
    h5dump "$1" | sed -e '/ATTRIBUTE "sitsenergy_version"/,/^ *}/d' -e "s#$out#OUT#g" \
      -e 's/"[0-9.]* (git [0-9a-f]*\(-dirty\)\{0,1\})"/"VERSION"/' > "$2"
    rm -f "$1"
  fi
}

cd "$root" || exit 1
for cfg in configs/examples/*.cfg configs/scenarios/*.cfg; do
  name=$(basename "$cfg" .cfg)
  case $name in
    *calibrate | orin_nano_replay) short=() ;;
    *) short=(--set duration_s=120 --set sample_period_s=0.5) ;;
  esac
  keep "$name.run_text" "$bin" run "$cfg" "${short[@]}" --quiet
  keep "$name.run_json" "$bin" run "$cfg" "${short[@]}" --quiet --summary json \
    --csv "$out/$name.csv" -o "$out/$name.h5"
  h5text "$out/$name.h5" "$out/$name.h5.txt"
  keep "$name.steady" "$bin" steady "$cfg" "${short[@]}"
  for fmt in csv json dts header nvpmodel; do
    keep "$name.dvfs.$fmt" "$bin" dvfs-table "$cfg" --format "$fmt"
  done
done

# Replay and calibrate on the shipped board trace and cell tests.
keep orin_nano.replay "$bin" replay configs/scenarios/orin_nano_replay.cfg \
  --trace validation/data/orin_nano_jp6_tegrastats.raw --summary json
keep orin_nano.calibrate "$bin" calibrate validation/cases/orin_nano_jp6.cfg \
  --trace validation/data/orin_nano_jp6_tegrastats.raw --fit thermal,ambient \
  -o "$out/orin_nano.calibrated.cfg"
for c in validation/cases/*.cfg; do
  n=$(basename "$c" .cfg)
  keep "case.$n.steady" "$bin" steady "$c"
done

# Battery fitting on the A123 dynamic test.
keep a123.calibrate "$bin" calibrate configs/scenarios/a123_cell_calibrate.cfg \
  --trace validation/data/a123_dyn_25degC_s1.csv --fit battery -o "$out/a123.calibrated.cfg"

# The HotSpot drop-in on the ev6 floorplan of the tests.
hs=tests/data/hotspot_ev6/inputs
keep hotspot.block "$bin" hotspot -c "$hs/example.config" -f "$hs/ev6.flp" -p "$hs/gcc.ptrace" \
  -o "$out/hotspot.block.ttrace" -steady_file "$out/hotspot.block.steady"
keep hotspot.grid "$bin" hotspot -c "$hs/example.config" -f "$hs/ev6.flp" -p "$hs/gcc.ptrace" \
  -model_type grid -grid_rows 32 -grid_cols 32 -steady_file "$out/hotspot.grid.steady"
echo "snapshot in $out: $(ls "$out" | wc -l) files" >&2
