#!/bin/sh
# ctest mcp.sdk-client: `rea mcp` driven by the official MCP client SDK (@modelcontextprotocol/sdk,
# the version pinned by package-lock.json), so interoperability is checked with code this
# project did not write. Usage: run.sh WORKDIR REA. Installs the SDK into WORKDIR with `npm ci`
# (once per lock file) and runs client.mjs there. Exits 77 (ctest's SKIP_RETURN_CODE) when
# node or npm is missing or the registry cannot be reached.
set -u
if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1; then
  echo "mcp.sdk-client: node or npm is not installed: skipped"
  exit 77
fi
src=$(cd "$(dirname "$0")" && pwd)
work=$1
rea=$2
mkdir -p "$work"
if ! cmp -s "$src/package-lock.json" "$work/.installed-lock" ||
  [ ! -d "$work/node_modules/@modelcontextprotocol/sdk" ]; then
  cp "$src/package.json" "$src/package-lock.json" "$work/"
  if ! (cd "$work" && timeout 600 npm ci --no-audit --no-fund --ignore-scripts >npm.log 2>&1); then
    tail -5 "$work/npm.log"
    # Only an unreachable registry is a reason to skip; a broken lock file is a failure.
    if ! (cd "$work" && timeout 60 npm ping >/dev/null 2>&1); then
      echo "mcp.sdk-client: the npm registry cannot be reached: skipped"
      exit 77
    fi
    echo "mcp.sdk-client: npm ci failed"
    exit 1
  fi
  cp "$src/package-lock.json" "$work/.installed-lock"
fi
cp "$src/client.mjs" "$work/client.mjs"
exec node "$work/client.mjs" "$rea"
