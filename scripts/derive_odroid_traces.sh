#!/bin/sh
# Derives validation/data/odroid_xu3_a15_<MHz>mhz.csv from shared/data/odroid_xu3_armpm_nikov
# (Kris Nikov, ARMPM_BUILDMODEL; licence and provenance in validation/data): the whitespace
# sensors.data files into the normalised trace CSV (sits_trace.h): time from the first
# sample, INA231 rails and Exynos TMU temperatures, values as recorded.
set -eu
src=${1:-../shared/data/odroid_xu3_armpm_nikov}
dst=${2:-validation/data}
for khz in 1000000 1400000 1800000; do
  awk 'BEGIN { print "time_s,freq_mhz.A15,temp_c.A15,voltage_v.A15,current_a.A15,power_w.A15,temp_c.A7,power_w.A7,temp_c.GPU,power_w.GPU,power_w.RAM" }
       /^#/ { next }
       NF == 19 { if (t0 == "") t0 = $1
                  printf "%.6f,%s,%s,%s,%s,%s,%s,%s,%s,%s,%s\n", ($1 - t0) / 1e9, $7, $8, $9, $10, $11, $3, $6, $13, $16, $19 }' \
    "$src/PARSEC_1core_big_Run1_${khz}kHz_sensors.data" > "$dst/odroid_xu3_a15_$((khz / 1000))mhz.csv"
done
cp "$src/LICENSE.md" "$dst/LICENSE.odroid_xu3"
