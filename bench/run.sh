#!/usr/bin/env bash
# Runs every benchmark and prints its table (median of 5 runs each). Build first:
#   bash scripts/build.sh build
# then: bash bench/run.sh [build-dir]
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}
echo "commit $(git rev-parse --short HEAD), $(nproc) cores, $(uname -r), $(date -u +%F)"
for b in "$dir"/bin/*-bench; do
  echo
  echo "## $(basename "$b")"
  "$b" 5
done
