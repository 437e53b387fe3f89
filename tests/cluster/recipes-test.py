#!/usr/bin/env python3
"""The cluster recipes of docs/batch.md stay consistent with rea (issue 21).

- examples/cluster/capture-batch-job.yaml: a batch/v1 Indexed Job whose REA_SHARD_COUNT equals
  spec.completions (rea's shard count must be the number of indexes Kubernetes hands out), whose
  container runs `rea capture-batch` with --out, with the capture policy variables, privileged
  (docs/batch.md says why); and, when kubectl can reach an API server, `kubectl apply
  --dry-run=client` accepts it (client-side validation needs the server's OpenAPI document;
  without a cluster that step is reported as skipped).
- examples/cluster/capture-batch.sbatch: parses (bash -n), runs `rea capture-batch` and sets no
  shard itself (rea reads the array's variables).

Usage: recipes-test.py SOURCE_DIR. Exit 0 when consistent, 1 with each problem printed, 77 when
PyYAML is missing.
"""
import os
import subprocess
import sys

try:
    import yaml
except ImportError:
    print("recipes-test.py: PyYAML (python3-yaml) is not installed")
    sys.exit(77)


def main():
    source = sys.argv[1]
    problems = []
    manifest_path = os.path.join(source, "examples/cluster/capture-batch-job.yaml")
    with open(manifest_path) as f:
        job = yaml.safe_load(f)
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

    kubectl = "/usr/bin/kubectl"
    if os.access(kubectl, os.X_OK):
        reachable = subprocess.run([kubectl, "version", "--request-timeout=5s"],
                                   capture_output=True).returncode == 0
        if reachable:
            checked = subprocess.run([kubectl, "apply", "--dry-run=client", "-f", manifest_path],
                                     capture_output=True, text=True)
            if checked.returncode != 0:
                problems.append("kubectl apply --dry-run=client: " + checked.stderr.strip())
        else:
            print("kubectl apply --dry-run=client: skipped (no API server to validate against)")

    script = os.path.join(source, "examples/cluster/capture-batch.sbatch")
    if subprocess.run(["bash", "-n", script]).returncode != 0:
        problems.append("capture-batch.sbatch does not parse")
    with open(script) as f:
        text = f.read()
    if "capture-batch" not in text or "#SBATCH" not in text:
        problems.append("capture-batch.sbatch does not run rea capture-batch as a batch script")
    if "--shard" in text.replace("without --shard", ""):
        problems.append("capture-batch.sbatch sets --shard: the index must come from the array")

    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
