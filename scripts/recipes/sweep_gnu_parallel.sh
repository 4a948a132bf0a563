#!/usr/bin/env bash
# sweep_gnu_parallel.sh N OUT.csv|OUT.h5 SCENARIO.cfg SWEEP-OPTIONS...
#
# A sweep split into N shards run by GNU parallel (one job per core by default; pass
# PARALLEL_OPTS, e.g. "-S host1,host2 --sshdelay 0.1", to spread them over machines that
# share this folder), then joined with `sitsenergy sweep-merge`. SWEEP-OPTIONS are those of
# `sitsenergy sweep` without -o and --shard (--vary, --dist/--sample, --set, ...); every
# argument reaches sweep as given (parallel -q). Exit status: the worst shard's (1 when a
# combination failed: the table still holds the other rows).
#   SITSENERGY   the program (default: sitsenergy on PATH)
set -uo pipefail

if [ $# -lt 3 ]; then
  sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//' >&2
  exit 2
fi
n=$1 out=$2
shift 2
bin=${SITSENERGY:-sitsenergy}
case $n in '' | *[!0-9]* | 0) echo "sweep_gnu_parallel.sh: N must be a whole number >= 1" >&2; exit 2 ;; esac
tmp=$(mktemp -d "${TMPDIR:-/tmp}/sits_parallel_XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
# shellcheck disable=SC2086
seq 1 "$n" | parallel -q --will-cite ${PARALLEL_OPTS:-} --halt never "$bin" sweep "$@" --shard "{}/$n" \
  -o "$tmp/part{}.csv"
status=$?
parts=("$tmp"/part*.csv)
[ -e "${parts[0]}" ] || exit 1
"$bin" sweep-merge "$out" "${parts[@]}" || exit 1
exit $status
