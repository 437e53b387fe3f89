#!/usr/bin/env python3
"""make-corpus.py OUT_DIR [--count N] [--kinds K1,K2,...] [--seed S] [--files-root DIR]

Writes N small scenarios (default 200) into OUT_DIR, for `rea capture-batch` tests and
benchmarks (issue 21), cycling through every kind the bundled examples cover:

  echo         /bin/echo of a distinct line (examples/hello.json)
  shell        /bin/sh printing a few numbered lines
  files        a shell script that writes, changes and removes a file under its own root, with a
               terminal_literal checkpoint and an input sent when it fired (examples/files.json);
               it leaves the root as it found it, so capturing it again gives the same before
               snapshot
  interactive  a prompt answered by a reactive input, a resize, then `stty size`
               (examples/interactive-reactive.json)
  shim         a command shim answering two routes (examples/shim.json)
  replay       curl against the loopback replay server (examples/replay.json; needs curl, and
               network namespaces: rea doctor)

Scenarios land in one subdirectory per kind (OUT_DIR/echo/echo-0007.json, ...), so their batch ids
are `echo~echo-0007`. Each is deterministic and finishes in well under a second; every file is a
pure function of (kind, number, seed), so two runs with the same arguments write the same corpus.
The `files` scenarios work under FILES_ROOT/<number> (default /tmp/rea-corpus-files; created here,
as capture needs its working directory to exist): a caller that may run beside another one passes
a directory of its own, under /tmp so that the policy in examples/policy.env, which approves all
of these scenarios, still approves it.
"""
import argparse
import json
import os
import random

KINDS = ["echo", "shell", "files", "interactive", "shim", "replay"]
BASE = {"approved": True, "timeout_ms": 10000, "normalization": {"time_bucket_ms": 100}}


def echo(n, rng):
    return {"executable": "/bin/echo", "arguments": [f"scenario {n}: {rng.randrange(10**6)}"],
            "working_directory": "/tmp"}


def shell(n, rng):
    lines = rng.randrange(1, 6)
    return {"executable": "/bin/sh",
            "arguments": ["-c", f"i=0; while [ $i -lt {lines} ]; do echo line $i of {n}; "
                                "i=$((i+1)); done"],
            "working_directory": "/tmp", "environment": {"PATH": "/usr/bin:/bin"}}


FILES_ROOT = "/tmp/rea-corpus-files"


def files(n, rng):
    root = f"{FILES_ROOT}/{n:04d}"
    os.makedirs(root, exist_ok=True)
    # The script waits for an input sent once the checkpoint has fired, so the checkpoint's
    # snapshot never races the script's next write, however loaded the machine.
    return {"executable": "/bin/sh",
            "arguments": ["-c", f"echo {rng.randrange(10**6)} > data.txt; echo saved; read go; "
                                "echo more >> data.txt; rm data.txt; echo done"],
            "working_directory": root, "environment": {"PATH": "/usr/bin:/bin"},
            "filesystem_roots": [root],
            "checkpoints": [{"name": "saved",
                             "trigger": {"type": "terminal_literal", "value": "saved"}}],
            "events": [{"type": "input", "when": {"type": "checkpoint", "name": "saved"},
                        "data": "go\r", "timeout_ms": 5000}]}


def interactive(n, rng):
    name = f"user{n}"
    # A condition on output sees only what was written after it was armed, so the resize and
    # the Enter after it wait for a checkpoint (which counts whenever it fired): the resize is
    # dispatched before the Enter that lets `stty size` run, and the size never races it.
    return {"executable": "/bin/sh",
            "arguments": ["-c", "printf 'name? '; read name; echo \"hello, $name\"; "
                                "printf 'size? '; read go; stty size"],
            "working_directory": "/tmp", "environment": {"PATH": "/usr/bin:/bin"},
            "terminal": {"columns": 80, "rows": 24},
            "checkpoints": [{"name": "asked",
                             "trigger": {"type": "terminal_literal", "value": "size? "}}],
            "events": [
                {"type": "input", "when": {"type": "output_literal", "value": "name? "},
                 "data": name + "\r", "timeout_ms": 5000},
                {"type": "resize", "when": {"type": "checkpoint", "name": "asked"},
                 "columns": 100, "rows": 40, "timeout_ms": 5000},
                {"type": "input", "when": {"type": "checkpoint", "name": "asked"},
                 "data": "\r", "timeout_ms": 5000}]}


def shim(n, rng):
    code = rng.randrange(0, 3)
    return {"executable": "/bin/sh",
            "arguments": ["-c", "git status --short; echo \"exit=$?\"; git push; echo \"exit=$?\""],
            "working_directory": "/tmp", "environment": {"PATH": "/usr/bin:/bin"},
            "command_shims": [{"name": "git", "routes": [
                {"arguments": ["status", "--short"],
                 "outputs": [{"at_ms": 0, "stream": "stdout", "data": f" M file{n}.txt\n"}],
                 "termination": {"type": "exit", "code": 0}},
                {"arguments": ["push"],
                 "outputs": [{"at_ms": 0, "stream": "stderr", "data": "rejected\n"}],
                 "termination": {"type": "exit", "code": code}}]}]}


def replay(n, rng):
    return {"executable": "/bin/sh",
            "arguments": ["-c", "curl -sS \"$REA_REPLAY_HTTP_URL/item\"; echo"],
            "working_directory": "/tmp", "environment": {"PATH": "/usr/bin:/bin"},
            "network_access": "loopback",
            "replay": {"http": [{"method": "GET", "path": "/item", "status": 200,
                                 "body": f"item {n}"}]}}


MAKERS = {"echo": echo, "shell": shell, "files": files, "interactive": interactive,
          "shim": shim, "replay": replay}


def main():
    global FILES_ROOT
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("out")
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--kinds", default=",".join(KINDS))
    parser.add_argument("--seed", type=int, default=21)
    parser.add_argument("--files-root", default=FILES_ROOT)
    args = parser.parse_args()
    FILES_ROOT = os.path.abspath(args.files_root)
    kinds = [k for k in args.kinds.split(",") if k]
    for kind in kinds:
        if kind not in MAKERS:
            parser.error(f"unknown kind {kind} (kinds: {', '.join(KINDS)})")
    for n in range(args.count):
        kind = kinds[n % len(kinds)]
        rng = random.Random(f"{args.seed}/{kind}/{n}")
        scenario = dict(BASE)
        scenario.update(MAKERS[kind](n, rng))
        os.makedirs(os.path.join(args.out, kind), exist_ok=True)
        with open(os.path.join(args.out, kind, f"{kind}-{n:04d}.json"), "w") as out:
            json.dump(scenario, out, indent=1, sort_keys=True)
            out.write("\n")


if __name__ == "__main__":
    main()
