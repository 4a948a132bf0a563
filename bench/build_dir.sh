# bench/build_dir.sh - sourced by the bench scripts: which build to time.
#   --build-dir DIR (first argument) or SITS_BUILD_DIR=DIR: an existing build (its
#   cli/sitsenergy is timed as it is; nothing is rebuilt: say which build type in the figures);
#   otherwise a Release build in build-bench, configured and brought up to date here.
# Sets bench_build (the folder) and bin (its sitsenergy); leaves the remaining arguments in
# bench_args.
bench_args=("$@")
bench_build=${SITS_BUILD_DIR:-}
if [[ ${1:-} == --build-dir ]]; then
  [[ $# -ge 2 ]] || { echo "$0: --build-dir needs a folder" >&2; exit 2; }
  bench_build=$2
  bench_args=("${@:3}")
fi
if [[ -n $bench_build ]]; then
  given=$bench_build
  bench_build=$(cd "$given" 2>/dev/null && pwd) ||
    { echo "$0: --build-dir: no folder '$given'" >&2; exit 2; }
  [[ -x $bench_build/cli/sitsenergy ]] ||
    { echo "$0: --build-dir: $bench_build has no cli/sitsenergy (build it first)" >&2; exit 2; }
  type=$(sed -n 's/^CMAKE_BUILD_TYPE:[A-Z]*=//p' "$bench_build/CMakeCache.txt" 2>/dev/null)
  echo "# timing the existing build $bench_build (CMAKE_BUILD_TYPE ${type:-unknown})" >&2
else
  bench_build=$root/build-bench
  cmake -S "$root" -B "$bench_build" -DCMAKE_BUILD_TYPE=Release -DSITS_BUILD_TESTS=OFF >/dev/null
  cmake --build "$bench_build" -j "$(nproc)" >/dev/null
fi
bin=$bench_build/cli/sitsenergy
