#!/usr/bin/env bash
# Times `rea capture-process` beside the reference REA 1.4.0 (installed by
# scripts/reference-rea.sh) on the same scenarios, runs alternating (ours, theirs, ours, ...),
# and prints a markdown table of the medians. Issue 20's target: the shim scenario at ≤ 0.05 ×
# the reference's time.
#   bash bench/reference-bench.sh [RUNS] [REFERENCE_DIR]     (defaults: 5, /opt/rea-reference)
# REA_BIN names our binary (default build/bin/rea). Wall time of the whole command each side,
# so the reference's Node start-up (most of its time on small scenarios) counts, as it does for
# a user. One reference run takes ≈ 1.2-1.5 s on a quiet 2-core machine, so 5 runs of the three
# scenarios take ≈ 25 s. Without the reference it prints how to install it and exits 0.
set -euo pipefail
cd "$(dirname "$0")/.."
runs=${1:-5}
ref=${2:-/opt/rea-reference}
ours=${REA_BIN:-build/bin/rea}
[[ $runs =~ ^[1-9][0-9]*$ ]] || { echo "reference-bench: RUNS must be a positive integer" >&2; exit 2; }
if [[ ! -x $ref/node/bin/node || ! -f $ref/rea/dist/cli.js ]]; then
  echo "reference-bench: no reference REA in $ref; install it with: bash scripts/reference-rea.sh $ref"
  exit 0
fi
[[ -x $ours ]] || { echo "reference-bench: $ours is missing (bash scripts/build.sh build)" >&2; exit 1; }
ours=$(cd "$(dirname "$ours")" && pwd)/$(basename "$ours")

# Both sides read the same operator policy (REA uses the same REA_PROCESS_* variables).
set -a; . examples/policy.env; set +a
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
# Large output: seq's 589 KB; output_bytes raised because REA counts its rendered frames against
# that limit too and would mark the capture truncated at the default 1 MB.
cat >"$work/seq.json" <<'EOF'
{"approved": true, "executable": "/usr/bin/seq", "arguments": ["1", "100000"],
 "working_directory": "/tmp", "timeout_ms": 60000, "normalization": {"time_bucket_ms": 100},
 "limits": {"output_bytes": 10000000}}
EOF

rea_cmd() { "$ours" capture-process "$1"; }
reference_cmd() { PATH="$ref/node/bin:$PATH" "$ref/node/bin/node" "$ref/rea/scripts/rea.mjs" capture-process --format json "$1"; }

# run SIDE SCENARIO: one timed capture; appends its ms to $work/SIDE.ms, or says why it failed
# (and sets $failed_side for the table).
run() {
  local side=$1 scenario=$2 t0 t1 status=0
  t0=$EPOCHREALTIME
  "${side}_cmd" "$scenario" >"$work/out.json" 2>"$work/err" || status=$?
  t1=$EPOCHREALTIME
  if (( status != 0 )) || ! python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$work/out.json" 2>/dev/null; then
    echo "reference-bench: $side failed on $scenario (exit $status$( ((status)) || echo ', output is not JSON')); its stderr ends:" >&2
    if [[ -s $work/err ]]; then tail -n 8 "$work/err" >&2; else echo "  (stderr is empty)" >&2; fi
    # REA's CLI reports its errors on stdout, in the requested format.
    echo "  and its stdout ($(wc -c <"$work/out.json") bytes) begins: $(head -c 600 "$work/out.json")" >&2
    failed_side=$side
    return 1
  fi
  awk -v a="$t0" -v b="$t1" 'BEGIN {printf "%.3f\n", (b - a) * 1000}' >>"$work/$side.ms"
}
median() { sort -g "$1" | awk '{v[NR]=$1} END {m = NR % 2 ? v[(NR+1)/2] : (v[NR/2] + v[NR/2+1]) / 2; printf "%.1f", m}'; }

echo "| scenario | rea ms (median) | reference ms (median) | ratio |"
echo "|---|---|---|---|"
failed=0
for s in "examples/hello.json:hello (/bin/echo)" "examples/shim.json:shim (sh calling a git shim 3 times)" "$work/seq.json:seq 1 100000"; do
  scenario=${s%%:*} label=${s#*:}
  # One untimed pair first: warms the page cache and shows a failure before any timing.
  ok=1
  run rea "$scenario" && run reference "$scenario" || ok=0
  rm -f "$work/rea.ms" "$work/reference.ms"
  for (( i = 0; ok && i < runs; i++ )); do run rea "$scenario" && run reference "$scenario" || ok=0; done
  if (( !ok )); then echo "| $label | $failed_side failed (see stderr) | | |"; failed=1; continue; fi
  a=$(median "$work/rea.ms") b=$(median "$work/reference.ms")
  echo "| $label | $a | $b | $(awk -v a="$a" -v b="$b" 'BEGIN {printf "%.3f", a / b}') |"
done
echo
echo "ratio = rea / reference (issue 20: the shim scenario ≤ 0.05); reference REA 1.4.0 at e8ed3073 on Node $("$ref/node/bin/node" --version), $runs alternating runs each after one untimed pair."
exit $failed
