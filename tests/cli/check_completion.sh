#!/usr/bin/env bash
# check_completion.sh CLI ROOT - the bash completion offers commands, options (from --help)
# and the values of the options that take one of a few words.
set -u
cli=$1 root=$2
. "$root/scripts/completion/sitsenergy.bash"
fail=0
expect() { # expect "WORDS..." -- the command line's words (the last one being completed)
  local want=$1
  shift
  COMP_WORDS=("$cli" "$@")
  COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
  COMPREPLY=()
  _sitsenergy
  local got="${COMPREPLY[*]}"
  if [ "$got" != "$want" ]; then
    echo "FAIL: '${*}': got '$got', want '$want'"
    fail=1
  fi
}
expect "trace-info" tra
expect "text json" replay x.cfg --summary ''
expect "nvsmi" replay x.cfg --format nv
expect "dts" dvfs-table x.cfg --format d
expect "sysfs sysfs,nvml" capture --source s
expect "thermal,ambient,initial thermal,ambient,trips" calibrate x.cfg --fit thermal,ambient,
expect "--nvml-library" capture --nvml
expect "lhs" sweep x.cfg --method l
[ $fail = 0 ] && echo "completion: 8 passed, 0 failed"
exit $fail
