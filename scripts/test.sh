#!/usr/bin/env bash
# Installs what is needed, builds the normal tree (build/) and the sanitizer tree with the fuzz
# targets (build-asan/), and runs every test through CTest in both trees plus every fuzz
# target briefly. Stages that do not depend on each other overlap (tests/README.md "CI time"):
#
#   setup ─ build ─┬─ tests (build) ──────────────┐
#                  └─ build-asan ─┬─ tests (build-asan) ─┴─ serial tests (both) ─ slurm ─ times
#                                 └─ fuzz ───────────────┘
#
# slurm: scripts/slurm-test.sh on a small corpus (8 scenarios, an array of 4 tasks) on a
# single-node Slurm cluster it starts on this machine; run by hand with its defaults for more.
#
# Each stage's output goes to build-logs/<stage>.log; a failed stage's log tail is printed. The
# time of each stage is printed at the end, so a slower CI shows at the next landing. Exit status
# 0 only when every stage passed.
set -uo pipefail
cd "$(dirname "$0")/.."
logs=build-logs
rm -rf "$logs"
mkdir -p "$logs"
began=$(date +%s)

stage() {
  # stage NAME COMMAND...: runs COMMAND with its output in $logs/NAME.log and records the outcome
  # and the seconds it took in $logs/NAME.result.
  local name=$1 start status
  shift
  start=$(date +%s)
  if "$@" >"$logs/$name.log" 2>&1; then status=ok; else status=FAILED; fi
  echo "$status $(($(date +%s) - start))" >"$logs/$name.result"
  [[ $status == ok ]]
}

ctest_stage() {
  # ctest_stage DIR TIMEOUT CTEST-ARGS...: every test of the tree DIR through CTest. Tests wait
  # on real processes and timers far more than they compute, so four run at once on two cores.
  local dir=$1 timeout=$2
  shift 2
  (cd "$dir" && ctest --output-on-failure --timeout "$timeout" "$@")
}

export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1

stage setup bash scripts/setup.sh --test &&
  stage build bash scripts/build.sh build && {
  stage tests-build ctest_stage build 300 -j4 -LE serial &
  normal=$!
  stage build-asan bash scripts/build.sh build-asan && {
    stage tests-build-asan ctest_stage build-asan 600 -j4 -LE serial &
    sanitized=$!
    # Hostile input: every libFuzzer target for a short fixed time (tests/fuzz/README.md).
    stage fuzz bash scripts/fuzz.sh 10
    wait $sanitized
  }
  wait $normal
  # Tests that must have the machine to themselves (ctest label serial), after everything else.
  stage serial-tests sh -c 'cd build && ctest --output-on-failure --timeout 300 -L serial &&
    cd ../build-asan && ctest --output-on-failure --timeout 600 -L serial'
  # The Slurm recipe for real (issue 21), last: it starts daemons of its own and captures.
  stage slurm bash scripts/slurm-test.sh build 8 4
}

STAGES="setup build tests-build build-asan tests-build-asan fuzz serial-tests slurm"
status=0
echo
echo "stage              result  seconds"
for name in $STAGES; do
  if [[ -f "$logs/$name.result" ]]; then
    read -r result seconds <"$logs/$name.result"
  else
    result="not run" seconds=-
  fi
  printf '%-18s %-7s %7s\n' "$name" "$result" "$seconds"
  [[ $result == ok ]] || status=1
done
printf '%-18s %-7s %7s\n' total "" "$(($(date +%s) - began))"

for name in $STAGES; do
  [[ -f "$logs/$name.result" ]] || continue
  read -r result seconds <"$logs/$name.result"
  [[ $result == ok ]] && continue
  echo
  echo "==> $name FAILED; the end of $logs/$name.log:"
  tail -n 150 "$logs/$name.log"
done
echo
# How many tests ran in each stage (the count CI must not lose).
for name in tests-build tests-build-asan serial-tests fuzz; do
  [[ -f "$logs/$name.log" ]] && grep -h 'tests passed\|tests failed\|^fuzz-' "$logs/$name.log" |
    sed "s/^/$name: /"
done
[[ -f "$logs/slurm.log" ]] && grep -h 'array tasks' "$logs/slurm.log" | sed 's/^/slurm: /'
# Last, where a short view of this output still shows it: the lines that say why each failed
# test failed (ctest prints a failed test's output right after its result line).
for name in tests-build tests-build-asan serial-tests; do
  [[ -f "$logs/$name.log" ]] || continue
  awk -v stage="$name" '
    /^ *[0-9]+\/[0-9]+ Test +#[0-9]+: .*\*\*\*/ && !/\*\*\*Skipped/ {
      on = (shown++ < 4); n = 0
      if (on) { sub(/ \.\.\.+.*\*\*\*/, " ***"); print "why " stage ":" $0 }
      next
    }
    /^ *[0-9]+\/[0-9]+ Test +#|^ +Start +[0-9]+:/ { on = 0 }
    on && /Failure|Expected|Actual|Which is|Value of|error|left|took|Timeout/ {
      if (n++ < 6) print "    " substr($0, 1, 200)
    }' "$logs/$name.log"
done
exit $status
