#!/bin/sh
# Derives the Panasonic 18650PF (NCA, 2.9 Ah) validation files from Phillip Kollmeyer's
# "Panasonic 18650PF Li-ion Battery Data" (Mendeley Data, doi:10.17632/wykht8y7tg.1, CC BY
# 4.0; validation/data/LICENSE.battery_pan18650pf), as mirrored in
# https://github.com/fededc88/Panasonic-18650PF-Data (commit 6d72048):
#
#   scripts/derive_pan18650pf.sh MIRROR_CHECKOUT
#
# Each MATLAB file holds one struct `meas`; scripts/mat5_to_csv.py writes its Time, Current,
# Voltage and Battery_Temp_degC fields as time_s,current_a,voltage_v,temp_c (negative current
# discharges, as recorded). Written: the 25 C C/20 discharge-and-charge test (the OCV test)
# and the 25 C US06 drive cycle, from full to the 2.5 V cutoff and its rest.
set -eu
src=$1
data=validation/data
here=$(dirname "$0")
d="$src/Panasonic 18650PF Data/25degC"
conv() { python3 "$here/mat5_to_csv.py" "$1" meas Time=time_s Current=current_a \
  Voltage=voltage_v Battery_Temp_degC=temp_c; }
conv "$d/C20 OCV and 1C discharge tests_start_of_tests/05-08-17_13.26 C20 OCV Test_C20_25dC.mat" \
  > "$data/pan18650pf_c20_25degC.csv"
conv "$d/Drive cycles/03-20-17_01.43 25degC_US06_Pan18650PF.mat" > "$data/pan18650pf_us06_25degC.csv"
# The 25 C HPPC test (11 March 2017, nine days before the US06 cycle): only the relaxed
# voltage at the end of each rest of 600 s or more (the last sample before the next pulse,
# and the file's last sample), with the test's amp-hour counter there (0 at full charge,
# negative discharged): time_s,ah,voltage_v,rest_s.
python3 "$here/mat5_to_csv.py" "$d/5 pulse disch/03-11-17_08.47 25degC_5Pulse_HPPC_Pan18650PF.mat" \
  meas Time=time_s Current=current_a Voltage=voltage_v Ah=ah |
  awk -F, 'NR == 1 { print "time_s,ah,voltage_v,rest_s"; next }
    { quiet = ($2 < 0.01 && $2 > -0.01) }
    quiet && !q0 { q0 = $1 }
    !quiet && q0 && $1 - q0 >= 600 { print pt "," pa "," pv "," pt - q0 }
    !quiet { q0 = 0 }
    { pt = $1; pa = $4; pv = $3 }
    END { if (q0 && pt - q0 >= 600) print pt "," pa "," pv "," pt - q0 }' \
  > "$data/pan18650pf_hppc_25degC_rests.csv"
