#!/usr/bin/env bash
# Derives configs/traces/orin_nano_vlm_burst_power.csv from the measured Jetson Orin Nano
# tegrastats log in shared/data (see configs/traces/PROVENANCE.txt). The 72-s log is
# played REPEAT times back to back, each row held 0.109 s (the log's effective period).
#   die    = VDD_CPU_GPU_CV + VDD_SOC   (the SoC rails)      [W]
#   module = VDD_IN - die               (DRAM, regulators, IO) [W]
set -euo pipefail
src=${1:-../shared/data/jetson_orinnano_super_jp6_vlm_trt/parsed.csv}
repeat=${REPEAT:-10}
awk -F, -v repeat="$repeat" '
  BEGIN { n = 0 }
  NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
  { vin[n] = $col["VDD_IN_mW"]; soc[n] = $col["VDD_CPU_GPU_CV_mW"] + $col["VDD_SOC_mW"]; n++ }
  END {
    print "time_s,power_w.die,power_w.module"
    for (r = 0; r < repeat; r++)
      for (k = 0; k < n; k++)
        printf "%.3f,%.3f,%.3f\n", (r * n + k) * 0.109, soc[k] / 1000, (vin[k] - soc[k]) / 1000
  }' "$src"
