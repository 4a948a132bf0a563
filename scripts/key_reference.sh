#!/bin/sh
# scripts/key_reference.sh SITSENERGY README [--check]
# Writes the output of `sitsenergy keys --format markdown` (the key table, config/key_table.c)
# between the README's `<!-- keys:begin -->` and `<!-- keys:end -->` lines; with --check,
# changes nothing and exits 1 when the README's reference differs from the table.
set -eu
bin=$1
readme=$2
mode=${3:-write}
tmp=$(mktemp)
trap 'rm -f "$tmp" "$tmp.keys"' EXIT
"$bin" keys --format markdown > "$tmp.keys"
awk -v keys="$tmp.keys" '
  /^<!-- keys:begin -->$/ { print; while ((getline line < keys) > 0) print line; skip = 1; seen++; next }
  /^<!-- keys:end -->$/ { skip = 0 }
  !skip { print }
  END { if (seen != 1) exit 3 }' "$readme" > "$tmp" || { echo "$readme: needs one keys:begin/keys:end pair" >&2; exit 1; }
if [ "$mode" = --check ]; then
  if ! diff -u "$readme" "$tmp" >&2; then
    echo "$readme: the key reference differs from the key table; run scripts/key_reference.sh $bin $readme" >&2
    exit 1
  fi
  echo "key reference: $(grep -c '^| `' "$tmp.keys") keys, as in the table"
else
  cat "$tmp" > "$readme"
fi
