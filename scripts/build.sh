#!/usr/bin/env bash
# build.sh [DIR] [extra cmake args...]: configure (once) and build with ninja -j2.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
if [[ ! -f "$dir/build.ninja" ]]; then
  cmake -S . -B "$dir" -G Ninja "$@" >/dev/null
fi
ninja -C "$dir" -j2 | grep -vE '^\[[0-9]+/[0-9]+\] ' || true
ninja -C "$dir" -j2 >/dev/null   # fails loudly (with the error) if the build is broken
