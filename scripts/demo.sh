#!/usr/bin/env bash
# Installs, builds, and captures the bundled example scenario under the bundled example policy.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
bash scripts/build.sh build
set -a; source examples/policy.env; set +a
exec ./build/bin/rea capture-process --pretty examples/hello.json
