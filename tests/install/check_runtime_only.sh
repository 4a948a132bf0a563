#!/bin/sh
# check_runtime_only.sh SOURCE_DIR WORK_DIR [cross]
#   The board hook library alone (-DSITS_RUNTIME_ONLY=ON): configured without any of the
#   simulator's dependencies, linked to libc and libm only, installed under a --prefix, and
#   used from a C and a C++ program built only from `pkg-config --cflags --libs
#   sitsenergy-rt` and from find_package(SITSEnergyRT). With "cross": the same library built
#   for aarch64 with cmake/aarch64-linux-gnu.cmake (exit 77, skipped, without the compiler).
set -eu
src=$1
work=$2
mode=${3:-native}
rm -rf "$work"
mkdir -p "$work"
fail() { echo "check_runtime_only: $*" >&2; exit 1; }

if [ "$mode" = cross ]; then
  command -v aarch64-linux-gnu-gcc >/dev/null || { echo "no aarch64-linux-gnu-gcc: skipped"; exit 77; }
  cmake -S "$src" -B "$work/build" -DSITS_RUNTIME_ONLY=ON \
    -DCMAKE_TOOLCHAIN_FILE="$src/cmake/aarch64-linux-gnu.cmake" >/dev/null
  cmake --build "$work/build" >/dev/null
  cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
  lib=$(ls "$work"/prefix/lib*/libsits_rt.so.0.* | head -1)
  readelf -h "$lib" | grep -q "Machine:.*AArch64" || fail "$lib is not an AArch64 library"
  # a board program links against it with the cross compiler and the installed .pc
  pc=$(dirname "$(ls "$work"/prefix/lib*/pkgconfig/sitsenergy-rt.pc)")
  # shellcheck disable=SC2046
  aarch64-linux-gnu-gcc -o "$work/probe" "$src/tests/install/rt/probe.c" \
    $(PKG_CONFIG_PATH=$pc PKG_CONFIG_LIBDIR=$pc pkg-config --cflags --libs sitsenergy-rt) \
    || fail "cross-linking a program failed"
  readelf -h "$work/probe" | grep -q "Machine:.*AArch64" || fail "the program is not AArch64"
  echo "aarch64: $(basename "$lib") and a program linked to it"
  exit 0
fi

cmake -S "$src" -B "$work/build" -DSITS_RUNTIME_ONLY=ON >/dev/null
if grep -Eq "^(SUNDIALS|HDF5|GSL|FFTW|LIBCONFIG|KLU|CHOLMOD)[A-Za-z_]*:" "$work/build/CMakeCache.txt"; then
  fail "a runtime-only configure looked for the simulator's dependencies"
fi
cmake --build "$work/build" >/dev/null
cmake --install "$work/build" --prefix "$work/prefix" >/dev/null
lib=$(ls "$work"/prefix/lib*/libsits_rt.so | head -1)
needed=$(readelf -d "$lib" | sed -n 's/.*(NEEDED).*\[\(.*\)\]/\1/p' | sort | tr '\n' ' ')
for n in $needed; do
  case $n in libc.so.*|libm.so.*|libdl.so.*) ;; *) fail "libsits_rt needs $n" ;; esac
done
# a fake sysfs: one thermal zone at 45.5 C
root=$work/sys
mkdir -p "$root/class/thermal/thermal_zone0"
echo cpu-thermal > "$root/class/thermal/thermal_zone0/type"
echo 45500 > "$root/class/thermal/thermal_zone0/temp"
# copied elsewhere, the prefix still works: the .pc finds it from its own place
cp -r "$work/prefix" "$work/moved"
pc=$(dirname "$(ls "$work"/moved/lib*/pkgconfig/sitsenergy-rt.pc)")
flags=$(PKG_CONFIG_PATH=$pc pkg-config --cflags --libs sitsenergy-rt)
case $flags in *"$work/moved/"*) ;; *) fail "pkg-config does not point into the moved prefix: $flags" ;; esac
libdir=$(dirname "$(ls "$work"/moved/lib*/libsits_rt.so)")
# shellcheck disable=SC2086
cc -std=c11 -Wall -o "$work/probe_c" "$src/tests/install/rt/probe.c" $flags || fail "C build failed"
# shellcheck disable=SC2086
c++ -Wall -x c++ -o "$work/probe_cxx" "$src/tests/install/rt/probe.c" -x none $flags ||
  fail "C++ build failed"
for p in probe_c probe_cxx; do
  out=$(LD_LIBRARY_PATH=$libdir "$work/$p" "$root") || fail "$p failed"
  echo "$out" | grep -q "^time_s,temp_c.cpu-thermal" || fail "$p header: $out"
  echo "$out" | grep -q "^0[.0-9]*,45.5" || fail "$p row: $out"
done
# find_package(SITSEnergyRT)
mkdir -p "$work/cmake_user"
cat > "$work/cmake_user/CMakeLists.txt" <<CMAKE
cmake_minimum_required(VERSION 3.25)
project(board_app C)
find_package(SITSEnergyRT REQUIRED)
add_executable(probe $src/tests/install/rt/probe.c)
target_link_libraries(probe PRIVATE SITSEnergy::sits_rt)
CMAKE
cmake -S "$work/cmake_user" -B "$work/cmake_user/build" -DCMAKE_PREFIX_PATH="$work/moved" \
  >/dev/null || fail "find_package(SITSEnergyRT) failed"
cmake --build "$work/cmake_user/build" >/dev/null || fail "building with SITSEnergy::sits_rt failed"
LD_LIBRARY_PATH=$libdir "$work/cmake_user/build/probe" "$root" | grep -q "^0[.0-9]*,45.5" ||
  fail "the find_package program failed"
echo "runtime only: libsits_rt needs $needed; C, C++ and find_package programs ran"
