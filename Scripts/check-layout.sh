#!/usr/bin/env bash
# Checks docs/architecture.md's layout table against the tree, in two ways, and the core's folders' size:
# - every folder of the tree has a row, and every row a folder. A row's first cell names a folder in backticks,
#   optionally followed by "(and `Sub/`, `Sub/Deeper/`, ...)" for folders inside it. DocC catalogs and the seed
#   corpora's per-target folders are not rooms and are not listed.
# - each Swift room uses only what its "uses" cell names. The rooms a room uses are found by a scan: a top-level
#   type declared in room B and named in a file of room A (comments and string literals left out) means A uses B,
#   and `import X` of one of our targets means it uses X. The cell names rooms in backticks: a room of the same
#   module by its path inside the module (`Protocol/Wire`), another module of ours by its name (`DeviceLogin`: any
#   of its rooms), a C target by its name; a cell of `—` names nothing. Text outside backticks, and in
#   parentheses, is for people. A name in the cell that the scan does not find is reported, not failed: the scan
#   sees types, not an extension's members on a standard type.
# Rooms of one module that use each other are reported as notes: breaking those cycles is work still to do.
# No folder of the core (Sources/DeviceLogin) may hold more than 12 Swift files.
# `--uses` prints what the scan finds, room by room, with one type that shows each use.
set -euo pipefail
cd "$(dirname "$0")/.."
python3 - "$@" <<'PY'
import collections, os, re, sys
text = open("docs/architecture.md", encoding="utf-8").read()
section = text.split("## Layout", 1)[1].split("\n## ", 1)[0]
documented = set()
cells = {}  # room -> its "uses" cell
for line in section.splitlines():
    if not line.startswith("| `"):
        continue
    row = line.split("|")
    cell = row[1]
    names = re.findall(r"`([^`]+/)`", cell)
    base = names[0]
    for name in re.findall(r"`([^`]+/)`", cell.split("(and", 1)[0]):
        documented.add(name.rstrip("/"))
    if "(and" in cell:
        for sub in re.findall(r"`([^`]+/)`", cell.split("(and", 1)[1]):
            documented.add((base + sub).rstrip("/"))
    cells[base.rstrip("/")] = row[3]
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

# The scan of uses.
targets = {d: root for root in ("Sources", "Benchmarks") for d in os.listdir(root) if os.path.isdir(f"{root}/{d}")}
def module_of(room):
    return room.split("/")[1]
def short(room, seen_from):
    """A room's name as a cell in `seen_from`'s row writes it."""
    if module_of(room) != module_of(seen_from):
        return module_of(room)
    return "/".join(room.split("/")[2:])
declaration = re.compile(
    r"^(?:@[\w.]+(?:\([^)]*\))?\s+)*(?:(?:public|package|internal|private|fileprivate|final|open|nonisolated|"
    r"indirect)\s+)*(?:struct|class|enum|protocol|actor|typealias)\s+(\w+)", re.M)
importing = re.compile(r"^(?:@\w+\s+)?(?:(?:public|package|internal)\s+)?import\s+(\w+)", re.M)
def code_only(source):
    source = re.sub(r'"""(?:.|\n)*?"""', '""', source)
    source = re.sub(r'"(?:[^"\\\n]|\\.)*"', '""', source)
    source = re.sub(r"/\*.*?\*/", "", source, flags=re.S)
    return re.sub(r"//[^\n]*", "", source)
files = {}
for root in ("Sources", "Benchmarks"):
    for path, dirs, names in os.walk(root):
        dirs[:] = [d for d in dirs if not d.endswith(".docc")]
        files.update({f"{path}/{n}": path for n in names if n.endswith(".swift")})
owners = collections.defaultdict(set)
sources, imports = {}, collections.defaultdict(set)
for path, room in files.items():
    source = open(path, encoding="utf-8").read()
    sources[path] = code_only(source)
    for match in declaration.finditer(source):
        owners[match.group(1)].add(room)
    for match in importing.finditer(source):
        if match.group(1) in targets:
            imports[module_of(room)].add(match.group(1))
uses = collections.defaultdict(dict)  # room -> {name as its cell writes it: a type that shows it}
for path, room in files.items():
    module = module_of(room)
    for match in importing.finditer(open(path, encoding="utf-8").read()):
        if match.group(1) in targets:
            uses[room].setdefault(match.group(1), "import " + match.group(1))
    visible = {module} | imports[module]
    for name in sorted(set(re.findall(r"\b[A-Z]\w*\b", sources[path]))):
        rooms = {r for r in owners.get(name, ()) if module_of(r) in visible}
        if not rooms or room in rooms:
            continue
        rooms = {r for r in rooms if module_of(r) == module} or rooms
        if len(rooms) == 1:
            uses[room].setdefault(short(rooms.pop(), room), f"{name} in {os.path.basename(path)}")
if "--uses" in sys.argv:
    for room in sorted(set(files.values())):
        print(f"{room}/: " + ", ".join(f"{n} ({why})" for n, why in sorted(uses[room].items())))
    sys.exit(0)
wrong = []
for room in sorted(set(files.values())):
    if room not in cells:
        continue  # reported above as missing
    cell = re.sub(r"\([^)]*\)", "", cells[room])
    named = set(re.findall(r"`([^`]+)`", cell))
    for name, why in sorted(uses[room].items()):
        if name not in named:
            wrong.append(f"check-layout: {room}/ uses `{name}` ({why}), which its row's \"uses\" does not name")
    for name in sorted(named - set(uses[room])):
        # A note, not a failure: the scan sees types, not an extension's members on a standard type.
        print(f"check-layout: note: {room}/'s row names `{name}` in \"uses\", but the scan finds no use of it",
              file=sys.stderr)
# A module's own row names every target of ours that the module imports.
for room, cell in cells.items():
    parts = room.split("/")
    if len(parts) != 2 or parts[0] not in ("Sources", "Benchmarks") or room in set(files.values()):
        continue
    named = set(re.findall(r"`([^`]+)`", re.sub(r"\([^)]*\)", "", cell)))
    for target in sorted(imports[parts[1]] - named):
        wrong.append(f"check-layout: {room}/ imports `{target}`, which its row's \"uses\" does not name")
for line in wrong:
    print(line, file=sys.stderr)
# No cycles between the rooms of one module: rooms form layers, each using only rooms below it. A cycle of any
# length is found (Tarjan's strongly connected components) and fails, with the uses that close it.
graph = {room: {r for r in files.values() if module_of(r) == module_of(room) and short(r, room) in uses[room]}
         for room in set(files.values())}
index, low, stack, on_stack, cycles = {}, {}, [], set(), []
def connect(room):
    index[room] = low[room] = len(index)
    stack.append(room)
    on_stack.add(room)
    for other in sorted(graph[room]):
        if other not in index:
            connect(other)
            low[room] = min(low[room], low[other])
        elif other in on_stack:
            low[room] = min(low[room], index[other])
    if low[room] == index[room]:
        component = []
        while True:
            member = stack.pop()
            on_stack.discard(member)
            component.append(member)
            if member == room:
                break
        if len(component) > 1:
            cycles.append(sorted(component))
for room in sorted(graph):
    if room not in index:
        connect(room)
for component in cycles:
    closing = [f"{a}/ uses {short(b, a)} ({uses[a][short(b, a)]})" for a in component for b in component
               if b in graph[a]]
    wrong.append("check-layout: these rooms use each other in a cycle: " + "; ".join(closing))
for line in wrong[len(wrong) - len(cycles):]:
    print(line, file=sys.stderr)
# No room of the core holds more than a dozen files (issue 18): past that a folder stops being readable at a glance,
# and the layout is asking for a room of its own.
crowded = []
for path, _, names in os.walk("Sources/DeviceLogin"):
    count = sum(1 for name in names if name.endswith(".swift"))
    if count > 12:
        crowded.append(path)
        print(f"check-layout: {path}/ holds {count} Swift files, more than 12: give part of it a room",
              file=sys.stderr)
if missing or stale or wrong or crowded:
    sys.exit(1)
print(f"check-layout: {len(actual)} folders, all in docs/architecture.md; {len(set(files.values()))} Swift rooms, "
      "each using only what its row names", file=sys.stderr)
PY
