#!/usr/bin/env bash
# Checks that the layout table of docs/architecture.md names every folder of the tree, and no folder that is gone.
# A row's first cell names a folder in backticks, optionally followed by "(and `Sub/`, `Sub/Deeper/`, ...)" for
# folders inside it. DocC catalogs and the seed corpora's per-target folders are not rooms and are not listed.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - <<'PY'
import os, re, sys
text = open("docs/architecture.md", encoding="utf-8").read()
section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
documented = set()
for line in section.splitlines():
    if not line.startswith("| `"):
        continue
    cell = line.split("|")[1]
    names = re.findall(r"`([^`]+/)`", cell)
    base, rest = names[0], names[1:]
    for name in re.findall(r"`([^`]+/)`", cell.split("(and", 1)[0]):
        documented.add(name.rstrip("/"))
    if "(and" in cell:
        for sub in re.findall(r"`([^`]+/)`", cell.split("(and", 1)[1]):
            documented.add((base + sub).rstrip("/"))
actual = set()
for root in ["Sources", "Tests", "Benchmarks", "Scripts", "docs"]:
    for path, dirs, _ in os.walk(root):
        dirs[:] = [d for d in dirs if not d.endswith(".docc") and not path.endswith("Fuzz/Corpus")]
        if path in ("Sources", "Tests", "Benchmarks"):
            continue
        actual.add(path)
missing = sorted(actual - documented)
stale = sorted(documented - actual)
for path in missing:
    print(f"check-layout: {path}/ is not in docs/architecture.md's layout table", file=sys.stderr)
for path in stale:
    print(f"check-layout: docs/architecture.md lists {path}/, which does not exist", file=sys.stderr)
if missing or stale:
    sys.exit(1)
print(f"check-layout: {len(actual)} folders, all in docs/architecture.md", file=sys.stderr)
PY
