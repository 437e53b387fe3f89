#!/bin/sh
# xterm.js as a second oracle for the renderer (tests/unit/render-diff/README.md).
#
#   scripts/xtermjs-oracle.sh FILE.json              xterm.js's screen after every step
#   REA_DIFF_SIZE=CxR REA_DIFF_STEPS=... scripts/xtermjs-oracle.sh
#   scripts/xtermjs-oracle.sh --compare DIR [NAME...]  which of rea, tmux, xterm.js agree on the
#                                                      corpus dumped by REA_DIFF_DUMP=DIR
#
# Installs the pinned @xterm/headless (scripts/xtermjs-oracle/package-lock.json) with `npm ci`
# into $REA_XTERMJS_DIR (default build/xtermjs-oracle, ignored by git) the first time, or when
# the lock file changed. Needs node (>= 18) and npm.
set -eu
root=$(cd "$(dirname "$0")/.." && pwd)
source_dir="$root/scripts/xtermjs-oracle"
install_dir=${REA_XTERMJS_DIR:-$root/build/xtermjs-oracle}
if ! cmp -s "$source_dir/package-lock.json" "$install_dir/package-lock.json" ||
   [ ! -d "$install_dir/node_modules/@xterm/headless" ]; then
  mkdir -p "$install_dir"
  cp "$source_dir/package.json" "$source_dir/package-lock.json" "$install_dir/"
  (cd "$install_dir" && npm ci --no-audit --no-fund --loglevel=error >&2)
fi
export NODE_PATH="$install_dir/node_modules"
if [ "${1:-}" = "--compare" ]; then
  shift
  exec node "$source_dir/compare.js" "$@"
fi
exec node "$source_dir/xtermjs-oracle.js" "$@"
