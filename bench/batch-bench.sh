#!/usr/bin/env bash
# Batch capture on one machine (issue 21): `rea capture-batch --jobs 1` against `--jobs 2` on a
# corpus of N small scenarios of every kind (bench/make-corpus.py; default 200), each a fresh
# results directory, median of RUNS runs (default 3), and whether every run's results agree with
# the first --jobs 1 run's (`rea compare-batch`: every scenario paired, none changed, truncated or
# failed, nothing on one side only; timing left out with a large tolerance, as the machine's load
# is not what is measured). Prints a markdown table, its last row the one line to record; the
# done-when of issue 21 is "--jobs 2 <= 0.6 x --jobs 1" on 2 cores, results equal. Then its
# compare-batch check on the same corpus (bench/batch-altered.py): three altered scenarios are
# named, exactly those, with their first divergences, in summary.json and index.html (in a
# headless chromium too). Exit 1 when a scenario failed, the results disagree or the altered
# three are not named so (the table is printed first).
#   bash bench/batch-bench.sh [build-dir] [scenarios] [runs]
# Needs the policy of examples/policy.env (sourced here) and, for the replay kind, network
# namespaces (root); without them pass KINDS=echo,shell,files,interactive,shim.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
count=${2:-200}
runs=${3:-3}
rea=$(realpath "$dir/bin/rea")
work=$(mktemp -d /tmp/rea-batch-bench-XXXXXX)
trap 'rm -rf "$work"' EXIT
set -a
. examples/policy.env
set +a
python3 bench/make-corpus.py "$work/corpus" --count "$count" --files-root "$work/files" \
  ${KINDS:+--kinds "$KINDS"}

median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
declare -A ms
for jobs in 1 2; do
  times=()
  for ((run = 1; run <= runs; run++)); do
    out="$work/results-j$jobs-$run"
    began=$(date +%s%N)
    "$rea" capture-batch "$work/corpus" --out "$out" --jobs "$jobs" --format json > "$out.json"
    times+=($(( ($(date +%s%N) - began) / 1000000 )))
    failed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["counts"]["failed"])' "$out.json")
    [[ $failed == 0 ]] || { echo "--jobs $jobs run $run: $failed scenarios failed" >&2; exit 1; }
  done
  ms[$jobs]=$(printf '%s\n' "${times[@]}" | median)
done
# Every run against the first --jobs 1 run: all must agree.
disagree=()
for out in "$work"/results-j*-*[0-9]; do
  [[ $out == "$work/results-j1-1" ]] && continue
  "$rea" compare-batch --timing-tolerance-ms 600000 --format json "$work/results-j1-1" "$out" \
    --out "$out.report" >"$out.summary.json" || true
  verdict=$(python3 -c '
import json, sys
s = json.load(open(sys.argv[1])); c = s["counts"]
same = (s["complete"] and c["pairs"] == int(sys.argv[2]) and
        c["changed"] == c["truncated"] == c["failed"] == 0)
print("yes" if same else json.dumps(c))' "$out.summary.json" "$count")
  [[ $verdict == yes ]] || disagree+=("$(basename "$out"): $verdict")
done
ratio=$(awk -v a="${ms[2]}" -v b="${ms[1]}" 'BEGIN {printf "%.2f", a / b}')
target=$(awk -v r="$ratio" 'BEGIN {print (r <= 0.6 ? "yes" : "no")}')
equal=$( ((${#disagree[@]} == 0)) && echo yes || echo NO)
echo "Batch capture of $count scenarios ($(nproc) cores, load average at start" \
  "$(cut -d' ' -f1-3 /proc/loadavg), median of $runs runs; results of all $((2 * runs)) runs" \
  "compared with the first --jobs 1 run):"
echo
echo "| scenarios | --jobs 1 ms | --jobs 2 ms | ratio | <= 0.6 | results equal |"
echo "|---|---|---|---|---|---|"
echo "| $count | ${ms[1]} | ${ms[2]} | $ratio | $target | $equal |"
for d in "${disagree[@]}"; do echo "disagrees with results-j1-1: $d" >&2; done
echo
named=yes
python3 bench/batch-altered.py "$rea" "$work/corpus" "$work/results-j1-1" "$work" || named=no
[[ $equal == yes && $named == yes ]]
