#!/usr/bin/env bash
# Builds the DocC documentation of the libraries with the toolchain's docc, from symbol graphs, and fails on any
# warning (an unresolved symbol link, a missing article). Output: .build/docs/<Module>.doccarchive.
# Then checks the doc comments of every symbol, internal and package ones too, in all four libraries (the CLI's
# and the terminal library's included): one more docc pass over internal-level symbol graphs, failing on any
# warning but one: a link to another module's symbol, which docc cannot resolve across archives, passes when that
# module's symbol graph has a symbol at exactly that path.
#
# Usage: Scripts/docs.sh [MODULE...]   (default: DeviceLogin DeviceLoginTesting, then the internal pass)
set -euo pipefail
cd "$(dirname "$0")/.."

modules=("$@")
[ ${#modules[@]} -gt 0 ] || modules=(DeviceLogin DeviceLoginTesting)
docc=$(command -v docc || true)
[ -n "$docc" ] || docc="$(dirname "$(command -v swift)")/docc"
[ -x "$docc" ] || { echo "docs.sh: docc not found next to swift" >&2; exit 1; }

out=.build/docs
graphs="$out/symbol-graphs"
rm -rf "$out"
mkdir -p "$out"
echo "== symbol graphs (swift package dump-symbol-graph)" >&2
swift package dump-symbol-graph --minimum-access-level public >"$out/symbol-graph.log" 2>&1 \
    || { tail -20 "$out/symbol-graph.log" >&2; exit 1; }
dumped=$(sed -n 's/^Files written to //p' "$out/symbol-graph.log" | tail -n 1)
[ -d "$dumped" ] || { echo "docs.sh: no symbol graphs written" >&2; exit 1; }
failed=0
for module in "${modules[@]}"; do
    catalog=$(find "Sources/$module" -maxdepth 1 -name '*.docc' -type d | head -n 1)
    [ -n "$catalog" ] || { echo "docs.sh: Sources/$module has no .docc catalog" >&2; exit 1; }
    # Only this module's own graphs (and its extensions of other modules' types).
    mkdir -p "$graphs/$module"
    cp "$dumped/$module.symbols.json" "$graphs/$module/"
    find "$dumped" -name "$module@*.symbols.json" -exec cp {} "$graphs/$module/" \;
    echo "== $module: docc convert" >&2
    log="$out/$module-docc.log"
    "$docc" convert "$catalog" --additional-symbol-graph-dir "$graphs/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.devicelogin.$module" \
        --output-path "$out/$module.doccarchive" >"$log" 2>&1 || { cat "$log" >&2; exit 1; }
    if grep -q 'warning:' "$log"; then
        grep -A3 'warning:' "$log" >&2
        echo "docs.sh: $module: $(grep -c 'warning:' "$log") warning(s)" >&2
        failed=1
    else
        echo "   $module: no warnings ($out/$module.doccarchive)" >&2
    fi
done
[ $# -eq 0 ] || exit "$failed"

echo "== every doc comment, internal ones included (swift package dump-symbol-graph --minimum-access-level internal)" >&2
swift package dump-symbol-graph --minimum-access-level internal --skip-synthesized-members >"$out/internal.log" 2>&1 \
    || { tail -20 "$out/internal.log" >&2; exit 1; }
dumped=$(sed -n 's/^Files written to //p' "$out/internal.log" | tail -n 1)
for module in DeviceLogin DeviceLoginTesting DeviceLoginTerminal DeviceLoginCLI; do
    mkdir -p "$out/internal/$module"
    cp "$dumped/$module.symbols.json" "$out/internal/$module/"
    find "$dumped" -name "$module@*.symbols.json" -exec cp {} "$out/internal/$module/" \;
    catalog=$(find "Sources/$module" -maxdepth 1 -name '*.docc' -type d | head -n 1)
    "$docc" convert ${catalog:+"$catalog"} --additional-symbol-graph-dir "$out/internal/$module" \
        --fallback-display-name "$module" --fallback-bundle-identifier "org.devicelogin.$module.internal" \
        --output-path "$out/internal/$module.doccarchive" >"$out/internal/$module-docc.log" 2>&1 \
        || { cat "$out/internal/$module-docc.log" >&2; exit 1; }
done
python3 - "$out/internal" "$dumped" <<'PY' || failed=1
import glob, json, os, re, sys
folder, graphs = sys.argv[1], sys.argv[2]
depends = {"DeviceLogin": [], "DeviceLoginTesting": ["DeviceLogin"], "DeviceLoginTerminal": ["DeviceLogin"],
           "DeviceLoginCLI": ["DeviceLogin", "DeviceLoginTerminal"]}
def paths(module):
    graph = json.load(open(f"{graphs}/{module}.symbols.json"))
    return {"/".join(symbol["pathComponents"]) for symbol in graph["symbols"]}
known = {module: paths(module) for module in depends}
bad = 0
for module, others in depends.items():
    log = open(f"{folder}/{module}-docc.log", encoding="utf-8").read()
    for warning in re.split(r"\n(?=warning: )", log):
        if not warning.startswith("warning: "):
            continue
        missing = re.match(r"warning: '([^']+)' doesn't exist at", warning)
        if missing:
            # The link's whole text, from the source line docc quotes: ``A/b(_:)`` with a disambiguation stripped.
            where = re.search(r"--> (\S+):(\d+):(\d+)-\d+:(\d+)", warning)
            link = missing.group(1)
            if where:
                # docc names the file relative to the catalog, or to the package without one.
                source = glob.glob(f"Sources/{module}/*.docc")
                source = os.path.normpath(os.path.join(source[0], where.group(1))) if source else where.group(1)
                line = open(source, encoding="utf-8").read().splitlines()[int(where.group(2)) - 1]
                start = line.rfind("``", 0, int(where.group(3))) + 2
                end = line.find("``", start)
                link = line[start:end] if start >= 2 and end > start else link
            path = "/".join(re.sub(r"-[\w.]+$", "", part) for part in link.split("/"))
            if any(path in known[other] or path.split("/", 1)[-1] in known[other] for other in others):
                continue
        print(warning.rstrip(), file=sys.stderr)
        bad += 1
print(f"   internal doc comments: {bad} warning(s)", file=sys.stderr)
sys.exit(1 if bad else 0)
PY
exit "$failed"
