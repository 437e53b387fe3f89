#!/usr/bin/env bash
# Installs what rea needs, builds rea and the helpers it starts (nothing else: the release tree
# build-release/, without the tests' fault injection), and captures the bundled example
# scenario under the bundled example policy. Set-up and build output go to
# build-logs/demo.log and are shown only when something fails, so what you read first is the
# capture.
set -euo pipefail
cd "$(dirname "$0")/.."
mkdir -p build-logs
log=build-logs/demo.log
if ! { bash scripts/setup.sh && bash scripts/build.sh build-release rea; } >"$log" 2>&1; then
  tail -n 40 "$log" >&2
  echo "demo: setting up or building failed; the whole output is in $log" >&2
  exit 1
fi
set -a
source examples/policy.env
set +a
exec ./build-release/bin/rea capture-process --pretty examples/hello.json
