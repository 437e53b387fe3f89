#!/usr/bin/env bash
# setup.sh [--test]: installs the Debian packages rea needs to build (and, with --test, to run
# its tests, fuzz targets and benchmarks). Idempotent: when everything is present it prints
# nothing and does not touch apt.
set -euo pipefail

BUILD=(
  build-essential cmake ninja-build pkg-config lld
  capnproto libcapnp-dev libvterm-dev libseccomp-dev liburing-dev libssl-dev nlohmann-json3-dev
  libcli11-dev
  # configuring the project finds GoogleTest even when only rea is built
  libgtest-dev libgmock-dev
)
TEST=(
  clang-14 libclang-rt-14-dev clang-format
  # what the tests and benchmarks call
  util-linux bsdutils procps coreutils curl python3 python3-jsonschema python3-yaml iproute2
  hyperfine time
  asciinema groff-base man-db chromium
  # the differential renderer test (tests/unit/render-diff) replays transcripts into tmux;
  # the real programs it records (scripts/record-transcript.py) and that
  # tests/integration/real-programs-test.c++ captures (procps gives top and watch)
  tmux vim-tiny nano htop dialog less bash
)

packages=("${BUILD[@]}")
[[ "${1:-}" == "--test" ]] && packages+=("${TEST[@]}")

missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done

if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}" >&2
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq >/dev/null
  apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi
