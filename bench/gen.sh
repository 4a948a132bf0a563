#!/usr/bin/env bash
# bench/gen.sh - writes the benchmark scenarios into a folder (default bench/out).
#   chain10_1h : 10-node network, 1-hour trace with a power step every 10 ms (360,000 rows)
#   grid64_10m : 64 x 64 grid (4,096 nodes, KLU), 10-minute trace, a step every 100 ms
#   gridN      : N x N grids for the dense/KLU threshold (N given as arguments to `grids`)
#   ev6_phases : HotSpot's ev6 floorplan, 100 workload phases of 0.1 s (integer demand 1.0
#                and 0.3 in turn), for the grid path's restarts at input changes
#   tiles [N]  : a synthetic floorplan of N x N equal blocks on a 16 mm die (default 8:
#                HotSpot's block model of it has 268 states; 6: 156, 9: 336), two DVFS
#                domains, a 66-C trip with 0.2 K of hysteresis: an OPP change at most ticks
set -euo pipefail
out=${OUT:-$(dirname "$0")/out}
mkdir -p "$out"

# A grid platform in HotSpot's image: an N x N grid of silicon cells over a 16 mm die
# (ev6 example parameters: t_chip 0.15 mm, k 130 W/m/K, rho*c 1.63e6 J/m^3/K), each cell
# linked to its right and lower neighbours, and down through silicon + 20 um of TIM
# (k 4) to one spreader node; spreader -> sink -> ambient (r_convec 0.1 K/W).
grid_platform() { # $1 = N, $2 = file
  awk -v n="$1" 'BEGIN {
    side = 0.016 / n; area = side * side
    c = 1.63e6 * 1.5e-4 * area                  # J/K per cell
    rlat = side / (130 * 1.5e-4 * side)         # K/W between neighbours
    rvert = (1.5e-4 / 130 + 2e-5 / 4) / area    # K/W cell to spreader
    print "platform = { name = \"grid" n "\"; thermal = {"
    printf "  nodes = ("
    for (i = 0; i < n * n; i++)
      printf "{ name = \"c%d\"; c_j_per_k = %.6g; junction = true; }, ", i, c
    print "{ name = \"spreader\"; c_j_per_k = 3.195; }, { name = \"sink\"; c_j_per_k = 140.4; } );"
    printf "  links = ("
    for (r = 0; r < n; r++) for (q = 0; q < n; q++) {
      i = r * n + q
      if (q + 1 < n) printf "{ a = \"c%d\"; b = \"c%d\"; r_k_per_w = %.6g; }, ", i, i + 1, rlat
      if (r + 1 < n) printf "{ a = \"c%d\"; b = \"c%d\"; r_k_per_w = %.6g; }, ", i, i + n, rlat
      printf "{ a = \"c%d\"; b = \"spreader\"; r_k_per_w = %.6g; }, ", i, rvert
    }
    print "{ a = \"spreader\"; b = \"sink\"; r_k_per_w = 0.002778; },"
    print "    { a = \"sink\"; b = \"ambient\"; r_k_per_w = 0.1; } );"
    print "}; };"
  }' > "$2"
}

# A trace: $1 rows every $2 s into the nodes listed in $3 (space separated), seeded.
trace() {
  awk -v rows="$1" -v dt="$2" -v nodes="$3" 'BEGIN {
    srand(1); k = split(nodes, nd, " ")
    printf "time_s"; for (j = 1; j <= k; j++) printf ",power_w.%s", nd[j]; print ""
    for (r = 0; r < rows; r++) {
      printf "%.3f", r * dt
      for (j = 1; j <= k; j++) printf ",%.3f", 0.2 + 4.0 * rand()
      print ""
    }
  }'
}

chain10() {
  {
    echo 'platform = { name = "chain10"; thermal = {'
    printf '  nodes = ('
    for i in $(seq 0 9); do
      c=$(awk -v i="$i" 'BEGIN { printf "%.4g", 0.05 * 10 ^ (i / 3) }')
      printf '%s{ name = "n%d"; c_j_per_k = %s; junction = true; }' "$([ "$i" = 0 ] || echo ', ')" "$i" "$c"
    done
    echo ' );'
    printf '  links = ('
    for i in $(seq 0 8); do
      printf '%s{ a = "n%d"; b = "n%d"; r_k_per_w = 0.3; }' "$([ "$i" = 0 ] || echo ', ')" "$i" $((i + 1))
    done
    echo ', { a = "n9"; b = "ambient"; r_k_per_w = 0.8; }, { a = "n4"; b = "ambient"; r_k_per_w = 10.0; } );'
    echo '}; };'
  } > "$out/chain10.cfg"
  trace 360000 0.01 "n0 n2" > "$out/chain10_1h.csv"
  cat > "$out/chain10_1h.cfg" <<CFG
platform = "chain10.cfg";
workload = { trace = "chain10_1h.csv"; };
duration_s = 3600.0;
sample_period_s = 1.0;
CFG
}

grid64() {
  grid_platform 64 "$out/grid64.cfg"
  trace 6000 0.1 "c0 c100 c1000 c2080 c2100 c3000 c4000 c4095" > "$out/grid64_10m.csv"
  cat > "$out/grid64_10m.cfg" <<CFG
platform = "grid64.cfg";
workload = { trace = "grid64_10m.csv"; };
duration_s = 600.0;
sample_period_s = 1.0;
CFG
}

grids() { # dense vs KLU: the same 60-s trace on N x N grids
  for n in "$@"; do
    grid_platform "$n" "$out/grid$n.cfg"
    trace 600 0.1 "c0 c$((n * n / 2))" > "$out/grid${n}_1m.csv"
    printf 'platform = "grid%d.cfg";\nworkload = { trace = "grid%d_1m.csv"; };\nduration_s = 60.0;\n' \
      "$n" "$n" > "$out/grid${n}_1m.cfg"
  done
}

ev6_phases() {
  {
    echo 'platform = "ev6_floorplan";'
    printf 'workload = { phases = ('
    for k in $(seq 0 99); do
      d=$([ $((k % 2)) = 0 ] && echo 1.0 || echo 0.3)
      printf '%s{ duration_s = 0.1; demand = { int = %s; fp = 0.6; mem = 0.8; }; }' \
        "$([ "$k" = 0 ] || echo ', ')" "$d"
    done
    echo ' ); };'
    echo 'ambient_c = 55.0;'
    echo 'sample_period_s = 0.05;'
  } > "$out/ev6_phases.cfg"
}

tiles() { # $1 = N (default 8): tilesN.flp, tilesN.config, tilesN.cfg
  local n=${1:-8} c
  if ! [[ $n =~ ^[0-9]+$ ]] || ((n < 4 || n > 40)); then
    echo "gen.sh tiles: N from 4 to 40 (the two domains' blocks apart), not '$n'" >&2
    return 2
  fi
  c=$((n / 2))
  awk -v n="$n" 'BEGIN { w = 0.016 / n
    for (i = 0; i < n; i++) for (j = 0; j < n; j++)
      printf "B_%d_%d\t%.15g\t%.15g\t%.15g\t%.15g\n", i, j, w, w, j * w, i * w }' > "$out/tiles$n.flp"
  cp "$(dirname "$0")/../configs/platforms/floorplans/example.config" "$out/tiles$n.config"
  cat > "$out/tiles$n.cfg" <<CFG
# a synthetic compact network for the exponential path's benchmark (not a real chip: the
# domains' numbers are ev6_floorplan's illustrative ones, scaled)
platform = {
  name = "tiles$n";
  estimated = [ "a synthetic benchmark floorplan, not a device" ];
  thermal = { hotspot = { flp = "tiles$n.flp"; config = "tiles$n.config"; model = "block"; }; };
  static_w = 10.0;
  static_node = "B_0_0";
  domains = (
    { name = "big"; nodes = ["B_$((c - 1))_$((c - 1))", "B_$((c - 1))_$c", "B_${c}_$((c - 1))", "B_${c}_$c"];
      ceff_f = 9.0e-9; idle_w = 0.3;
      leak_ref_w = 0.4; leak_ref_v = 1.0; leak_ref_c = 110.0; leak_per_k = 0.036;
      opp = ( { freq_mhz = 1000.0; volt_v = 0.80; }, { freq_mhz = 1500.0; volt_v = 0.90; },
              { freq_mhz = 2000.0; volt_v = 1.00; } ); },
    { name = "little"; nodes = ["B_$((n - 2))_1", "B_$((n - 2))_2"];
      ceff_f = 3.0e-9; idle_w = 0.1;
      leak_ref_w = 0.1; leak_ref_v = 1.0; leak_ref_c = 110.0; leak_per_k = 0.036;
      opp = ( { freq_mhz = 1000.0; volt_v = 0.80; }, { freq_mhz = 2000.0; volt_v = 1.00; } ); }
  );
  governor = { kind = "performance"; period_s = 0.01;
               thermal = { kind = "step_wise"; sensor = "B_$((c - 1))_$((c - 1))"; trip_c = 66.0;
                           hysteresis_c = 0.2; }; };
};
workload = { phases = ( { duration_s = 60.0; demand = { big = 1.0; little = 0.8; }; } ); };
ambient_c = 55.0;
sample_period_s = 0.05;
CFG
}

case ${1:-all} in
  chain10) chain10 ;;
  ev6_phases) ev6_phases ;;
  grid64) grid64 ;;
  grids) shift; grids "$@" ;;
  tiles) shift; tiles "$@" ;;
  all) chain10; grid64; ev6_phases; tiles 8 ;;
esac
