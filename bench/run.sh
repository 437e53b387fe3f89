#!/usr/bin/env bash
# The benchmark runner: runs every build/bin/*-bench program and bench/reference-bench.sh (median
# of RUNS runs each, default 5; every figure beside a reference measured in the same run) and
# writes their tables into bench/README.md between the `bench:results` markers, with the commit,
# the machine and the load it ran under. Build first (bash scripts/build.sh build), then:
#   bash bench/run.sh [build-dir] [runs]
# Prints the tables as it goes; `--no-write` leaves README.md untouched.
set -euo pipefail
cd "$(dirname "$0")/.."
write=1
args=()
for a in "$@"; do
  if [[ $a == --no-write ]]; then write=0; else args+=("$a"); fi
done
dir=${args[0]:-build}
runs=${args[1]:-5}
out=$(mktemp)
trap 'rm -f "$out"' EXIT
start=$(date +%s)
{
  echo "Run of $(date -u '+%F %H:%M UTC') at commit $(git rev-parse --short HEAD): $(nproc) cores,"
  echo "kernel $(uname -r), load average at start $(cut -d' ' -f1-3 /proc/loadavg), median of $runs runs."
} | tee "$out"
for b in "$dir"/bin/*-bench; do
  name=$(basename "$b")
  printf '\n### %s\n\n' "$name" | tee -a "$out"
  began=$(date +%s)
  if ! "$b" "$runs" 2>&1 | tee -a "$out"; then
    echo "($name failed)" | tee -a "$out"
  fi
  printf '\n(%s took %d s)\n' "$name" $(( $(date +%s) - began )) | tee -a "$out"
done
# The reference REA (scripts/reference-rea.sh installs it; without it this prints one line): a
# shell script, not a build/bin/*-bench program, so it is run here by name, on the same rea.
printf '\n### reference-bench\n\n' | tee -a "$out"
began=$(date +%s)
if ! REA_BIN="$dir/bin/rea" bash bench/reference-bench.sh "$runs" 2>&1 | tee -a "$out"; then
  echo "(reference-bench failed)" | tee -a "$out"
fi
printf '\n(reference-bench took %d s)\n' $(( $(date +%s) - began )) | tee -a "$out"
printf '\nWhole run: %d s.\n' $(( $(date +%s) - start )) | tee -a "$out"

if (( write )); then
  python3 - "$out" bench/README.md <<'PY'
import sys
results, readme = sys.argv[1], sys.argv[2]
text = open(readme).read()
begin, end = "<!-- bench:results:begin -->", "<!-- bench:results:end -->"
if begin not in text or end not in text:
    sys.exit("bench/README.md has no bench:results markers")
head, rest = text.split(begin, 1)
_, tail = rest.split(end, 1)
open(readme, "w").write(head + begin + "\n" + open(results).read() + end + tail)
PY
  echo "bench/README.md updated" >&2
fi
