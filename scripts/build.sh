#!/usr/bin/env bash
# build.sh [DIR [TARGET...]]: configures DIR once (default build/) and builds the targets
# (default: everything) with ninja -j2. The directory's name picks the configuration:
#   build-asan  clang-14, AddressSanitizer + UndefinedBehaviorSanitizer (-O0; evidence/ -O1), the
#               tests and the libFuzzer targets (-DREA_FUZZ=ON), no benchmarks
#   build-release  the release tree (scripts/demo.sh, installs): g++, RelWithDebInfo, no tests, no
#               benchmarks and no fault injection (helpers/common/fault-injection.h)
#   any other   the normal tree: g++, RelWithDebInfo (-O2 -g1), tests and benchmarks (and the
#               helpers' fault injection the tests need)
# Progress and compiler messages go to stderr, so a caller's stdout stays clean.
set -euo pipefail
cd "$(dirname "$0")/.."
dir=${1:-build}; shift || true
if [[ ! -f "$dir/build.ninja" ]]; then
  case "$(basename "$dir")" in
    build-asan)
      CC=clang-14 CXX=clang++-14 cmake -S . -B "$dir" -G Ninja -DREA_SANITIZE=ON -DREA_FUZZ=ON \
        -DCMAKE_BUILD_TYPE=Debug -DREA_BUILD_BENCH=OFF \
        -DCMAKE_CXX_FLAGS_DEBUG=-g1 -DCMAKE_C_FLAGS_DEBUG=-g1 >&2 ;;
    build-release)
      cmake -S . -B "$dir" -G Ninja -DREA_BUILD_TESTS=OFF -DREA_BUILD_BENCH=OFF \
        -DREA_FAULT_INJECTION=OFF >&2 ;;
    *)
      cmake -S . -B "$dir" -G Ninja >&2 ;;
  esac
fi
ninja -C "$dir" -j2 "$@" >&2
