#!/usr/bin/env python3
"""The cluster recipes of docs/batch.md stay consistent with rea (issue 21).

recipes-test.py SOURCE_DIR REA: the recipes against rea's conventions.
- examples/cluster/capture-batch-job.yaml: a batch/v1 Indexed Job whose REA_SHARD_COUNT equals
  spec.completions (rea's shard count must be the number of indexes Kubernetes hands out), whose
  container runs `rea capture-batch` with --out, with the capture policy variables, privileged
  (docs/batch.md says why). Then the manifest's pods as rea sees them: for every index
  Kubernetes hands out, the real REA runs with the container's environment as the manifest
  writes it (names and values read from the YAML) plus JOB_COMPLETION_INDEX, and must take
  shard INDEX/completions from it, the shards splitting a small corpus between them; so the
  manifest and rea's detection (evidence/batch-shard.h) cannot drift apart. And, when kubectl
  can reach an API server, `kubectl apply --dry-run=client` accepts it (client-side validation
  needs the server's OpenAPI document; without a cluster that step is reported as skipped).
- examples/cluster/capture-batch.sbatch: parses (bash -n), runs `rea capture-batch` and sets no
  shard itself (rea reads the array's variables; scripts/slurm-test.sh runs it on a cluster).

recipes-test.py --kubectl SOURCE_DIR: the manifest through Debian's kubectl (kubernetes-client,
1.20; scripts/setup.sh --test unpacks it into KUBECTL_DIR), the strongest check that client can
make without an API server. `kubectl apply|create --dry-run=client` cannot run at all without one
(they ask the server which resource a kind is, and --validate downloads the server's OpenAPI
document; no schema ships with the client). What runs offline is decoding into the client's own
Go types: `kubectl set env --local -o json` decodes the manifest as a batch/v1 Job of the
client's version (a value of the wrong type is an error), changes one probe variable, and prints
the object; a field the types do not have is dropped silently. So every field of the manifest must
come back unchanged, except those newer than the client (NEWER_FIELDS: Kubernetes 1.20 predates
Indexed Jobs), which must be dropped, and which this test checks itself. That proves every other
field name, place and value type is right for batch/v1 as of the client's version; it cannot
prove what only a server decides (the newer fields' schema, enum values such as restartPolicy,
defaults, admission such as Pod Security allowing privileged, the volume claim existing).

Exit 0 when consistent, 1 with each problem printed, 77 when PyYAML or (--kubectl) Debian's
kubectl is missing.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

try:
    import yaml
except ImportError:
    print("recipes-test.py: PyYAML (python3-yaml) is not installed")
    sys.exit(77)

MANIFEST = "examples/cluster/capture-batch-job.yaml"
# Where scripts/setup.sh --test unpacks Debian's kubernetes-client (not installed as a package: a
# machine may have another kubectl owning /usr/bin/kubectl, which the package conflicts with).
KUBECTL_DIR = "/usr/local/lib/rea-test/kubernetes-client"
# Fields of the manifest newer than some kubectl, with the Kubernetes version that introduced them
# (as alpha; both are on by default from the version after).
NEWER_FIELDS = {
    ("spec", "completionMode"): (1, 21),        # Indexed Jobs: beta 1.22, GA 1.24
    ("spec", "backoffLimitPerIndex"): (1, 28),  # beta 1.29, GA 1.33
}


def load_manifest(source):
    with open(os.path.join(source, MANIFEST)) as f:
        return yaml.safe_load(f)


def check_manifest(job, problems):
    spec = job.get("spec", {})
    if job.get("apiVersion") != "batch/v1" or job.get("kind") != "Job":
        problems.append("the manifest is not a batch/v1 Job")
    if spec.get("completionMode") != "Indexed":
        problems.append("the Job is not Indexed (no JOB_COMPLETION_INDEX in its pods)")
    completions = spec.get("completions")
    if not isinstance(completions, int) or completions < 1:
        problems.append("spec.completions is not a positive number")
    if spec.get("parallelism", completions) > (completions or 0):
        problems.append("spec.parallelism exceeds spec.completions")
    limit = spec.get("backoffLimitPerIndex", 0)
    if not isinstance(limit, int) or limit < 0:
        problems.append("spec.backoffLimitPerIndex is not a number of retries")
    containers = spec.get("template", {}).get("spec", {}).get("containers", [])
    if len(containers) != 1:
        problems.append("expected one container")
    for container in containers:
        env = {e["name"]: e.get("value") for e in container.get("env", [])}
        if env.get("REA_SHARD_COUNT") != str(completions):
            problems.append("REA_SHARD_COUNT (%s) differs from spec.completions (%s)" %
                            (env.get("REA_SHARD_COUNT"), completions))
        for name in ["REA_PROCESS_CAPTURE_ENABLED", "REA_PROCESS_EXECUTABLE_ROOTS_JSON",
                     "REA_PROCESS_WORKING_ROOTS_JSON"]:
            if name not in env:
                problems.append("the container does not set %s" % name)
        command = container.get("command", [])
        if command[:2] != ["rea", "capture-batch"] or "--out" not in command:
            problems.append("the container does not run rea capture-batch ... --out RESULTS")
        if "--shard" in command:
            problems.append("the container sets --shard: the index must come from the Job")
        if not container.get("securityContext", {}).get("privileged"):
            problems.append("the container is not privileged (docs/batch.md: what a capture needs)")
        mounts = [m["mountPath"] for m in container.get("volumeMounts", [])]
        out = command[command.index("--out") + 1] if "--out" in command else ""
        if not any(out.startswith(m) for m in mounts):
            problems.append("the results directory %s is not on a mounted volume" % out)


def check_pods_shards(job, rea, problems):
    """Every pod of the Job, as rea sees it: the container's environment from the manifest plus
    the index Kubernetes sets, and nothing of this test's own environment (a REA_SHARD there
    would win). Each pod must capture shard INDEX/completions of a small corpus, and together
    the pods capture each scenario once."""
    spec = job["spec"]
    completions = spec["completions"]
    container = spec["template"]["spec"]["containers"][0]
    env = {e["name"]: e["value"] for e in container.get("env", []) if "value" in e}
    with tempfile.TemporaryDirectory(prefix="rea-recipes-") as work:
        os.makedirs(os.path.join(work, "corpus"))
        os.makedirs(os.path.join(work, "tmp"))
        ids = []
        # Loopback scenarios: the manifest's policy refuses the host's network. One pod captures
        # two, so the split is not one each.
        for n in range(completions + 1):
            ids.append("echo-%d" % n)
            with open(os.path.join(work, "corpus", ids[-1] + ".json"), "w") as f:
                json.dump({"approved": True, "executable": "/bin/echo", "arguments": [str(n)],
                           "working_directory": "/tmp", "timeout_ms": 10000,
                           "network_access": "loopback"}, f)
        captured = []
        for index in range(completions):
            pod = dict(env, JOB_COMPLETION_INDEX=str(index), PATH="/usr/bin:/bin",
                       TMPDIR=os.path.join(work, "tmp"))
            run = subprocess.run([rea, "capture-batch", os.path.join(work, "corpus"), "--out",
                                  os.path.join(work, "results"), "--jobs", "1", "--format",
                                  "json"], env=pod, capture_output=True, text=True)
            try:
                record = json.loads(run.stdout)
            except ValueError:
                problems.append("pod %d: rea exited %d without a record: %s" %
                                (index, run.returncode, run.stderr.strip()[-500:]))
                continue
            want = {"index": index, "count": completions, "source": "JOB_COMPLETION_INDEX"}
            if record.get("shard") != want:
                problems.append("pod %d: rea took shard %s from the manifest's environment, "
                                "not %s" % (index, json.dumps(record.get("shard")),
                                            json.dumps(want)))
            # A private network namespace needs root (the manifest's pods are privileged);
            # elsewhere a capture's failure is a result and only the shard is checked.
            failed = record.get("counts", {}).get("failed")
            if run.returncode != 0 or (failed and os.geteuid() == 0):
                problems.append("pod %d: rea exited %d, counts %s, errors %s" %
                                (index, run.returncode, json.dumps(record.get("counts")),
                                 [r["error"].get("message") for r in record.get("results", [])
                                  if "error" in r]))
            captured += [r["id"] for r in record.get("results", [])]
        if sorted(captured) != ids:
            problems.append("the pods captured %s, not each of %s once" % (sorted(captured), ids))
        if os.listdir(os.path.join(work, "tmp")):
            problems.append("rea left %s in its TMPDIR" % os.listdir(os.path.join(work, "tmp")))


def check_kubectl_if_reachable(source, problems):
    kubectl = "/usr/bin/kubectl"
    if os.access(kubectl, os.X_OK):
        reachable = subprocess.run([kubectl, "version", "--request-timeout=5s"],
                                   capture_output=True).returncode == 0
        if reachable:
            checked = subprocess.run([kubectl, "apply", "--dry-run=client", "-f",
                                      os.path.join(source, MANIFEST)],
                                     capture_output=True, text=True)
            if checked.returncode != 0:
                problems.append("kubectl apply --dry-run=client: " + checked.stderr.strip())
        else:
            print("kubectl apply --dry-run=client: skipped (no API server to validate against)")


def check_sbatch(source, problems):
    script = os.path.join(source, "examples/cluster/capture-batch.sbatch")
    if subprocess.run(["bash", "-n", script]).returncode != 0:
        problems.append("capture-batch.sbatch does not parse")
    with open(script) as f:
        text = f.read()
    if "capture-batch" not in text or "#SBATCH" not in text:
        problems.append("capture-batch.sbatch does not run rea capture-batch as a batch script")
    if "--shard" in text.replace("without --shard", ""):
        problems.append("capture-batch.sbatch sets --shard: the index must come from the array")


def debian_kubectl():
    """Debian's kubectl: $REA_KUBECTL, the copy setup.sh unpacked, or /usr/bin/kubectl when the
    kubernetes-client package owns it; None when there is none."""
    candidates = [os.environ.get("REA_KUBECTL"), os.path.join(KUBECTL_DIR, "usr/bin/kubectl")]
    owner = subprocess.run(["dpkg-query", "-S", "/usr/bin/kubectl"], capture_output=True,
                           text=True)
    if owner.returncode == 0 and owner.stdout.startswith("kubernetes-client:"):
        candidates.append("/usr/bin/kubectl")
    for candidate in candidates:
        if candidate and os.access(candidate, os.X_OK):
            return candidate
    return None


def paths(value, prefix=()):
    """Every leaf of a JSON value as (path, leaf); list items are indexed by position."""
    if isinstance(value, dict):
        for key, item in value.items():
            yield from paths(item, prefix + (key,))
    elif isinstance(value, list):
        for k, item in enumerate(value):
            yield from paths(item, prefix + (k,))
    else:
        yield prefix, value


def leaf(value, path):
    for key in path:
        try:
            value = value[key]
        except (KeyError, IndexError, TypeError):
            return None, False
    return value, True


def check_with_kubectl(source, problems):
    kubectl = debian_kubectl()
    if kubectl is None:
        print("Debian's kubectl (kubernetes-client) is not there: scripts/setup.sh --test "
              "unpacks it into " + KUBECTL_DIR)
        return 77
    with tempfile.TemporaryDirectory(prefix="rea-kubectl-") as home:
        # A configuration that does not exist: the client never reaches a real cluster.
        env = dict(os.environ, HOME=home, KUBECONFIG=os.path.join(home, "none"))
        version = subprocess.run([kubectl, "version", "--client", "-o", "json"], env=env,
                                 capture_output=True, text=True)
        info = json.loads(version.stdout)["clientVersion"]
        client = (int(info["major"]), int(info["minor"].rstrip("+")))
        print("kubectl %s (%s)" % (info["gitVersion"], kubectl))
        # A probe variable the decoded object is printed with (kubectl prints nothing when the
        # change changes nothing); it is removed again before comparing.
        probe = "REA_RECIPES_TEST_PROBE"
        decoded = subprocess.run([kubectl, "set", "env", "--local", "-o", "json", "-f",
                                  os.path.join(source, MANIFEST), probe + "=1"], env=env,
                                 capture_output=True, text=True)
    if decoded.returncode != 0:
        problems.append("kubectl %s cannot decode the manifest as a batch/v1 Job: %s" %
                        (info["gitVersion"], decoded.stderr.strip()))
        return 1
    back = json.loads(decoded.stdout)
    for container in back["spec"]["template"]["spec"]["containers"]:
        container["env"] = [e for e in container.get("env", []) if e["name"] != probe]
    job = load_manifest(source)
    for path, value in paths(job):
        got, present = leaf(back, path)
        newer = NEWER_FIELDS.get(path[:2]) if path[:1] == ("spec",) else None
        if newer and client < newer:
            if present:
                problems.append("%s came back from kubectl %d.%d, which predates it: this check "
                                "is not what it claims" % (".".join(map(str, path)), *client))
        elif not present:
            problems.append("%s is not a field of batch/v1 Job in Kubernetes %d.%d (kubectl "
                            "dropped it: misspelled or misplaced?)" %
                            (".".join(map(str, path)), *client))
        elif got != value:
            problems.append("%s came back from kubectl as %r, not %r" %
                            (".".join(map(str, path)), got, value))
    for path, version in NEWER_FIELDS.items():
        if client < version:
            print("%s: not known to kubectl %d.%d (Kubernetes %d.%d+); checked by "
                  "recipes-test.py only" % (".".join(path), *client, *version))
    return 1 if problems else 0


def main():
    problems = []
    if sys.argv[1] == "--kubectl":
        status = check_with_kubectl(sys.argv[2], problems)
    else:
        source, rea = sys.argv[1], sys.argv[2]
        job = load_manifest(source)
        check_manifest(job, problems)
        if not problems:
            check_pods_shards(job, rea, problems)
        check_kubectl_if_reachable(source, problems)
        check_sbatch(source, problems)
        status = 1 if problems else 0
    for problem in problems:
        print(problem)
    return status


if __name__ == "__main__":
    sys.exit(main())
