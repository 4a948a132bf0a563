#!/usr/bin/env bash
# tests/corpus/run.sh BIN SRC - the malformed-input corpus (cases.txt), run by CTest.
#
# Each case runs in a fresh folder holding a copy of inputs/ (with TMPDIR inside it), under a
# 120-s timeout, and must:
#   - exit with the code the case states (a hang, a crash or a sanitizer report fails);
#   - print on stderr the text the case states: the file:line or the option at fault;
#   - leave every file that was in its folder unchanged, and no temporary file behind;
#   - change nothing outside its folder: the project's configs/, validation/ and tests/ trees
#     are checksummed before and after the whole corpus, and so are the shipped configs a
#     case names.
# Prints one line per failure and a count; exit 1 when a case fails.
set -uo pipefail

bin=$1 src=$2
here=$src/tests/corpus
work=$(mktemp -d "${TMPDIR:-/tmp}/sits_corpus_XXXXXX")
trap 'rm -rf "$work"' EXIT

tree_sum() { # checksums of the project's input trees (build folders excluded)
  (cd "$src" && find configs validation tests -type f ! -path '*/build*' -print0 | sort -z |
    xargs -0 sha256sum) | sha256sum
}

before_tree=$(tree_sum)
n=0 failed=0
while IFS= read -r line; do
  case $line in \#* | "") continue ;; esac
  want=${line%%|*}
  rest=${line#*|}
  expect=${rest%%|*}
  cmd=${rest#*|}
  want=${want//[[:space:]]/} # trimmed without a process: ~330 cases
  expect=${expect#"${expect%%[![:space:]]*}"}
  expect=${expect%"${expect##*[![:space:]]}"}
  n=$((n + 1))
  dir=$work/case$n
  mkdir -p "$dir/tmp"
  cp -r "$here/inputs/." "$dir/"
  (cd "$dir" && find . -type f ! -path './tmp/*' -print0 | sort -z | xargs -0 sha256sum) > "$work/sum$n"
  (
    cd "$dir" &&
      B=$bin C=$src/configs V=$src/validation T=$src/tests/data TMPDIR=$dir/tmp \
        timeout 120 bash -c "$cmd" > "$work/out$n" 2> "$work/err$n" < /dev/null
  )
  got=$?
  why=""
  if [ "$got" != "$want" ]; then
    why="exit $got, expected $want"
  elif [ "$expect" != "-" ] && ! grep -qF -- "$expect" "$work/err$n"; then
    why="stderr lacks '$expect'"
  elif grep -qE 'AddressSanitizer|runtime error:|LeakSanitizer|Segmentation' "$work/err$n"; then
    why="sanitizer or crash report"
  elif ! (cd "$dir" && sha256sum --quiet -c "$work/sum$n" > /dev/null 2>&1); then
    why="an input file in the case folder changed"
  elif left=$(cd "$dir" && find . \( -name '*sits-tmp*' -o -path './tmp/*' -type f \) -print -quit) &&
    [ -n "$left" ]; then
    why="a temporary file was left: $left"
  fi
  if [ -n "$why" ]; then
    failed=$((failed + 1))
    echo "FAIL case $n: $why"
    echo "     command: $cmd"
    echo "     stderr:  $(head -c 400 "$work/err$n")"
  fi
done < "$here/cases.txt"

if [ "$(tree_sum)" != "$before_tree" ]; then
  echo "FAIL: a file of the project's configs/, validation/ or tests/ trees changed"
  failed=$((failed + 1))
fi
echo "corpus: $n cases, $failed failed"
[ "$failed" -eq 0 ]
