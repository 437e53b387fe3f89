#!/usr/bin/python3
"""Checks schema/json/ against what rea reads and writes.

Usage: validate-test.py BUILD_DIR [documents|captures]

documents: the three schemas are valid draft 2020-12; every example scenario and every valid
  scenario fixture validates and every invalid one is rejected; rule-by-rule mutations of a valid
  scenario, capture and comparison are rejected (or, for what rea accepts, accepted); the capture
  fixtures validate.
captures: runs the real `rea capture-process` on every example scenario under examples/policy.env
  and `rea compare-process-captures` on the results and on altered copies (other output, later
  output, truncated; default and baseline modes, zero tolerance), and validates every record.
  The scenario mutations are given to rea too, without the operator policy so that nothing runs:
  the rejected ones must fail its parser, the accepted ones must pass it. Likewise every capture
  mutation, with its evidence_id recomputed, is given to `rea compare-process-captures`, which must
  refuse or accept it as the schema does, except for the documented differences.

Without a part, both run. Every failure names the file or case and the schema's complaint; the
exit status is 1 when anything failed.
"""

import copy
import glob
import hashlib
import json
import os
import subprocess
import sys
import tempfile

import jsonschema
from jsonschema import Draft202012Validator

SOURCE_DIR = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCHEMA_DIR = os.path.join(SOURCE_DIR, "schema", "json")
BASE = "https://rea.invalid/schema/json/"

failures = []
passes = 0


def fail(name, why):
    failures.append(name)
    print("FAIL %s: %s" % (name, why))


def ok():
    global passes
    passes += 1


def load(path):
    with open(path, encoding="utf-8") as f:
        return json.load(f)


# ---------------------------------------------------------------------------------------------
# Validators

SCHEMAS = {
    name: load(os.path.join(SCHEMA_DIR, name + ".schema.json"))
    for name in ("scenario", "capture-evidence", "comparison-evidence")
}
STORE = {schema["$id"]: schema for schema in SCHEMAS.values()}


def validator(ref):
    """A validator for `ref` (relative to the schema directory), resolving across the files."""
    root = {"$schema": "https://json-schema.org/draft/2020-12/schema", "$id": BASE + "test",
            "$ref": ref}
    resolver = jsonschema.RefResolver.from_schema(root, store=STORE)
    return Draft202012Validator(root, resolver=resolver)


SCENARIO = validator("scenario.schema.json")
CAPTURE_EVIDENCE = validator("capture-evidence.schema.json")
CAPTURE = validator("capture-evidence.schema.json#/$defs/capture")
COMPARISON_EVIDENCE = validator("comparison-evidence.schema.json")


def problems(v, document):
    """Every complaint of validator `v`, one line each, deepest first within a path."""
    lines = []
    for error in sorted(v.iter_errors(document), key=lambda e: list(map(str, e.absolute_path))):
        leaves = [error]
        if error.context:
            leaves = sorted(error.context, key=lambda e: -len(e.absolute_path))[:3]
        for leaf in leaves:
            path = "/".join(str(p) for p in leaf.absolute_path) or "(root)"
            lines.append("%s: %s" % (path, leaf.message[:300]))
    return lines


def expect_valid(name, v, document):
    found = problems(v, document)
    if found:
        fail(name, "should validate but:\n    " + "\n    ".join(found[:12]))
    else:
        ok()


def expect_invalid(name, v, document):
    if v.is_valid(document):
        fail(name, "should be rejected by the schema but validates")
    else:
        ok()


def mutated(document, change):
    copy_ = copy.deepcopy(document)
    change(copy_)
    return copy_


# ---------------------------------------------------------------------------------------------
# Part 1: documents

def check_schemas():
    for name, schema in SCHEMAS.items():
        try:
            Draft202012Validator.check_schema(schema)
            ok()
        except jsonschema.exceptions.SchemaError as e:
            fail(name + ".schema.json", "is not a valid draft 2020-12 schema: %s" % e.message)


def example_scenarios():
    return sorted(glob.glob(os.path.join(SOURCE_DIR, "examples", "*.json")))


def with_own_roots(path, tmp):
    """The example at `path`, or where it observes directories (examples/files.json) a copy in
    `tmp` that observes new empty directories of `tmp` instead (also as its working directory,
    where that was one of them): the test leaves nothing in /tmp and shares no directory with
    other tests capturing the same example."""
    with open(path, encoding="utf-8") as f:
        example = json.load(f)
    if "filesystem_roots" not in example:
        return path
    roots = []
    for root in example["filesystem_roots"]:
        own = tempfile.mkdtemp(prefix="root-", dir=tmp)
        if example.get("working_directory") == root:
            example["working_directory"] = own
        roots.append(own)
    example["filesystem_roots"] = roots
    copy = os.path.join(tempfile.mkdtemp(prefix="example-", dir=tmp), os.path.basename(path))
    with open(copy, "w", encoding="utf-8") as f:
        json.dump(example, f)
    return copy


def check_scenario_files():
    for path in example_scenarios():
        expect_valid(os.path.relpath(path, SOURCE_DIR), SCENARIO, load(path))
    fixtures = sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "data", "scenarios", "**", "*.json"),
                                recursive=True))
    if not fixtures:
        fail("tests/data/scenarios", "no scenario fixtures found")
    for path in fixtures:
        name = os.path.relpath(path, SOURCE_DIR)
        # The unit tests (tests/unit/scenario*-test.c++) use `invalid-*` fixtures as inputs rea
        # must refuse; every rule they break that JSON Schema can express is in the schema.
        if os.path.basename(path).startswith("invalid-"):
            expect_invalid(name, SCENARIO, load(path))
        else:
            expect_valid(name, SCENARIO, load(path))
    # The real programs' scenarios (tests/integration/real-programs-test.c++).
    for path in sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "data", "real-programs", "*.json"))):
        expect_valid(os.path.relpath(path, SOURCE_DIR), SCENARIO, load(path))


def base_scenario():
    return load(os.path.join(SOURCE_DIR, "tests", "data", "scenarios", "every-field.json"))


def set_at(path, value):
    """A change that sets the member at `path` (a list of keys and indexes)."""
    def change(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
    return change


def delete_at(path):
    def change(doc):
        target = doc
        for key in path[:-1]:
            target = target[key]
        del target[path[-1]]
    return change


# Scenario mutations rea refuses, one per kind of rule the schema expresses. Each is also given to
# rea itself in the captures part, so schema and parser are seen to agree.
SCENARIO_REJECTED = [
    ("unknown top-level key", set_at(["frobs"], 1)),
    ("unknown key in terminal", set_at(["terminal", "colour"], True)),
    ("unknown key in an event", set_at(["events", 1, "foo"], 1)),
    ("key of another event type", set_at(["events", 1, "columns"], 3)),
    ("unknown key in a trigger", set_at(["checkpoints", 2, "trigger", "at_ms"], 1)),
    ("unknown key in a termination", set_at(["command_shims", 0, "routes", 0, "termination", "x"], 1)),
    ("unknown key in a websocket message",
     set_at(["replay", "websocket_connections", 0, "messages", 0, "foo"], 1)),
    ("approved false", set_at(["approved"], False)),
    ("approved absent", delete_at(["approved"])),
    ("executable absent", delete_at(["executable"])),
    ("unknown_registry_approved false", set_at(["unknown_registry_approved"], False)),
    ("relative executable", set_at(["executable"], "bin/sh")),
    ("relative filesystem root", set_at(["filesystem_roots", 0], "state")),
    ("network_access none", set_at(["network_access"], "none")),
    ("environment name starting with a digit", set_at(["environment", "1BAD"], "x")),
    ("environment value not a string", set_at(["environment", "_MODE"], 1)),
    ("reserved environment name", set_at(["environment", "HOME"], "/root")),
    ("reserved inherited name", set_at(["inherit_environment", 0], "TERM")),
    ("257 arguments", set_at(["arguments"], ["a"] * 257)),
    ("terminal columns 0", set_at(["terminal", "columns"], 0)),
    ("terminal rows as a string", set_at(["terminal", "rows"], "24")),
    ("terminal scrollback null", set_at(["terminal", "scrollback"], None)),
    ("fractional trigger time", set_at(["checkpoints", 0, "trigger", "at_ms"], 1.5)),
    ("reserved checkpoint name", set_at(["checkpoints", 0, "name"], "before")),
    ("checkpoint name with a dot", set_at(["checkpoints", 0, "name"], "a.b")),
    ("65-character checkpoint name", set_at(["checkpoints", 0, "name"], "c" * 65)),
    ("empty terminal literal", set_at(["checkpoints", 1, "trigger", "value"], "")),
    ("exit code 256", set_at(["command_shims", 0, "routes", 0, "termination", "code"], 256)),
    ("shim without routes", set_at(["command_shims", 0, "routes"], [])),
    ("shim name with a slash", set_at(["command_shims", 0, "name"], "bin/git")),
    ("unknown signal", set_at(["events", 3, "signal"], "SIGHUP")),
    ("unknown event type", set_at(["events", 1, "type"], "beep")),
    ("event after the largest timeout", set_at(["events", 3, "at_ms"], 300001)),
    ("event after the default timeout", lambda d: (d.pop("timeout_ms"),
                                                   d["events"][3].update(at_ms=30001))),
    ("timeout 0", set_at(["timeout_ms"], 0)),
    ("settle 10001", set_at(["settle_ms"], 10001)),
    ("limits key unknown", set_at(["limits", "frobs"], 1)),
    ("limit 0 frames", set_at(["limits", "frames"], 0)),
    ("pattern over 500 characters", set_at(["normalization", "patterns", 1, "pattern"], "p" * 501)),
    ("33 patterns", set_at(["normalization", "patterns"], [{"pattern": "a", "replacement": "b"}] * 33)),
    ("time bucket 0", set_at(["normalization", "time_bucket_ms"], 0)),
    ("HTTP status 600", set_at(["replay", "http", 0, "status"], 600)),
    ("HTTP method over 16 characters", set_at(["replay", "http", 0, "method"], "M" * 17)),
    ("HTTP path without a slash", set_at(["replay", "http", 0, "path"], "api")),
    ("HTTP route without body", delete_at(["replay", "http", 1, "body"])),
    ("websocket connection without messages", delete_at(["replay", "websocket_connections", 1, "messages"])),
]

SCENARIO_ACCEPTED = [
    ("every-field as is", lambda d: None),
    ("minimal (B §3.9)", lambda d: (d.clear(), d.update(approved=True, executable="/bin/sh",
                                                           working_directory="/tmp"))),
    ("network_access host", set_at(["network_access"], "host")),
    ("integral float", set_at(["terminal", "columns"], 80.0)),
    ("PATH may be inherited", lambda d: (d["environment"].pop("PATH"),
                                         d["inherit_environment"].__setitem__(0, "PATH"))),
    ("event at the timeout", set_at(["events", 3, "at_ms"], 60000)),
    ("lowercase HTTP method", set_at(["replay", "http", 0, "method"], "post")),
    ("empty pattern", set_at(["normalization", "patterns", 0, "pattern"], "")),
]


# What rea refuses but JSON Schema cannot express (schema/json/README.md, "Looser than rea"): the
# schema accepts these, rea must not.
SCENARIO_LOOSER = [
    ("events out of order (rule 1)", set_at(["events", 1, "at_ms"], 20)),
    ("secret alias not in environment (rule 2)", set_at(["secret_aliases", 0], "LANG")),
    ("name explicit and inherited (rule 4)", set_at(["inherit_environment", 0], "PATH")),
    ("event after timeout_ms (rule 5)", set_at(["events", 3, "at_ms"], 60001)),
    ("duplicate checkpoint names (rule 7)", set_at(["checkpoints", 1, "name"], "t1")),
    ("duplicate shim names (rule 8)", lambda d: d["command_shims"].append(
        copy.deepcopy(d["command_shims"][0]))),
    ("checkpoint literal of 5001 astral characters (10002 UTF-16 units)",
     set_at(["checkpoints", 1, "trigger", "value"], "\U0001F600" * 5001)),
]


def check_scenario_mutations():
    base = base_scenario()
    for name, change in SCENARIO_REJECTED:
        expect_invalid("scenario mutation '%s'" % name, SCENARIO, mutated(base, change))
    for name, change in SCENARIO_ACCEPTED + SCENARIO_LOOSER:
        expect_valid("scenario mutation '%s'" % name, SCENARIO, mutated(base, change))


def check_capture_fixtures():
    for path in sorted(glob.glob(os.path.join(SOURCE_DIR, "tests", "data", "captures", "*.json")) +
                       glob.glob(os.path.join(SOURCE_DIR, "tests", "data", "compare", "*.json"))):
        document = load(path)
        name = os.path.relpath(path, SOURCE_DIR)
        # Evidence records carry an envelope; the others are bare capture objects.
        if "normalized_result" in document:
            expect_valid(name, CAPTURE_EVIDENCE, document)
        else:
            expect_valid(name, CAPTURE, document)


def frame_without_data(r):
    r["normalized_result"]["frames"] = [{"sequence": 0, "at_ms": 0}]


# Mutations of a valid capture Evidence record that rea refuses (or, for the accepted ones, reads).
CAPTURE_REJECTED = [
    ("a frame missing data", frame_without_data),
    ("unknown envelope member", set_at(["extra"], 1)),
    ("envelope schema_version 1", set_at(["schema_version"], 1)),
    ("evidence_id in uppercase", lambda r: r.update(evidence_id=r["evidence_id"].upper())),
    ("v3 predicate", set_at(["predicate_type"], "rea.process-capture/v3")),
    ("provider version 4", set_at(["provider", "version"], "4")),
    ("capture schema_version 3", set_at(["normalized_result", "schema_version"], 3)),
    ("capture without frames", delete_at(["normalized_result", "frames"])),
    ("timestamp with an offset", set_at(["normalized_result", "manifest", "started_at"],
                                        "2026-01-01T00:00:00+01:00")),
    ("hash in uppercase", set_at(["normalized_result", "manifest", "shim_plan_sha256"], "A" * 64)),
    ("empty pty_backend", set_at(["normalized_result", "manifest", "pty_backend"], "")),
    ("process_observation partial", set_at(["normalized_result", "manifest", "process_observation"],
                                           "partial")),
    ("manifest scenario with an unknown key", set_at(["normalized_result", "manifest", "scenario",
                                                      "frobs"], 1)),
    ("exit code on a timeout", lambda r: r["normalized_result"]["exit"].update(
        code=0, signal=9, reason="timeout")),
    ("exit reason crashed", set_at(["normalized_result", "exit", "reason"], "crashed")),
    ("quiesced but cleaned", lambda r: r["normalized_result"]["settlement"].update(
        state="quiesced", cleanup_outcome="cleaned")),
    ("alive but not_required", lambda r: r["normalized_result"]["settlement"].update(
        state="alive_at_deadline", cleanup_outcome="not_required")),
    ("first checkpoint not before", set_at(["normalized_result", "filesystem_checkpoints", 0, "name"],
                                           "start")),
    ("no after_settlement checkpoint", lambda r: r["normalized_result"][
        "filesystem_checkpoints"].pop()),
    ("truncated checkpoint in an untruncated capture",
     set_at(["normalized_result", "filesystem_checkpoints", 0, "truncated"], True)),
    ("automatic not a boolean", lambda r: r["normalized_result"]["interaction_events"].append(
        {"sequence": 0, "scheduled_at_ms": 0, "dispatched_at_ms": 0, "type": "input", "data": "x",
         "outcome": "dispatched", "automatic": "yes"})),
    ("rendered frame with 0 rows", lambda r: r["normalized_result"]["rendered_frames"].append(
        {"sequence": 0, "at_ms": 0, "columns": 80, "rows": 0, "cursor_x": 0, "cursor_y": 0,
         "active_buffer": "normal", "lines": [], "serialized_state": ""})),
    ("process sample pid 0", lambda r: r["normalized_result"]["process_samples"].append(
        {"at_ms": 0, "pid": 0, "parent_pid": 0, "command": "", "process_group_id": None,
         "session_id": None})),
    ("unmatched shim event with a route", lambda r: r["normalized_result"]["shim_events"].append(
        {"sequence": 0, "at_ms": 0, "command": "git", "route_index": 0, "arguments": [],
         "working_directory": "/", "outcome": "unmatched"})),
    ("protocol event direction up", lambda r: r["normalized_result"]["protocol_events"].append(
        {"sequence": 0, "at_ms": 0, "protocol": "http", "direction": "up", "method": "GET",
         "path": "/", "data": "", "outcome": "matched"})),
    ("file state with a hash for a directory", lambda r: r["normalized_result"]["files_after"].append(
        {"path": "root_0:.", "type": "directory", "mode": 16877, "size": 4096, "sha256": "0" * 64,
         "symlink_target": None})),
    ("created file with a before state", lambda r: r["normalized_result"][
        "filesystem_effects"].append({"path": "root_0:a", "status": "created",
                                      "before": FILE, "after": FILE})),
    ("residual scope bogus", lambda r: r["normalized_result"]["residual_unknowns"].append(
        {"scope": "bogus", "reason": "r"})),
    ("cleanup not verified", set_at(["normalized_result", "cleanup", "owned_process_group"], "no")),
    ("limitations without the artifact sentence", lambda r: r["limitations"].pop(0)),
]

FILE = {"path": "root_0:a", "type": "file", "mode": 33188, "size": 1, "sha256": "0" * 64,
        "symlink_target": None}

CAPTURE_ACCEPTED = [
    ("unknown nested member (dropped on import, A14)",
     set_at(["normalized_result", "exit", "note"], "x")),
    ("REA's exit form", lambda r: r["normalized_result"]["exit"].update(code=0, signal=0,
                                                                        reason="exited")),
    ("REA's pty_backend", set_at(["normalized_result", "manifest", "pty_backend"], "node-pty")),
    ("timestamp without seconds", set_at(["normalized_result", "manifest", "completed_at"],
                                         "2026-12-31T23:59Z")),
]

# Accepted by the schema, refused by rea: its shim event names a route the shim plan lacks
# (B §5.4 rule 10, not expressible here).
CAPTURE_LOOSER = [
    ("every record kind filled", lambda r: fill_records(r["normalized_result"])),
]

# Refused by the schema, accepted by rea's importer (schema/json/README.md, "Stricter than rea's
# importer"): what every producer writes, but nothing rea reads depends on.
CAPTURE_STRICTER = {
    "limitations without the artifact sentence",
    "file state with a hash for a directory",
    "created file with a before state",
}


def fill_records(capture):
    """One of every record the other parts of rea write (B §4.3), as the spec describes them."""
    capture["frames"] = [{"sequence": 0, "at_ms": 0, "data": "$ "}]
    capture["rendered_frames"] = [{"sequence": 0, "at_ms": 0, "columns": 80, "rows": 2,
                                   "cursor_x": 2, "cursor_y": 0, "active_buffer": "alternate",
                                   "lines": ["$ ", ""], "serialized_state": "x"}]
    capture["interaction_events"] = [
        {"sequence": 0, "scheduled_at_ms": 0, "dispatched_at_ms": 1, "type": "input",
         "data": "<redacted-input:3-bytes>", "outcome": "dispatched"},
        {"sequence": 1, "scheduled_at_ms": 5, "dispatched_at_ms": 6, "type": "input",
         "data": "\u001b[1;1R", "outcome": "dispatched", "automatic": True},
        {"sequence": 2, "scheduled_at_ms": 9, "dispatched_at_ms": 0, "type": "signal",
         "data": "<not-dispatched>", "outcome": "target_exited"}]
    capture["process_samples"] = [
        {"at_ms": 0, "pid": 1, "parent_pid": 2, "command": "/bin/sh", "process_group_id": 1,
         "session_id": 1},
        {"at_ms": 10, "pid": 3, "parent_pid": 1, "command": "", "process_group_id": None,
         "session_id": None}]
    capture["shim_events"] = [
        {"sequence": 0, "at_ms": 3, "command": "git", "route_index": 0, "arguments": ["status"],
         "working_directory": "<working-directory>", "outcome": "matched"},
        {"sequence": 1, "at_ms": 4, "command": "git", "route_index": None, "arguments": [],
         "working_directory": "<working-directory>", "outcome": "unmatched"}]
    capture["protocol_events"] = [
        {"sequence": 0, "at_ms": 0, "protocol": "http", "direction": "request", "method": "GET",
         "path": "/", "data": "<redacted-request-body>", "outcome": "unmatched"},
        {"sequence": 1, "at_ms": 1, "protocol": "websocket", "direction": "sent", "method": None,
         "path": None, "data": "hi", "outcome": "script_exhausted"}]
    link = {"path": "root_0:l", "type": "symlink", "mode": 41471, "size": 1, "sha256": None,
            "symlink_target": "<outside-declared-root>"}
    capture["files_after"] = [FILE, link]
    capture["filesystem_effects"] = [
        {"path": "root_0:a", "status": "created", "before": None, "after": FILE},
        {"path": "root_0:l", "status": "deleted", "before": link, "after": None},
        {"path": "root_0:m", "status": "modified", "before": FILE, "after": FILE}]
    capture["residual_unknowns"].append({"scope": "shim", "reason": "ledger lost"})


def canonical_json(value):
    """RFC 8785 canonical JSON (B §5.3) for the integer-only documents of these tests."""
    if isinstance(value, dict):
        keys = sorted(value, key=lambda k: k.encode("utf-16-be"))
        return "{" + ",".join(json.dumps(k, ensure_ascii=False) + ":" + canonical_json(value[k])
                              for k in keys) + "}"
    if isinstance(value, list):
        return "[" + ",".join(canonical_json(item) for item in value) + "]"
    if isinstance(value, float):
        if not value.is_integer():
            raise ValueError("only integral numbers are canonicalised here")
        return str(int(value))
    return json.dumps(value, ensure_ascii=False)


def resealed(record):
    """`record` with the evidence_id rea computes for it (subject is null in these records)."""
    body = {k: v for k, v in record.items() if k != "evidence_id"}
    digest = hashlib.sha256(canonical_json(body).encode("utf-8")).hexdigest()
    return dict(record, evidence_id="ev_" + digest)


def base_comparison():
    return {
        "status": "unknown", "terminal": "unchanged", "interaction": "unchanged",
        "exit": "unchanged", "filesystem": "unchanged", "protocol": "unchanged",
        "process": "unknown", "shim": "unchanged",
        "first_divergence": {"status": "unknown",
                             "reason": "Residual unknowns prevent proving that no divergence "
                                       "occurred."},
        "limitations": ["sampled"],
        "timing": dict({"tolerance_ms": 50},
                       **{d: {"max_deviation_ms": None, "exceeds_tolerance": False}
                          for d in ("terminal", "interaction", "exit", "filesystem", "protocol",
                                    "process", "shim")})}


COMPARISON = validator("comparison-evidence.schema.json#/$defs/comparison")
FOUND = {"status": "found", "dimension": "terminal", "index": 0, "left_at_ms": None,
         "right_at_ms": 0, "left": None, "right": {"kind": "raw", "sequence": 0, "at_ms": 0,
                                                   "data": "new"}}

COMPARISON_REJECTED = [
    ("unchanged with a changed dimension", lambda c: c.update(status="unchanged", exit="changed")),
    ("changed without a difference", set_at(["status"], "changed")),
    ("unknown with a changed dimension", set_at(["shim"], "changed")),
    ("one truncated dimension", set_at(["terminal"], "truncated")),
    ("exit added", lambda c: c.update(status="changed", exit="added")),
    ("found without index", lambda c: c.update(first_divergence={
        k: v for k, v in FOUND.items() if k != "index"})),
    ("timing without deviation", lambda c: c.update(first_divergence=dict(FOUND, timing=True))),
    ("unknown reason of our own", set_at(["first_divergence", "reason"], "why not")),
    ("exceeding without a deviation", set_at(["timing", "exit", "exceeds_tolerance"], True)),
    ("timing without a dimension", delete_at(["timing", "shim"])),
    ("unknown member", set_at(["extra"], 1)),
]

COMPARISON_ACCEPTED = [
    ("as is", lambda c: None),
    ("baseline mode (no timing)", delete_at(["timing"])),
    ("B §9.6 terminal added", lambda c: c.update(status="changed", terminal="added",
                                                 first_divergence=FOUND)),
    ("timing divergence", lambda c: c.update(
        status="changed", exit="changed",
        first_divergence=dict(FOUND, dimension="exit", timing=True, deviation_ms=120),
        timing=dict(c["timing"], exit={"max_deviation_ms": 120, "exceeds_tolerance": True}))),
    ("truncated short-circuit", lambda c: c.update(
        status="truncated", **{d: "truncated" for d in ("terminal", "interaction", "exit",
                                                        "filesystem", "protocol", "process",
                                                        "shim")},
        first_divergence={"status": "unknown", "reason": "At least one capture is truncated."},
        limitations=["At least one capture is truncated."])),
    ("identical", lambda c: (c.update(status="unchanged", process="unchanged",
                                      first_divergence={"status": "none"}, limitations=[]))),
]


def check_record_mutations():
    record = load(os.path.join(SOURCE_DIR, "tests", "data", "captures",
                               "rea-v4-minimal-evidence.json"))
    for name, change in CAPTURE_REJECTED:
        expect_invalid("capture mutation '%s'" % name, CAPTURE_EVIDENCE, mutated(record, change))
    for name, change in CAPTURE_ACCEPTED + CAPTURE_LOOSER:
        expect_valid("capture mutation '%s'" % name, CAPTURE_EVIDENCE, mutated(record, change))
    base = base_comparison()
    for name, change in COMPARISON_REJECTED:
        expect_invalid("comparison mutation '%s'" % name, COMPARISON, mutated(base, change))
    for name, change in COMPARISON_ACCEPTED:
        expect_valid("comparison mutation '%s'" % name, COMPARISON, mutated(base, change))


# ---------------------------------------------------------------------------------------------
# Part 2: records produced by the real binary

def policy_environment():
    """examples/policy.env as environment entries (NAME='value' or NAME=value lines)."""
    env = {}
    with open(os.path.join(SOURCE_DIR, "examples", "policy.env"), encoding="utf-8") as f:
        for line in f:
            line = line.strip()
            if not line or line.startswith("#") or "=" not in line:
                continue
            name, value = line.split("=", 1)
            if len(value) >= 2 and value[0] == value[-1] and value[0] in "'\"":
                value = value[1:-1]
            env[name.strip()] = value
    return env


class Runner:
    def __init__(self, build_dir, tmp):
        self.rea = os.path.join(build_dir, "bin", "rea")
        self.tmp = tmp
        self.env = {k: v for k, v in os.environ.items() if not k.startswith("REA_")}
        self.env.update(policy_environment())
        self.env["TMPDIR"] = tmp
        self.count = 0

    def run(self, args, policy=True):
        # Without the policy rea parses a scenario and then refuses to run it.
        env = self.env if policy else {k: v for k, v in self.env.items()
                                       if not k.startswith("REA_")}
        result = subprocess.run([self.rea] + args, env=env, cwd=self.tmp,
                                stdout=subprocess.PIPE, stderr=subprocess.PIPE, timeout=240)
        return result.returncode, result.stdout.decode("utf-8", "replace"), \
            result.stderr.decode("utf-8", "replace")

    def write(self, document):
        self.count += 1
        path = os.path.join(self.tmp, "doc-%d.json" % self.count)
        with open(path, "w", encoding="utf-8") as f:
            json.dump(document, f)
        return path


def capture(runner, scenario_path, name):
    code, out, err = runner.run(["capture-process", scenario_path])
    if code != 0:
        fail(name, "rea capture-process exited %d: %s %s" % (code, out[:500], err[:500]))
        return None
    try:
        record = json.loads(out)
    except ValueError as e:
        fail(name, "rea capture-process printed no JSON: %s" % e)
        return None
    expect_valid(name, CAPTURE_EVIDENCE, record)
    return runner.write(record)


def compare(runner, left, right, name, options=()):
    code, out, err = runner.run(["compare-process-captures"] + list(options) + [left, right])
    if code != 0:
        fail(name, "rea compare-process-captures exited %d: %s %s" % (code, out[:500], err[:500]))
        return None
    record = json.loads(out)
    expect_valid(name, COMPARISON_EVIDENCE, record)
    return record


def check_capture_mutations_with_rea(runner, fixture):
    """Each capture mutation, with its evidence_id recomputed, given to rea's importer (by
    comparing the record with itself): rea must agree with the schema except where the README
    says the schema is stricter (CAPTURE_STRICTER) or looser (CAPTURE_LOOSER)."""
    record = load(fixture)
    if resealed(record)["evidence_id"] != record["evidence_id"]:
        fail("canonical JSON of the test", "does not reproduce the evidence_id of " + fixture)
        return
    cases = [(n, c, n not in CAPTURE_STRICTER) for n, c in CAPTURE_REJECTED]
    cases += [(n, c, False) for n, c in CAPTURE_ACCEPTED]
    cases += [(n, c, True) for n, c in CAPTURE_LOOSER]
    for name, change, refused in cases:
        if name == "evidence_id in uppercase":
            document = mutated(record, change)  # the id itself is the mutation
        else:
            document = resealed(mutated(record, change))
        path = runner.write(document)
        code, out, _ = runner.run(["compare-process-captures", path, path])
        if refused and code == 0:
            fail("rea on capture mutation '%s'" % name, "rea should refuse the record but compared it")
        elif not refused and code != 0:
            fail("rea on capture mutation '%s'" % name,
                 "rea should accept the record, exited %d: %s" % (code, out[:400]))
        else:
            ok()


def compare_variants(runner, original, record):
    """Comparisons of a real capture with altered copies of it (resealed; the capture's own
    commitments do not cover what is altered), so that rea writes every kind of comparison:
    content and timing divergences in both modes and the truncated short-circuit."""
    def altered(name, change):
        document = resealed(mutated(record, change))
        return name, runner.write(document)

    def shift(r):
        for frame in r["normalized_result"]["frames"]:
            frame["at_ms"] += 1000

    def rewrite(r):
        frames = r["normalized_result"]["frames"]
        frames[:] = [{"sequence": 0, "at_ms": frames[0]["at_ms"] if frames else 0,
                      "data": "something else\r\n"}]

    variants = [altered("other output", rewrite), altered("later output", shift),
                altered("truncated", set_at(["normalized_result", "truncated"], True))]
    for name, path in variants:
        for options in ([], ["--baseline-semantics"], ["--timing-tolerance-ms", "0"]):
            result = compare(runner, original, path, "comparison with %s %s" % (name, options),
                             options)
            if result is None:
                continue
            comparison = result["normalized_result"]
            expected = "unknown" if name == "truncated" else "found"
            if comparison["first_divergence"]["status"] != expected:
                fail("comparison with %s %s" % (name, options),
                     "first_divergence should be %s: %s" % (expected,
                                                           comparison["first_divergence"]))


def check_produced_records(build_dir):
    rea = os.path.join(build_dir, "bin", "rea")
    if not os.access(rea, os.X_OK):
        fail("build", "%s is not an executable: build the `rea` and `rea-pty` targets" % rea)
        return
    with tempfile.TemporaryDirectory(prefix="rea-schema-test-") as tmp:
        runner = Runner(build_dir, tmp)
        produced = {}
        for path in example_scenarios():
            name = "capture of " + os.path.relpath(path, SOURCE_DIR)
            produced[path] = capture(runner, with_own_roots(path, tmp), name)
        # Two captures of the same scenario share their comparison contract, so they compare.
        hello = os.path.join(SOURCE_DIR, "examples", "hello.json")
        again = capture(runner, hello, "second capture of examples/hello.json")
        if produced.get(hello) and again:
            compare(runner, produced[hello], again, "comparison of two hello captures")
            compare(runner, produced[hello], again, "baseline comparison of two hello captures",
                    ["--baseline-semantics"])
            record = load(produced[hello])
            compare_variants(runner, produced[hello], record)
            # The frame check on a real record: a frame must carry its data.
            if record["normalized_result"]["frames"]:
                broken = mutated(record, lambda r: r["normalized_result"]["frames"][0].pop("data"))
                expect_invalid("produced capture with a frame missing data", CAPTURE_EVIDENCE,
                               broken)
            else:
                fail("capture of examples/hello.json", "recorded no frame")
        fixture = os.path.join(SOURCE_DIR, "tests", "data", "captures",
                               "rea-v4-minimal-evidence.json")
        compare(runner, fixture, fixture, "comparison of REA's capture with itself")
        check_capture_mutations_with_rea(runner, fixture)
        # The schema and rea refuse the same scenarios.
        base = base_scenario()
        for name, change in SCENARIO_REJECTED + SCENARIO_LOOSER:
            path = runner.write(mutated(base, change))
            code, out, _ = runner.run(["capture-process", path], policy=False)
            if code != 1 or "The scenario is invalid" not in out:
                fail("rea on scenario mutation '%s'" % name,
                     "rea should refuse it as an invalid scenario, exited %d: %s"
                     % (code, out[:300]))
            else:
                ok()
        for name, change in SCENARIO_ACCEPTED:
            path = runner.write(mutated(base, change))
            code, out, _ = runner.run(["capture-process", path], policy=False)
            if code != 1 or "The scenario is invalid" in out:
                fail("rea on scenario mutation '%s'" % name,
                     "rea should accept the scenario and refuse only the disabled capture, "
                     "exited %d: %s" % (code, out[:300]))
            else:
                ok()


def main():
    if len(sys.argv) < 2:
        print(__doc__)
        return 2
    build_dir = os.path.abspath(sys.argv[1])
    parts = sys.argv[2:] or ["documents", "captures"]
    if "documents" in parts:
        check_schemas()
        check_scenario_files()
        check_scenario_mutations()
        check_capture_fixtures()
        check_record_mutations()
    if "captures" in parts:
        check_produced_records(build_dir)
    print("%d checks passed, %d failed" % (passes, len(failures)))
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
