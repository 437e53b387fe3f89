#!/usr/bin/python3
"""schema/json/capture-batch-results and compare-batch-summary against what rea writes (issue 21).

Usage: batch-test.py BUILD_DIR

Captures a small corpus (bench/make-corpus.py: echo, shell and shim scenarios, plus a scenario
that is not JSON, so one result is a failure) with `rea capture-batch` twice, the second time
into a copy of the first results with two scenarios' output altered, one scenario's contract
changed (its timeout) and one added, sharded (--shard 0/2 and 1/2), then `rea compare-batch`, and validates every results record and the
summary. Then mutations the schemas must reject (an unknown status, a failed result without its
error, an extra member, a pair without its first divergence). Every failure names its case;
exit 1 when anything failed.
"""
import copy
import glob
import json
import os
import shutil
import subprocess
import sys
import tempfile

import jsonschema
from jsonschema import Draft202012Validator

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_DIR = os.path.join(SOURCE_DIR, "schema", "json")
BASE = "https://rea.invalid/schema/json/"
NAMES = ("scenario", "capture-evidence", "comparison-evidence", "capture-batch-results",
         "compare-batch-summary")
SCHEMAS = {n: json.load(open(os.path.join(SCHEMA_DIR, n + ".schema.json"))) for n in NAMES}
STORE = {s["$id"]: s for s in SCHEMAS.values()}
failures = []


def validator(name):
    schema = SCHEMAS[name]
    Draft202012Validator.check_schema(schema)
    return Draft202012Validator(schema, resolver=jsonschema.RefResolver.from_schema(schema, store=STORE))


RESULTS = validator("capture-batch-results")
SUMMARY = validator("compare-batch-summary")


def expect(valid, check, document, case):
    errors = list(check.iter_errors(document))
    if valid and errors:
        failures.append(case)
        print("FAIL %s: %s" % (case, errors[0].message[:300]))
    elif not valid and not errors:
        failures.append(case)
        print("FAIL %s: accepted, but must be rejected" % case)


def rea(build, *args):
    env = dict(os.environ, REA_PROCESS_CAPTURE_ENABLED="true",
               REA_PROCESS_EXECUTABLE_ROOTS_JSON='["/bin","/usr/bin"]',
               REA_PROCESS_WORKING_ROOTS_JSON='["/tmp"]',
               REA_PROCESS_ALLOWED_ENV_JSON='["PATH","LANG"]',
               REA_PROCESS_ALLOW_EXTERNAL_NETWORK="true")
    for name in ("REA_SHARD", "TEST_SHARD_INDEX", "SLURM_ARRAY_TASK_ID", "JOB_COMPLETION_INDEX"):
        env.pop(name, None)
    run = subprocess.run([os.path.join(build, "bin", "rea")] + list(args), env=env,
                         capture_output=True, text=True)
    if run.returncode != 0:
        failures.append(" ".join(args[:1]))
        print("FAIL rea %s: exit %d: %s %s" % (args[0], run.returncode, run.stdout[:300],
                                               run.stderr[:300]))
    return run


def main():
    build = sys.argv[1]
    work = tempfile.mkdtemp(prefix="rea-schema-batch-")
    try:
        corpus = os.path.join(work, "corpus")
        subprocess.run([sys.executable, os.path.join(SOURCE_DIR, "bench", "make-corpus.py"), corpus,
                        "--count", "6", "--kinds", "echo,shell,shim"], check=True)
        with open(os.path.join(corpus, "broken.json"), "w") as f:
            f.write("{ not json")
        left, right = os.path.join(work, "left"), os.path.join(work, "right")
        rea(build, "capture-batch", corpus, "--out", left, "--jobs", "2", "--format", "json")
        shutil.copytree(left, right)
        for path in sorted(glob.glob(os.path.join(corpus, "echo", "*.json")))[:2]:
            scenario = json.load(open(path))
            scenario["arguments"] = ["altered"]
            json.dump(scenario, open(path, "w"))
        # Another timeout: another comparison contract, a pair that may not be compared.
        shell = sorted(glob.glob(os.path.join(corpus, "shell", "*.json")))[0]
        scenario = json.load(open(shell))
        scenario["timeout_ms"] = 9000
        json.dump(scenario, open(shell, "w"))
        shutil.copy(os.path.join(corpus, "echo", os.listdir(os.path.join(corpus, "echo"))[0]),
                    os.path.join(corpus, "added.json"))
        for shard in ("0/2", "1/2"):
            rea(build, "capture-batch", corpus, "--out", right, "--shard", shard)
        records = [os.path.join(left, "results.json")] + \
            sorted(glob.glob(os.path.join(right, "results-shard-*.json")))
        for path in records:
            expect(True, RESULTS, json.load(open(path)), os.path.relpath(path, work))
        report = os.path.join(work, "report")
        summary_run = rea(build, "compare-batch", "--timing-tolerance-ms", "600000", left, right,
                          "--out", report, "--format", "json")
        summary = json.load(open(os.path.join(report, "summary.json")))
        expect(True, SUMMARY, summary, "summary.json")
        if json.loads(summary_run.stdout or "null") != summary:
            failures.append("stdout")
            print("FAIL compare-batch: stdout differs from summary.json")
        statuses = {p["status"] for p in summary["pairs"]}
        refused = [p for p in summary["pairs"] if "reason" in p]
        if not {"changed", "failed"} <= statuses or summary["right_only"] != ["added"] or \
                len(refused) != 1 or "timeout_ms" not in refused[0]["reason"]:
            failures.append("coverage")
            print("FAIL the corpus did not produce changed, failed and one-sided pairs: %s %s" %
                  (sorted(statuses), summary["right_only"]))

        record = json.load(open(records[0]))
        failed = next(r for r in record["results"] if r["status"] == "failed")
        captured = next(r for r in record["results"] if r["status"] != "failed")
        for case, mutate in [
            ("unknown result status", lambda d: d["results"][0].update(status="skipped")),
            ("failed without error", lambda d: next(r for r in d["results"] if r["status"] == "failed").pop("error")),
            ("captured with an error", lambda d: next(r for r in d["results"] if r["status"] != "failed").update(error=failed["error"])),
            ("id with a slash", lambda d: d["results"][0].update(id="a/b")),
            ("extra member", lambda d: d.update(extra=1)),
            ("shard of another source", lambda d: d.update(shard={"index": 0, "count": 2, "source": "HOSTNAME"})),
        ]:
            document = copy.deepcopy(record)
            mutate(document)
            expect(False, RESULTS, document, "results: " + case)
        del captured
        compared = next(i for i, p in enumerate(summary["pairs"]) if p["status"] != "failed")
        for case, mutate in [
            ("unknown overall status", lambda d: d.update(status="different")),
            ("pair without first divergence", lambda d: d["pairs"][compared].pop("first_divergence")),
            ("failed pair without an error", lambda d: d["pairs"].append({"id": "x", "status": "failed"})),
            ("unknown dimension", lambda d: d["dimensions"].update(colour=d["dimensions"]["exit"])),
            ("missing count", lambda d: d["counts"].pop("failed")),
        ]:
            document = copy.deepcopy(summary)
            mutate(document)
            expect(False, SUMMARY, document, "summary: " + case)
    finally:
        shutil.rmtree(work, ignore_errors=True)
    print("%s: %d failure(s)" % (os.path.basename(__file__), len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
