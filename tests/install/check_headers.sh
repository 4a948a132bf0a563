#!/bin/sh
# check_headers.sh PREFIX_INCLUDE_DIR - every installed header compiles alone, from C11 and
# from C++17, with -Wall -Wextra -pedantic -Werror; none declares an internal (sits__) name;
# and a C++ program that includes the umbrella header links against libsits (extern "C").
# Arguments: the installed include folder (…/include/sitsenergy) and library folder.
set -eu
inc=$1
lib=$2
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
status=0
n=0
for h in "$inc"/*.h; do
  b=$(basename "$h")
  n=$((n + 1))
  if grep -n 'sits__' "$h"; then
    echo "FAIL $b: declares internal names" >&2
    status=1
  fi
  printf '#include "%s"\nint sits_header_check_anchor;\n' "$b" > "$work/t.c"
  cp "$work/t.c" "$work/t.cpp"
  cc -std=c11 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$inc" "$work/t.c" ||
    { echo "FAIL $b: does not compile alone as C11" >&2; status=1; }
  c++ -std=c++17 -Wall -Wextra -pedantic -Werror -fsyntax-only -I"$inc" "$work/t.cpp" ||
    { echo "FAIL $b: does not compile alone as C++17" >&2; status=1; }
done
cat > "$work/umbrella.cpp" <<'CPP'
#include "sitsenergy.h"
#include <cstdio>
int main() {
  sits_thermal *th = sits_thermal_new();
  sits_err err = {0, {0}};
  int a = sits_thermal_add_node(th, "die", 2.0, &err);
  std::printf("%d %s\n", a, sits_strerror(SITS_EINPUT));
  sits_thermal_free(th);
  return a == 0 ? 0 : 1;
}
CPP
if c++ -std=c++17 -Wall -Wextra -pedantic -Werror -I"$inc" "$work/umbrella.cpp" -L"$lib" -lsits \
  -Wl,-rpath,"$lib" -o "$work/umbrella" && "$work/umbrella" > "$work/out"; then
  grep -q '^0 bad input$' "$work/out" || { echo "FAIL: C++ program printed $(cat "$work/out")" >&2; status=1; }
else
  echo "FAIL: a C++ program including sitsenergy.h does not build or run against libsits" >&2
  status=1
fi
echo "checked $n headers"
exit $status
