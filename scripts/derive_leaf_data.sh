#!/bin/sh
# Derives validation/data/leaf_* from shared/data/battery_nissanleaf_cell_ornl (MIT, ORNL;
# see validation/data/PROVENANCE.txt). Rows are copied verbatim, in the cycler's own format.
#   leaf_c15_discharge_cycle2.csv: the header and cycle 2 of the C/15 cycling file, from the
#     300-s rest before its discharge to the end of the rest after it.
#   leaf_hppc_25degC.csv: the low-current HPPC test at 25 C, whole.
set -eu
src=${1:-../shared/data/battery_nissanleaf_cell_ornl}
dst=${2:-validation/data}
awk -F, 'NR == 1 || ($2 + 0 >= 42747.4 && $2 + 0 < 93279.2)' \
  "$src/NissanLeaf-cell-Cycling-10C-24C-40C.csv" > "$dst/leaf_c15_discharge_cycle2.csv"
cp "$src/NissanLeaf-cell-Low-Current-HPPC-25C-2.csv" "$dst/leaf_hppc_25degC.csv"
cp "$src/LICENSE.txt" "$dst/LICENSE.battery_nissanleaf"
