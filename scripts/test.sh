#!/usr/bin/env bash
# Installs what is needed, builds the normal and the ASan+UBSan trees, and runs every test
# through CTest in both. Exit status is CTest's.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
bash scripts/build.sh build-asan -DREA_SANITIZE=ON -DCMAKE_BUILD_TYPE=Debug
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
status=0
(cd build && ctest --output-on-failure -j2 --timeout 300) || status=1
(cd build-asan && ctest --output-on-failure -j2 --timeout 600) || status=1
# Hostile input: every libFuzzer target for a short fixed time (scripts/fuzz.sh, tests/fuzz/README.md).
bash scripts/fuzz.sh 10 || status=1
exit $status
