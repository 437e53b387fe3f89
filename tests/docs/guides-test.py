#!/usr/bin/env python3
"""The guides in docs/ stay true to the repository (issue 23).

- every member the scenario JSON Schema names (at any depth) appears, in backticks, in
  docs/scenario.md;
- README.md and the guides link only to files that exist in the repository (no `../`);
- the guides exist and README.md links each of them.

Usage: guides-test.py SOURCE_DIR. Prints each problem and exits 1 when there is one.
"""
import json
import os
import re
import sys


def property_names(node, names):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "properties" and isinstance(value, dict):
                names.update(value.keys())
            property_names(value, names)
    elif isinstance(node, list):
        for value in node:
            property_names(value, names)
    return names


def main():
    source = sys.argv[1]
    problems = []
    with open(os.path.join(source, "schema/json/scenario.schema.json")) as f:
        schema = json.load(f)
    with open(os.path.join(source, "docs/scenario.md")) as f:
        guide = f.read()
    for name in sorted(property_names(schema, set())):
        if f"`{name}`" not in guide:
            problems.append(f"docs/scenario.md does not explain the scenario member `{name}`")

    guides = ["docs/first-capture.md", "docs/scenario.md", "docs/policy.md", "docs/evidence.md",
              "docs/batch.md"]
    with open(os.path.join(source, "README.md")) as f:
        readme = f.read()
    for guide_path in guides:
        if not os.path.isfile(os.path.join(source, guide_path)):
            problems.append(f"{guide_path} is missing")
        if f"({guide_path})" not in readme:
            problems.append(f"README.md does not link {guide_path}")

    for document in ["README.md"] + guides:
        path = os.path.join(source, document)
        if not os.path.isfile(path):
            continue
        with open(path) as f:
            text = f.read()
        if "../" in text:
            problems.append(f"{document} points outside the repository (../)")
        for target in re.findall(r"\]\(([^)#]+)\)", text):
            if re.match(r"[a-z]+://", target):
                continue
            resolved = os.path.normpath(os.path.join(os.path.dirname(path), target))
            if not os.path.exists(resolved):
                problems.append(f"{document} links {target}, which does not exist")

    for problem in problems:
        print(problem)
    return 1 if problems else 0


if __name__ == "__main__":
    sys.exit(main())
