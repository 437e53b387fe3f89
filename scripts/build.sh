#!/usr/bin/env bash
# build.sh [DIR] [extra cmake args...]: configure (once) and build with ninja -j2. Progress and
# compiler messages go to stderr, so a caller's stdout stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
if [[ ! -f "$dir/build.ninja" ]]; then
  cmake -S . -B "$dir" -G Ninja "$@" >&2
fi
ninja -C "$dir" -j2 >&2
