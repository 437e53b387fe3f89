#!/usr/bin/env python3
"""batch-altered.py REA CORPUS RESULTS WORK: issue 21's compare-batch check on a whole corpus.

Copies CORPUS (bench/make-corpus.py) into WORK/altered and alters three of its scenarios (spread
over the corpus: each prints one more line, or gets one more argument), copies RESULTS (a
`rea capture-batch` of CORPUS) into WORK/altered-results and captures the altered corpus into it
(the other scenarios' Evidence is kept), then runs `rea compare-batch RESULTS
WORK/altered-results`. Checks that exactly those three are named changed, each with its first
divergence, in summary.json, in index.html as written, and in index.html as a headless chromium
builds it (its DOM). Prints one line saying so; exit 0 when all holds, 1 otherwise (each problem
printed). Run by bench/batch-bench.sh on its corpus; the environment must hold the policy.
"""
import json
import os
import re
import shutil
import subprocess
import sys

CHROMIUM = "/usr/bin/chromium"


def alter(path):
    with open(path) as f:
        scenario = json.load(f)
    if scenario["executable"] == "/bin/sh":
        scenario["arguments"][1] += "; echo altered"
    else:
        scenario["arguments"].append("altered")
    with open(path, "w") as f:
        json.dump(scenario, f, indent=1, sort_keys=True)


def rows(page):
    """id -> the text of its <tr id="pair-ID"> row."""
    return {m.group(1): m.group(2) for m in
            re.finditer(r'<tr id="pair-([^"]+)"(.*?)</tr>', page, re.S)}


def main():
    rea, corpus, results, work = sys.argv[1:5]
    problems = []
    files = sorted(os.path.relpath(os.path.join(d, f), corpus)
                   for d, _, names in os.walk(corpus) for f in names if f.endswith(".json"))
    chosen = [files[len(files) // 7], files[len(files) // 2], files[-2]]
    ids = sorted(f[:-len(".json")].replace("/", "~") for f in chosen)
    altered, altered_results = os.path.join(work, "altered"), os.path.join(work, "altered-results")
    shutil.copytree(corpus, altered)
    for f in chosen:
        alter(os.path.join(altered, f))
    shutil.copytree(results, altered_results)
    run = subprocess.run([rea, "capture-batch", altered, "--out", altered_results, "--format",
                          "json"], capture_output=True, text=True)
    counts = json.loads(run.stdout)["counts"]
    if run.returncode != 0 or counts["captured"] != 3 or counts["failed"]:
        problems.append("capturing the altered corpus: exit %d, %s" % (run.returncode, counts))
    report = os.path.join(work, "altered-report")
    subprocess.run([rea, "compare-batch", "--timing-tolerance-ms", "600000", "--format", "json",
                    results, altered_results, "--out", report], capture_output=True)
    with open(os.path.join(report, "summary.json")) as f:
        summary = json.load(f)
    changed = {p["id"]: p for p in summary["pairs"] if p["status"] == "changed"}
    if sorted(changed) != ids:
        problems.append("summary.json names %s changed, not %s" % (sorted(changed), ids))
    where = {}
    for i, pair in changed.items():
        divergence = pair.get("first_divergence", {})
        if divergence.get("status") != "found":
            problems.append("%s: no first divergence in summary.json: %s" % (i, divergence))
        else:
            where[i] = "%s[%d]" % (divergence["dimension"], divergence["index"])
    with open(os.path.join(report, "index.html")) as f:
        pages = {"index.html": f.read()}
    if os.access(CHROMIUM, os.X_OK):
        dom = subprocess.run(["timeout", "300", CHROMIUM, "--headless", "--no-sandbox",
                              "--disable-gpu", "--user-data-dir=" + os.path.join(work, "profile"),
                              "--dump-dom", "file://" + os.path.join(report, "index.html")],
                             capture_output=True, text=True)
        if dom.returncode != 0:
            problems.append("chromium exited %d: %s" % (dom.returncode, dom.stderr[-300:]))
        pages["index.html in chromium"] = dom.stdout
    else:
        problems.append("no chromium (scripts/setup.sh --test installs it)")
    for name, page in pages.items():
        shown = rows(page)
        if len(shown) != summary["counts"]["pairs"]:
            problems.append("%s has %d rows for %d pairs" %
                            (name, len(shown), summary["counts"]["pairs"]))
        said = sorted(i for i, row in shown.items() if ">changed<" in row)
        if said != ids:
            problems.append("%s says %s changed, not %s" % (name, said, ids))
        for i in ids:
            if i in where and ">%s<" % where[i] not in shown.get(i, ""):
                problems.append("%s: the row of %s does not show %s" % (name, i, where[i]))
    for p in problems:
        print("batch-altered.py: " + p, file=sys.stderr)
    print("Three altered scenarios of %d (%s): %s" %
          (summary["counts"]["pairs"],
           ", ".join("%s at %s" % (i, where.get(i, "?")) for i in ids),
           "named exactly, with their first divergences, in summary.json, index.html and "
           "chromium's DOM of it" if not problems else "FAILED"))
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
