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
  # the Slurm recipe on a single-node cluster (scripts/slurm-test.sh, the stage `slurm`)
  slurm-wlm munge
)
# Debian's kubectl (kubernetes-client 1.20) for tests/cluster/recipes-test.py --kubectl: unpacked
# into a directory of its own, not installed, because a machine may already have another kubectl
# owning /usr/bin/kubectl (Google Cloud's `kubectl` package here), which the package conflicts
# with, and the test wants Debian's.
KUBECTL_DIR=/usr/local/lib/rea-test/kubernetes-client

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

if [[ "${1:-}" == "--test" && ! -x $KUBECTL_DIR/usr/bin/kubectl ]]; then
  echo "setup: unpacking kubernetes-client into $KUBECTL_DIR" >&2
  download=$(mktemp -d)
  chmod 755 "$download"
  # apt-get download runs as _apt where it can (a warning otherwise): let it write there.
  chown _apt "$download" 2>/dev/null || true
  if ! (cd "$download" && apt-get download -qq kubernetes-client 2>/dev/null); then
    apt-get update -qq >/dev/null # a machine whose package lists were never fetched
    (cd "$download" && apt-get download -qq kubernetes-client)
  fi
  rm -rf "$KUBECTL_DIR.new" "$KUBECTL_DIR"
  mkdir -p "$(dirname "$KUBECTL_DIR")"
  dpkg-deb -x "$download"/kubernetes-client_*.deb "$KUBECTL_DIR.new"
  mv "$KUBECTL_DIR.new" "$KUBECTL_DIR"
  rm -rf "$download"
fi
