#!/bin/sh
# Derives validation/data/odroid_xu3_*.csv from Kris Nikov's ARMPM_BUILDMODEL (licence and
# provenance in validation/data): the whitespace sensors.data files into the normalised
# trace CSV (sits_trace.h): time from the first sample, INA231 rails and Exynos TMU
# temperatures, values as recorded.
#
#   scripts/derive_odroid_traces.sh [SHARED_DIR] [DEST] [ARMPM_CHECKOUT]
#
# SHARED_DIR holds the three PARSEC 1-core Run 1 files (shared/data/odroid_xu3_armpm_nikov);
# ARMPM_CHECKOUT, a checkout of https://github.com/kranik/ARMPM_BUILDMODEL at commit
# d3822e73263eec086e8f1509057a4494240e9717, gives the other runs (skipped without it).
set -eu
src=${1:-../shared/data/odroid_xu3_armpm_nikov}
dst=${2:-validation/data}
armpm=${3:-}

to_csv() { # sensors.data on stdin -> the normalised CSV on stdout
  awk 'BEGIN { print "time_s,freq_mhz.A15,temp_c.A15,voltage_v.A15,current_a.A15,power_w.A15,temp_c.A7,power_w.A7,temp_c.GPU,power_w.GPU,power_w.RAM" }
       /^#/ { next }
       NF == 19 { if (t0 == "") t0 = $1
                  printf "%.6f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", ($1 - t0) / 1e9, $7, $8, $9, $10, $11, $3, $6, $13, $16, $19 }'
}

for khz in 1000000 1400000 1800000; do
  to_csv < "$src/PARSEC_1core_big_Run1_${khz}kHz_sensors.data" \
    > "$dst/odroid_xu3_a15_$((khz / 1000))mhz.csv"
done
cp "$src/LICENSE.md" "$dst/LICENSE.odroid_xu3"

[ -n "$armpm" ] || exit 0
raw=$armpm/Examples/Raw_Data
# other recordings of the same board: PARSEC on one core (second run), on two cores, and
# cBench (recorded in December 2016, the PARSEC runs in May-June 2017); the last three have
# no calibration case (validation/cases/unfitted.txt: the recipe's hard cases)
while read -r path name; do
  to_csv < "$raw/$path/sensors.data" > "$dst/$name.csv"
done <<EOF
PARSEC/1core/big/events_list_1/Run_2/1800000 odroid_xu3_a15_1800mhz_run2
PARSEC/2core/big/events_list_1/Run_1/1000000 odroid_xu3_a15_2core_1000mhz
PARSEC/2core/big/events_list_1/Run_1/1400000 odroid_xu3_a15_2core_1400mhz
cBench/big/events_list_1/Run_1/1000000 odroid_xu3_a15_cbench_1000mhz
cBench/big/events_list_1/Run_1/1500000 odroid_xu3_a15_cbench_1500mhz
cBench/big/events_list_1/Run_1/2000000 odroid_xu3_a15_cbench_2000mhz
PARSEC/2core/big/events_list_1/Run_1/1800000 odroid_xu3_a15_2core_1800mhz
EOF
