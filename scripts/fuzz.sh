#!/usr/bin/env bash
# fuzz.sh [SECONDS_PER_TARGET]: builds the libFuzzer targets of tests/fuzz/ in the sanitizer tree
# build-asan/ (clang-14, -DREA_FUZZ=ON: ASan + UBSan, coverage on the libraries they reach;
# scripts/build.sh) and runs each for that many seconds
# (default 20; 0 = build only) on a copy of its seed corpus. Fails if any target crashes, leaks, hangs (10 s per
# input) or breaks a property; the reproducer is kept in build-asan/crashes/<target>/ and
# `build-asan/bin/fuzz-<target> <file>` replays it. Progress and compiler output go to stderr.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-20}
dir=build-asan
bash scripts/build.sh "$dir" fuzz-targets
[[ "$seconds" == 0 ]] && exit 0

export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
for target in "$dir"/bin/fuzz-*; do
  name=${target##*/fuzz-}
  work="$dir/fuzz-work/$name"
  rm -rf "$work"
  mkdir -p "$work/corpus" "$dir/crashes/$name"
  cp tests/fuzz/corpus/"$name"/* "$work/corpus/"
  if "$target" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
      -artifact_prefix="$dir/crashes/$name/" -print_final_stats=1 "$work/corpus" \
      >"$work/log" 2>&1; then
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/log")
    echo "fuzz-$name: ok, ${runs:-?} inputs in ${seconds} s"
  else
    echo "fuzz-$name: FAILED (reproducer in $dir/crashes/$name/, log in $work/log)"
    tail -n 60 "$work/log"
    status=1
  fi
done
exit $status
