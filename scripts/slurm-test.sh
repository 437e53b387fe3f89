#!/usr/bin/env bash
# slurm-test.sh [BUILD_DIR] [SCENARIOS] [TASKS]: the Slurm recipe of docs/batch.md for real
# (issue 21). As root on a Debian 12 machine, with or without systemd: installs Debian's
# slurm-wlm and munge when missing (scripts/setup.sh --test installs them for CI), starts a
# single-node cluster of this machine (munged, slurmctld, slurmd in the foreground of this
# script, with a configuration, key, state, sockets and logs of their own in a temporary
# directory, on two free TCP ports), submits examples/cluster/capture-batch.sbatch as a job array
# of TASKS tasks (default 4) over a corpus of SCENARIOS (default 24) from bench/make-corpus.py,
# waits for it, and checks that the merged results equal a local `rea capture-batch --jobs 2`
# run: the same ids, no failure, every task's shard taken from the array's variables, and
# `rea compare-batch` finds no pair changed, truncated or failed and none on one side only
# (timing is left out: this machine's load is not the test). Whatever happens it then cancels
# the array, stops the daemons it started, ends any process of its cluster left behind, and
# removes everything it made.
#
# CI (scripts/test.sh, stage `slurm`) runs it with 8 scenarios in 4 tasks; run it by hand with the
# defaults, or a larger corpus, on a fresh machine. Exit 0 when the check passed, 1 when it failed
# (the reason and the daemons' logs printed), 77 when it cannot run here (not root).
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
count=${2:-24}
tasks=${3:-4}
me=slurm-test.sh
fail() {
  echo "$me: $*" >&2
  exit 1
}
[[ $(id -u) == 0 ]] || {
  echo "$me: needs root (it starts munged and slurmd)" >&2
  exit 77
}
rea=$(realpath "$build/bin/rea")
[[ -x $rea ]] || fail "build rea first (bash scripts/build.sh $build rea)"

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if ((${#missing[@]})); then
  echo "$me: installing ${missing[*]}" >&2
  apt-get update -qq >/dev/null
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/rea-slurm-test-XXXXXX)
chmod 755 "$work"
conf=$work/slurm.conf
declare -A daemon # name -> pid, for the daemons this script started

ours() {
  # The pids of every process of this cluster: the daemons, the job steps slurmd started and the
  # jobs' programs all inherit SLURM_CONF=$conf (sbatch exports the submitter's environment), and
  # nothing else on the machine has it.
  local environ
  for environ in /proc/[0-9]*/environ; do
    { tr '\0' '\n' <"$environ"; } 2>/dev/null | grep -qxF "SLURM_CONF=$conf" &&
      basename "$(dirname "$environ")"
  done
}

stop() {
  # stop PID SECONDS: SIGTERM, then SIGKILL when it has not exited within SECONDS.
  local pid=$1 i
  kill "$pid" 2>/dev/null || return 0
  for ((i = 0; i < $2 * 10; i++)); do
    kill -0 "$pid" 2>/dev/null || return 0
    sleep 0.1
  done
  echo "$me: pid $pid did not stop within $2 s; killing it" >&2
  kill -9 "$pid" 2>/dev/null || true
}

cleanup() {
  local status=$? name pid i
  trap - EXIT INT TERM
  if [[ -n ${daemon[slurmctld]:-} ]] && kill -0 "${daemon[slurmctld]}" 2>/dev/null; then
    # Cancel whatever of the array still runs (a failed or timed-out wait), while the daemons
    # that can end it are up, and give it a bounded time to go (each client call is bounded
    # too: a client retries an unanswering controller for a long time).
    timeout 10 scancel --quiet --name=rea-capture-batch 2>/dev/null || true
    for ((i = 0; i < 50; i++)); do
      [[ -z $(timeout 5 squeue -h -o %i 2>/dev/null) ]] && break
      sleep 0.2
    done
  fi
  for name in slurmd slurmctld munged; do
    [[ -n ${daemon[$name]:-} ]] && stop "${daemon[$name]}" 10
  done
  # A job step outlives a killed slurmd: end every process of this cluster still there (the
  # sweep's own commands must not carry the variable it looks for).
  unset SLURM_CONF
  for pid in $(ours); do
    echo "$me: ending pid $pid ($(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null)), left by the cluster" >&2
    kill -9 "$pid" 2>/dev/null || true
  done
  rm -rf "$work"
  exit "$status"
}
trap cleanup EXIT
trap 'echo "$me: interrupted" >&2; exit 1' INT TERM

logs() {
  local log
  for log in "$work"/*.log "$work"/munge/log; do
    [[ -s $log ]] || continue
    echo "==> the end of $log:" >&2
    tail -n 20 "$log" >&2
  done
}

wait_for() {
  # wait_for SECONDS WHAT COMMAND...: polls COMMAND until it succeeds; after SECONDS, fails
  # naming WHAT, with the daemons' logs.
  local seconds=$1 what=$2 i
  shift 2
  for ((i = 0; i < seconds * 5; i++)); do
    "$@" >/dev/null 2>&1 && return 0
    sleep 0.2
  done
  logs
  fail "$what did not happen within $seconds s"
}

free_ports() {
  # free_ports N: N distinct TCP ports nothing listens on, outside the kernel's ephemeral range
  # (a port taken between this check and the daemon's bind fails the start, clearly).
  local p found=()
  for p in $(shuf -i 20000-29999 -n 500); do
    [[ -n $(ss -Hltn "sport = :$p") ]] && continue
    found+=("$p")
    ((${#found[@]} == $1)) && break
  done
  ((${#found[@]} == $1)) || fail "found no $1 free TCP ports in 20000-29999"
  echo "${found[@]}"
}

# munge: a key and a daemon of our own (socket, pid, seed and log in $work).
mkdir -p "$work/munge"
socket=$work/munge/socket
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
# --force: $work lies under /tmp, which munged otherwise refuses as writable by others.
setsid munged --foreground --force --key-file="$work/munge/munge.key" --socket="$socket" \
  --pid-file="$work/munge/pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed" \
  >"$work/munged.out" 2>&1 &
daemon[munged]=$!
wait_for 10 "munged's socket" test -S "$socket"
munge -n -S "$socket" | unmunge -S "$socket" >/dev/null || fail "munge cannot encode and decode a credential"

# One node: this machine under its short name, all its CPUs, one partition; no cgroup plugins
# (captures make their own). Every address is given (127.0.0.1), so nothing depends on the name
# resolving: a fresh machine's /etc/hosts may not list it. slurmctld checks that it runs on
# SlurmctldHost by comparing the name with this machine's short name, not by address.
host=$(hostname -s)
ports=$(free_ports 2)
read -r ctld_port slurmd_port <<<"$ports"
mkdir -p "$work/state" "$work/spool"
cat >"$conf" <<CONF
ClusterName=rea-test
SlurmctldHost=$host(127.0.0.1)
SlurmUser=root
SlurmdUser=root
SlurmctldPort=$ctld_port
SlurmdPort=$slurmd_port
AuthType=auth/munge
AuthInfo=socket=$socket
StateSaveLocation=$work/state
SlurmdSpoolDir=$work/spool
SlurmctldPidFile=$work/slurmctld.pid
SlurmdPidFile=$work/slurmd.pid
SlurmctldLogFile=$work/slurmctld.log
SlurmdLogFile=$work/slurmd.log
ProctrackType=proctrack/linuxproc
TaskPlugin=task/none
JobAcctGatherType=jobacct_gather/none
AccountingStorageType=accounting_storage/none
SelectType=select/cons_tres
SelectTypeParameters=CR_CPU
MpiDefault=none
ReturnToService=2
NodeName=$host NodeAddr=127.0.0.1 NodeHostname=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=rea Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF=$conf
# -D: in the foreground of this script (no systemd or init script needed, and the pid is known);
# setsid (here and for munged): in a session of their own, so that a Ctrl-C meant for this script
# does not stop them before the cleanup has cancelled the array through them; -N: the node is this machine whatever its name resolves to.
setsid slurmctld -D -f "$conf" >"$work/slurmctld.out" 2>&1 &
daemon[slurmctld]=$!
ctld_up() { scontrol ping | grep -q 'is UP'; }
wait_for 30 "slurmctld answering on port $ctld_port" ctld_up
setsid slurmd -D -N "$host" -f "$conf" >"$work/slurmd.out" 2>&1 &
daemon[slurmd]=$!
node_up() { sinfo -h -o '%T' | grep -qE '^(idle|mixed|allocated)'; }
wait_for 60 "node $host becoming idle (slurmd registering with slurmctld)" node_up
for name in "${!daemon[@]}"; do
  kill -0 "${daemon[$name]}" 2>/dev/null || {
    logs
    fail "$name exited at start"
  }
done

set -a
. examples/policy.env
set +a
python3 bench/make-corpus.py "$work/corpus" --count "$count" --files-root "$work/files"
"$rea" capture-batch "$work/corpus" --out "$work/local" --jobs 2 --format json >"$work/local.json"

# The recipe as a user submits it: one array task per shard, each with one CPU, the policy file.
# sbatch --wait has no time limit of its own; the array of a small corpus ends in well under a
# minute on two cores. --foreground: timeout stays in this script's process group, so a Ctrl-C
# reaches sbatch too and the cleanup runs at once.
limit=$((120 + 10 * count))
REA=$rea timeout --foreground "$limit" sbatch --wait --array=0-$((tasks - 1)) --cpus-per-task=1 \
  --output="$work/task-%a.log" --chdir="$work" \
  examples/cluster/capture-batch.sbatch "$work/corpus" "$work/slurm" "$PWD/examples/policy.env" \
  >"$work/sbatch.out" 2>&1 || {
  status=$?
  cat "$work/sbatch.out" >&2
  squeue >&2 || true
  logs
  ((status == 124)) && fail "the array did not end within $limit s"
  fail "the array failed (sbatch exit $status)"
}

"$rea" compare-batch --timing-tolerance-ms 600000 --format json "$work/local" "$work/slurm" \
  --out "$work/report" >"$work/summary.json" || true
python3 - "$work" "$tasks" "$count" <<'PY'
import glob, json, os, sys
work, tasks, count = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
problems = []
shards = sorted(glob.glob(os.path.join(work, "slurm", "results-shard-*-of-%d.json" % tasks)))
if len(shards) != tasks:
    problems.append("expected %d shard records, found %d" % (tasks, len(shards)))
seen = []
for path in shards:
    record = json.load(open(path))
    if record["shard"]["source"] != "SLURM_ARRAY_TASK_ID":
        problems.append("%s: shard from %s" % (path, record["shard"]["source"]))
    if record["counts"]["failed"]:
        problems.append("%s: %d failed" % (path, record["counts"]["failed"]))
    seen += [r["id"] for r in record["results"]]
local = json.load(open(os.path.join(work, "local.json")))
if local["counts"]["failed"]:
    problems.append("the local run: %d failed" % local["counts"]["failed"])
ids = sorted(r["id"] for r in local["results"])
if sorted(seen) != ids or len(ids) != count:
    problems.append("the shards' ids differ from the local run's")
summary = json.load(open(os.path.join(work, "summary.json")))
c = summary["counts"]
if not summary["complete"] or c["changed"] or c["truncated"] or c["pairs"] != count:
    problems.append("compare-batch: %s" % json.dumps(c))
for p in problems:
    print("slurm-test.sh: " + p)
print("slurm-test.sh: %d scenarios in %d array tasks: %s" %
      (count, tasks, "the merged results equal the local run" if not problems else "FAILED"))
sys.exit(1 if problems else 0)
PY
