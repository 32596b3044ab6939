#!/usr/bin/env bash
# Builds the DocC documentation of the libraries with the toolchain's docc, from symbol graphs, and fails on any
# warning (an unresolved symbol link, a missing article). Output: .build/docs/<Module>.doccarchive.
#
# Usage: Scripts/docs.sh [MODULE...]   (default: DeviceLogin DeviceLoginTesting)
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
exit "$failed"
