#!/bin/sh
# check_pkgconfig.sh SOURCE_DIR PREFIX WORK_DIR - an installed prefix, copied elsewhere, still
# builds programs from nothing but `pkg-config --cflags --libs` (the .pc files locate the
# prefix from their own place): a C and a C++ program on libsits and on libsits_rt.
set -eu
src=$1
prefix=$2
work=$3
fail() { echo "check_pkgconfig: $*" >&2; exit 1; }
rm -rf "$work"
mkdir -p "$work"
cp -r "$prefix" "$work/moved"
pc=$(dirname "$(ls "$work"/moved/lib*/pkgconfig/sitsenergy.pc)")
libdir=$(dirname "$pc")
export PKG_CONFIG_PATH="$pc"
[ "$(pkg-config --variable=libdir sitsenergy)" -ef "$libdir" ] ||
  fail "sitsenergy.pc points at $(pkg-config --variable=libdir sitsenergy), not $libdir"
[ "$(pkg-config --variable=libdir sitsenergy-rt)" -ef "$libdir" ] ||
  fail "sitsenergy-rt.pc points at $(pkg-config --variable=libdir sitsenergy-rt)"
# the public headers include GSL's: gsl is a public requirement, not a private one
pkg-config --print-requires sitsenergy | grep -q '^gsl' ||
  fail "sitsenergy.pc does not require gsl (its public headers include GSL's)"
# shellcheck disable=SC2046
cc -std=c11 -Wall -o "$work/c" "$src/tests/install/downstream/main.c" \
  $(pkg-config --cflags --libs sitsenergy) || fail "C build on libsits failed"
# shellcheck disable=SC2046
c++ -std=c++17 -Wall -o "$work/cxx" "$src/tests/install/downstream/main.cpp" \
  $(pkg-config --cflags --libs sitsenergy) || fail "C++ build on libsits failed"
# shellcheck disable=SC2046
cc -std=c11 -Wall -o "$work/rt" "$src/tests/install/rt/probe.c" \
  $(pkg-config --cflags --libs sitsenergy-rt) || fail "C build on libsits_rt failed"
# shellcheck disable=SC2046
c++ -x c++ -std=c++17 -Wall -o "$work/rtxx" "$src/tests/install/rt/probe.c" \
  $(pkg-config --cflags --libs sitsenergy-rt) || fail "C++ build on libsits_rt failed"
for p in c cxx; do
  LD_LIBRARY_PATH=$libdir "$work/$p" | grep -q "dT/dt = 2.500" || fail "$p did not run"
done
mkdir -p "$work/sys/class/thermal/thermal_zone0"
echo soc-thermal > "$work/sys/class/thermal/thermal_zone0/type"
echo 51250 > "$work/sys/class/thermal/thermal_zone0/temp"
for p in rt rtxx; do
  LD_LIBRARY_PATH=$libdir "$work/$p" "$work/sys" | grep -q "^0[.0-9]*,51.25" || fail "$p did not run"
done
# the moved program finds the shipped configs beside its library, not in the source tree:
# with them, a scenario naming a platform and a workload by name runs; without, it is refused
printf 'platform = "rk3588";\nworkload_profile = "video_enc";\nduration_s = 2.0;\n' > "$work/named.cfg"
"$work/moved/bin/sitsenergy" run "$work/named.cfg" --quiet --summary json > "$work/named.json" ||
  fail "the moved program does not find its configs"
grep -q '"end_reason":"duration"' "$work/named.json" || fail "named run: $(cat "$work/named.json")"
configs=$(dirname "$(dirname "$(find "$work/moved" -path '*/sitsenergy/configs/platforms/rk3588.cfg')")")
mv "$configs" "$work/hidden"
if "$work/moved/bin/sitsenergy" run "$work/named.cfg" --quiet > /dev/null 2> "$work/named.err"; then
  fail "with its configs hidden, the moved program still found rk3588 (the source tree's?)"
fi
grep -q "platform 'rk3588' not found" "$work/named.err" || fail "$(cat "$work/named.err")"
mv "$work/hidden" "$configs"
# the Python package finds the moved prefix's library from SITSENERGY_PREFIX alone
py=/usr/bin/python3
[ -x "$py" ] || py=python3
SITSENERGY_PREFIX="$work/moved" PYTHONPATH="$src/python" "$py" -c '
import sitsenergy, sys
assert sitsenergy.library_path.startswith(sys.argv[1]), sitsenergy.library_path
print(sitsenergy.library_version())' "$work/moved" > "$work/py.txt" || fail "python: $(cat "$work/py.txt")"
echo "pkg-config from a moved prefix: C and C++ on libsits and on libsits_rt ran; configs found beside the library"
