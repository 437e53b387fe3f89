#!/usr/bin/env bash
# slurm-test.sh [BUILD_DIR] [SCENARIOS]: the Slurm recipe of docs/batch.md for real (issue 21).
# As root on a Debian 12 machine: installs Debian's slurm-wlm and munge (quiet when present),
# starts a single-node cluster of this machine (munged, slurmctld, slurmd, with a configuration
# and state of their own in a temporary directory), submits examples/cluster/capture-batch.sbatch
# as a job array of 4 tasks over a corpus of SCENARIOS (default 24) from bench/make-corpus.py,
# waits for it, and checks that the merged results equal a local `rea capture-batch --jobs 2`
# run: the same ids, no failure, and `rea compare-batch` finds no pair changed, truncated or
# failed and none on one side only (timing is left out: this machine's load is not the test).
# Then it stops the daemons it started and removes everything it made. Exit 0 when the check
# passed, 1 when it failed, 77 when it cannot run here (not root). Not run by CI: it installs
# packages and starts system daemons; run it by hand on a fresh machine.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
count=${2:-24}
tasks=4
[[ $(id -u) == 0 ]] || { echo "slurm-test.sh: needs root (it starts munged and slurmd)" >&2; exit 77; }
rea=$(realpath "$build/bin/rea")
[[ -x $rea ]] || { echo "slurm-test.sh: build rea first (bash scripts/build.sh $build rea)" >&2; exit 1; }

missing=()
for p in slurm-wlm munge; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if (( ${#missing[@]} )); then
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}" >/dev/null
fi

work=$(mktemp -d /tmp/rea-slurm-test-XXXXXX)
chmod 755 "$work"
pids=()
cleanup() {
  if [[ -n ${SLURM_CONF:-} ]]; then scancel --quiet --name=rea-capture-batch 2>/dev/null || true; fi
  for pidfile in "$work"/slurmd.pid "$work"/slurmctld.pid "$work"/munged.pid; do
    [[ -f $pidfile ]] && kill "$(cat "$pidfile")" 2>/dev/null || true
  done
  sleep 1
  rm -rf "$work" /tmp/rea-corpus-files
}
trap cleanup EXIT

# munge: a key and a daemon of our own (socket, pid and log in $work).
mkdir -p "$work/munge"
dd if=/dev/urandom of="$work/munge/munge.key" bs=1024 count=1 status=none
chmod 600 "$work/munge/munge.key"
munged --force --key-file="$work/munge/munge.key" --socket="$work/munge/socket" \
  --pid-file="$work/munged.pid" --log-file="$work/munge/log" --seed-file="$work/munge/seed"

# One node: this machine, all its CPUs, one partition; no cgroup plugins (captures make their own).
host=$(hostname -s)
mkdir -p "$work/state" "$work/spool"
cat > "$work/slurm.conf" <<CONF
ClusterName=rea-test
SlurmctldHost=$host
SlurmUser=root
SlurmdUser=root
SlurmctldPort=6917
SlurmdPort=6918
AuthType=auth/munge
AuthInfo=socket=$work/munge/socket
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
NodeName=$host CPUs=$(nproc) State=UNKNOWN
PartitionName=rea Nodes=$host Default=YES MaxTime=INFINITE State=UP OverSubscribe=YES
CONF
export SLURM_CONF="$work/slurm.conf"
slurmctld -f "$SLURM_CONF"
slurmd -f "$SLURM_CONF"
for _ in $(seq 60); do
  sinfo -h -o '%T' 2>/dev/null | grep -qE '^(idle|mixed|allocated)' && break
  sleep 1
done
sinfo -h -o '%T' | grep -qE '^(idle|mixed|allocated)' || {
  echo "slurm-test.sh: the node did not come up" >&2; tail -20 "$work"/slurm*.log >&2; exit 1; }

set -a
. examples/policy.env
set +a
python3 bench/make-corpus.py "$work/corpus" --count "$count"
"$rea" capture-batch "$work/corpus" --out "$work/local" --jobs 2 --format json > "$work/local.json"

# The recipe as a user submits it: one array task per shard, each with one CPU, the policy file.
REA=$rea sbatch --wait --array=0-$((tasks - 1)) --cpus-per-task=1 \
  --output="$work/task-%a.log" --chdir="$work" \
  examples/cluster/capture-batch.sbatch "$work/corpus" "$work/slurm" "$PWD/examples/policy.env" \
  > "$work/sbatch.out" || { echo "slurm-test.sh: the array failed" >&2; cat "$work"/task-*.log >&2; exit 1; }

"$rea" compare-batch --timing-tolerance-ms 600000 --format json "$work/local" "$work/slurm" \
  --out "$work/report" > "$work/summary.json" || true
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
