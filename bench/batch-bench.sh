#!/usr/bin/env bash
# Batch capture on one machine (issue 21): `rea capture-batch --jobs 1` against `--jobs 2` on a
# corpus of N small scenarios of every kind (bench/make-corpus.py; default 200), each a fresh
# results directory, median of RUNS runs (default 3), and whether the two results agree
# (`rea compare-batch`: no pair changed, truncated or failed, nothing on one side only; timing
# left out with a large tolerance, as the machine's load is not what is measured). Prints a
# markdown table; the done-when of issue 21 is "--jobs 2 <= 0.6 x --jobs 1" on 2 cores.
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
trap 'rm -rf "$work" /tmp/rea-corpus-files' EXIT
set -a
. examples/policy.env
set +a
python3 bench/make-corpus.py "$work/corpus" --count "$count" ${KINDS:+--kinds "$KINDS"}

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
agree=$("$rea" compare-batch --timing-tolerance-ms 600000 --format json "$work/results-j1-1" \
  "$work/results-j2-1" --out "$work/report" | python3 -c '
import json, sys
s = json.load(sys.stdin); c = s["counts"]
print("yes" if s["complete"] and c["changed"] == 0 and c["truncated"] == 0 else
      "NO (%s)" % json.dumps(c))')
echo "Batch capture of $count scenarios ($(nproc) cores, load average at start" \
  "$(cut -d' ' -f1-3 /proc/loadavg), median of $runs runs):"
echo
echo "| --jobs | wall ms | ratio to --jobs 1 |"
echo "|---|---|---|"
echo "| 1 | ${ms[1]} | 1.00 |"
echo "| 2 | ${ms[2]} | $(awk -v a="${ms[2]}" -v b="${ms[1]}" 'BEGIN {printf "%.2f", a / b}') |"
echo
echo "Results of --jobs 1 and --jobs 2 agree: $agree"
