#!/usr/bin/env bash
# tests/recipes/test_gnu_parallel.sh BIN SRC - the GNU parallel recipe runs a sampled sweep in
# three shards and its joined table equals the same sweep run directly, byte for byte; a
# failing combination gives exit 1 with the other rows kept.
set -euo pipefail
bin=$1 src=$2
work=$(mktemp -d "${TMPDIR:-/tmp}/sits_recipe_XXXXXX")
trap 'rm -rf "$work"' EXIT
cd "$work"
scen=$src/configs/scenarios/hotspot_3node_step.cfg
SITSENERGY=$bin "$src/scripts/recipes/sweep_gnu_parallel.sh" 3 gp.csv "$scen" \
  --dist 'ambient_c=uniform(20,45)' --dist 'platform.thermal.links.[2].r_k_per_w=normal(0.3,0.02)' \
  --sample 12 --set duration_s=5 2> gp.err
"$bin" sweep "$scen" --dist 'ambient_c=uniform(20,45)' \
  --dist 'platform.thermal.links.[2].r_k_per_w=normal(0.3,0.02)' --sample 12 --set duration_s=5 \
  -o direct.csv 2> direct.err
cmp gp.csv direct.csv || { echo "FAIL: the parallel table differs from the direct one"; exit 1; }
[ "$(wc -l < gp.csv)" -eq 13 ] || { echo "FAIL: $(wc -l < gp.csv) lines, not 13"; exit 1; }
set +e
SITSENERGY=$bin "$src/scripts/recipes/sweep_gnu_parallel.sh" 2 bad.csv "$scen" \
  --vary ambient_c=20,hot,30 --set duration_s=5 2> bad.err
status=$?
set -e
[ "$status" -eq 1 ] || { echo "FAIL: exit $status with a failing combination, not 1"; exit 1; }
grep -q "'ambient_c' must be a number" bad.csv || { echo "FAIL: the error row is missing"; exit 1; }
[ "$(wc -l < bad.csv)" -eq 4 ] || { echo "FAIL: the other rows were lost"; exit 1; }
echo "gnu parallel recipe: ok"
