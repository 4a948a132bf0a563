#!/usr/bin/env bash
# capture_on_gpu.sh - a real NVML capture on an NVIDIA GPU machine, three ways at once, under
# one phased load (scripts/recipes/nvml_phased_capture.py):
#   hook_capture.csv  libsits_rt's NVML source driven by the workload itself, with its phases
#   cli_capture.csv   `sitsenergy capture --source nvml` (10 Hz default) in the background
#   nvsmi.csv         nvidia-smi with every column the nvidia-smi reader knows, -lms 100
# plus phases.csv (the load applied), gpu.txt (the card, driver, sysfs zones).
#
#   OUT=dir CARRY=dir bash validation/nvml/capture_on_gpu.sh [PATTERN]
# CARRY holds bin/sitsenergy and lib/ (libsits_rt.so.0, libsits.so.1 and its libraries) built
# on a Debian 12 machine; nothing else is needed there but python3 with PyTorch.
set -u
out=${OUT:?OUT: where the files go}
carry=${CARRY:-.devcarry}
pattern=${1:-15:0,30:0.25,45:1,20:0,40:0.75,10:1,10:0,10:1,10:0,30:0}
export LD_LIBRARY_PATH=$PWD/$carry/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}

{
  date -u +%FT%TZ
  nvidia-smi -L
  nvidia-smi --query-gpu=name,driver_version,power.limit,power.max_limit,temperature.gpu \
    --format=csv
  echo "thermal zones: $(ls /sys/class/thermal 2>/dev/null | tr '\n' ' ')"
  echo "hwmon: $(cat /sys/class/hwmon/*/name 2>/dev/null | tr '\n' ' ')"
} >"$out/gpu.txt" 2>&1

"$carry/bin/sitsenergy" capture --source nvml --duration-s 900 -o "$out/cli_capture.csv" \
  2>"$out/cli_capture.log" &
cli=$!

full=timestamp,index,power.draw,power.draw.average,power.draw.instant,power.limit
full=$full,enforced.power.limit,temperature.gpu,temperature.memory,clocks.current.graphics
full=$full,clocks.current.sm,clocks.current.memory,clocks.current.video,utilization.gpu
full=$full,utilization.memory,pstate,fan.speed,clocks_event_reasons.active
full=$full,clocks_event_reasons.gpu_idle,clocks_event_reasons.sw_power_cap
full=$full,clocks_event_reasons.hw_slowdown,clocks_event_reasons.sw_thermal_slowdown
full=$full,clocks_event_reasons.hw_thermal_slowdown,clocks_event_reasons.hw_power_brake_slowdown
short=timestamp,index,power.draw,power.draw.instant,temperature.gpu,temperature.memory
short=$short,clocks.sm,clocks.mem,utilization.gpu,pstate,clocks_throttle_reasons.active
nvidia-smi --query-gpu=$full --format=csv -lms 100 >"$out/nvsmi.csv" 2>"$out/nvsmi.err" &
smi=$!
sleep 1.5
if ! kill -0 $smi 2>/dev/null; then # a field this driver does not know: the short list
  echo "full list refused; short list" >>"$out/nvsmi.err"
  nvidia-smi --query-gpu=$short --format=csv -lms 100 >"$out/nvsmi.csv" 2>>"$out/nvsmi.err" &
  smi=$!
fi

python3 scripts/recipes/nvml_phased_capture.py --lib "$carry/lib/libsits_rt.so.0" --no-sysfs \
  -o "$out/hook_capture.csv" --phases-csv "$out/phases.csv" --pattern "$pattern" \
  2>"$out/hook_capture.log"
rc=$?
kill -TERM $cli
kill $smi
wait
cat "$out/gpu.txt" "$out/cli_capture.log" "$out/hook_capture.log" "$out/nvsmi.err"
wc -l "$out"/*.csv
head -3 "$out/hook_capture.csv" "$out/cli_capture.csv" "$out/nvsmi.csv" | cut -c1-600
exit $rc
