#!/usr/bin/env bash
# Installs every Debian package rea needs to build, test and benchmark.
# Idempotent: when everything is present it prints nothing and does not touch apt.
set -euo pipefail

PACKAGES=(
  # build
  build-essential cmake ninja-build pkg-config clang-14 libclang-rt-14-dev clang-format
  # libraries
  capnproto libcapnp-dev libvterm-dev libseccomp-dev liburing-dev libssl-dev
  nlohmann-json3-dev libgtest-dev libgmock-dev
  # what the tests and benchmarks call
  util-linux bsdutils procps coreutils curl python3 python3-jsonschema iproute2 hyperfine time
  asciinema groff-base chromium
)

missing=()
for p in "${PACKAGES[@]}"; do
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
