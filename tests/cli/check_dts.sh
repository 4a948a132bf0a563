#!/usr/bin/env bash
# check_dts.sh CLI WORK - the device-tree overlay of `dvfs-table --format dts` as a board
# integrator takes it: compiled by dtc -@ without a warning, applied by fdtoverlay to a base
# tree that defines the labels it references (and already has a zone whose trip a map
# references by phandle), and the merged thermal-zones checked against the thermal-zones
# binding (Documentation/devicetree/bindings/thermal/thermal-zones.yaml): node names
# ^[a-zA-Z][a-zA-Z0-9\-]{1,12}-thermal$, required thermal-sensors and trips, every trip with
# temperature, hysteresis and a type of active/passive/hot/critical, every cooling map with
# trip and cooling-device whose phandles resolve, cooling-map children named by the binding's
# pattern ^map[-a-zA-Z0-9]*$, a passive (or active) trip in every zone with a cooling map, the
# zones the overlay writes set to status "okay" (a SoC dtsi may leave one disabled), and an
# SPDX line first. dt-validate (dtschema, from the Python
# registry) runs too when it is installed; it is not in Debian 12 and this machine has no
# registry access, so its absence is reported, not failed.
set -euo pipefail
cli=$1 work=$2
root=$(cd "$(dirname "$0")/../.." && pwd)
mkdir -p "$work" && cd "$work"
fail() { echo "check_dts: $*" >&2; exit 1; }
command -v dtc >/dev/null && command -v fdtoverlay >/dev/null && command -v fdtget >/dev/null ||
  fail "dtc, fdtoverlay and fdtget are needed (Debian: device-tree-compiler)"

cat > rk.cfg <<'EOF'
platform = "rk3588";
workload_profile = "vision_fp16";
ambient_c = 25.0;
EOF

# A base tree with every label the overlay references: CPU and device nodes, the sensor
# provider, and an existing zone of the same name whose own trip is referenced by phandle.
base_tree() { # $1: overlay source
  local labels zone
  grep -oP '^\s*\K[A-Za-z_][A-Za-z0-9_]*(?=: )' "$1" | sort -u > defined.txt || true
  labels=$(grep -oE '&[A-Za-z_][A-Za-z0-9_]*' "$1" | sed 's/^&//' | sort -u |
    comm -23 - defined.txt || true)
  zone=$(grep -oP '^\t\t\K[a-z][a-z0-9-]*-thermal(?= \{)' "$1" | head -1)
  base_zone=$zone
  {
    echo '/dts-v1/;'
    echo '/ {'
    for l in $labels; do
      echo "  $l: node-$l { #thermal-sensor-cells = <1>; };"
    done
    echo '  thermal-zones {'
    echo "    $zone {"
    echo "      thermal-sensors = <&$(echo "$labels" | head -1) 0>;"
    echo '      trips { board_trip: board-alert { temperature = <80000>; hysteresis = <0>;'
    echo '              type = "passive"; }; };'
    echo "      cooling-maps { map0 { trip = <&board_trip>; cooling-device = <&$(echo "$labels" | tail -1) 1 2>; }; };"
    echo '    };'
    echo '  };'
    echo '};'
  } > base.dts
}

check_zones() { # $1: merged dtb
  local dtb=$1 n=0
  for z in $(fdtget -l "$dtb" /thermal-zones); do
    n=$((n + 1))
    [[ $z =~ ^[a-zA-Z][a-zA-Z0-9-]{1,12}-thermal$ ]] || fail "zone name '$z' breaks the binding"
    local props
    props=$(fdtget -p "$dtb" "/thermal-zones/$z")
    for p in thermal-sensors polling-delay polling-delay-passive; do
      grep -qx "$p" <<< "$props" || fail "$z has no $p"
    done
    fdtget -l "$dtb" "/thermal-zones/$z" | grep -qx trips || fail "$z has no trips"
    local ntrips=0
    for t in $(fdtget -l "$dtb" "/thermal-zones/$z/trips"); do
      ntrips=$((ntrips + 1))
      for p in temperature hysteresis type; do
        fdtget -p "$dtb" "/thermal-zones/$z/trips/$t" | grep -qx "$p" || fail "$z/$t has no $p"
      done
      case $(fdtget "$dtb" "/thermal-zones/$z/trips/$t" type) in
        active | passive | hot | critical) ;;
        *) fail "$z/$t: bad trip type" ;;
      esac
    done
    ((ntrips > 0)) || fail "$z has an empty trips node"
    if fdtget -l "$dtb" "/thermal-zones/$z" | grep -qx cooling-maps; then
      local acting=0
      for t in $(fdtget -l "$dtb" "/thermal-zones/$z/trips"); do
        case $(fdtget "$dtb" "/thermal-zones/$z/trips/$t" type) in passive | active) acting=1 ;; esac
      done
      ((acting)) || fail "$z has cooling maps but no passive or active trip"
      for m in $(fdtget -l "$dtb" "/thermal-zones/$z/cooling-maps"); do
        [[ $m =~ ^map[-a-zA-Z0-9]*$ ]] || fail "$z: cooling map '$m' breaks the binding's ^map[-a-zA-Z0-9]*$"
        local trip
        trip=$(fdtget "$dtb" "/thermal-zones/$z/cooling-maps/$m" trip) || fail "$z/$m: no trip"
        fdtget "$dtb" "/thermal-zones/$z/cooling-maps/$m" cooling-device >/dev/null ||
          fail "$z/$m: no cooling-device"
        # the trip phandle resolves to a trip node of this zone
        local found=0
        for t in $(fdtget -l "$dtb" "/thermal-zones/$z/trips"); do
          [[ $(fdtget "$dtb" "/thermal-zones/$z/trips/$t" phandle 2>/dev/null) == "$trip" ]] &&
            found=1
        done
        ((found)) || fail "$z/$m: trip phandle $trip resolves to no trip of $z"
      done
    fi
  done
  ((n > 0)) || fail "no thermal zone"
}

run_case() { # $1: name, $2: scenario
  local name=$1 sc=$2
  "$cli" dvfs-table "$sc" --format dts -o "$name.dts"
  head -1 "$name.dts" | grep -q '^// SPDX-License-Identifier: ' || fail "$name: no SPDX line first"
  dtc -@ -I dts -O dtb -o "$name.dtbo" "$name.dts" 2> "$name.dtc.err" ||
    fail "$name: dtc rejected the overlay: $(cat "$name.dtc.err")"
  [[ ! -s $name.dtc.err ]] || fail "$name: dtc warned: $(cat "$name.dtc.err")"
  base_tree "$name.dts"
  dtc -@ -q -I dts -O dtb -o "$name.base.dtb" base.dts
  fdtoverlay -i "$name.base.dtb" -o "$name.merged.dtb" "$name.dtbo" ||
    fail "$name: fdtoverlay could not apply the overlay"
  check_zones "$name.merged.dtb"
  for z in $(grep -oP '^\t\t\K[a-z][a-z0-9-]*-thermal(?= \{)' "$name.dts"); do
    [[ $(fdtget "$name.merged.dtb" "/thermal-zones/$z" status) == okay ]] ||
      fail "$name: $z is not status okay"
  done
  if command -v dt-validate >/dev/null; then
    dt-validate "$name.merged.dtb" || fail "$name: dt-validate"
  fi
  echo "check_dts: $name: compiled, applied, $(fdtget -l "$name.merged.dtb" /thermal-zones | wc -l) zones valid"
}

run_case rk3588 rk.cfg
rk_zone=$base_zone
run_case orin_nx "$root/configs/scenarios/orin_nx_video_enc.cfg"
run_case mlu370 "$root/configs/scenarios/mlu370_resnet50.cfg" # no device_tree: placeholders

# RK3588 specifics after merging: per-CPU coefficient, the second A76 table, the base's own
# trip still referenced by its map (no phandle overwritten).
m=rk3588.merged.dtb
[[ $(fdtget "$m" /node-cpu_l2 dynamic-power-coefficient) == 228 ]] || fail "cpu_l2 coefficient"
[[ $(fdtget "$m" /node-cpu_b3 '#cooling-cells') == 2 ]] || fail "cpu_b3 #cooling-cells"
t1=$(fdtget "$m" /node-cpu_b3 operating-points-v2) || fail "cpu_b3 has no table"
[[ $(fdtget "$m" /opp-table-cpu-big-1 phandle) == "$t1" ]] || fail "cpu_b3 takes table 1"
fdtget -p "$m" /opp-table-cpu-big-1 | grep -qx opp-shared || fail "opp-shared"
# the upstream table's triplets, clock latency and suspend OPP (rk3588-opp.dtsi)
[[ $(fdtget "$m" /opp-table-cpu-little-0/opp-1416000000 opp-microvolt) == "762500 762500 950000" ]] ||
  fail "cpu_little 1416 MHz: not the upstream <target min max>"
[[ $(fdtget "$m" /opp-table-cpu-big-1/opp-2400000000 opp-microvolt) == "1000000 1000000 1000000" ]] ||
  fail "cpu_big 2400 MHz triplet"
[[ $(fdtget "$m" /opp-table-cpu-big-0/opp-1200000000 clock-latency-ns) == 40000 ]] ||
  fail "clock-latency-ns"
fdtget -p "$m" /opp-table-cpu-little-0/opp-1416000000 | grep -qx opp-suspend || fail "opp-suspend"
[[ $(fdtget -p "$m" /opp-table-cpu-little-0/opp-1008000000 | grep -c opp-suspend) == 0 ]] ||
  fail "opp-suspend on one OPP only"
map_trip=$(fdtget "$m" "/thermal-zones/$rk_zone/cooling-maps/map0" trip) || fail "base map gone"
own=$(fdtget "$m" "/thermal-zones/$rk_zone/trips/board-alert" phandle) || fail "base trip gone"
[[ -n $map_trip && $map_trip == "$own" ]] || fail "the base's own map lost its trip"
command -v dt-validate >/dev/null ||
  echo "check_dts: dt-validate (dtschema, Python registry) not installed: binding checks above only"
echo "check_dts: ok"
