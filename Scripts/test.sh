#!/usr/bin/env bash
# Runs every test: the layout and style checks (the architecture page's folder table, `swift format lint --strict`
# with the checked-in .swift-format), the Swift unit, virtual-time, loopback, CLI, stress and QR (zbar) tests, then
# the end-to-end tests of the built device-login binary against a real Authlib RFC 8628 server. Installs what is
# missing first.
# This is what CI runs.
#
#   --quick   only `swift test`, without the tests tagged `.stress` and without the end-to-end tests: for a quick
#             local run.
set -euo pipefail
cd "$(dirname "$0")/.."

quick=0
case "${1:-}" in
    "") ;;
    --quick) quick=1 ;;
    *) echo "usage: $0 [--quick]" >&2; exit 64 ;;
esac

# The tests tagged `.stress` (Tests/DeviceLoginTestSupport/Tag+Stress.swift), by name: Swift 6.3's `swift test`
# filters only by name (--filter/--skip take regular expressions over `Module.Suite/test()` identifiers), not by
# tag. Tag a new stress test and add it here.
stress_tests='FileTokenStoreTests/survivesSIGKILLAtRandomMoments\(\)'

bash Scripts/install-deps.sh --test

echo "== layout and style: docs/architecture.md names every folder; swift format lint --strict =="
bash Scripts/check-layout.sh
swift format lint --strict --recursive Sources Tests Benchmarks Package.swift

swift build
export DEVICE_LOGIN_BIN="$PWD/.build/debug/device-login"

skip=()
if [ "$quick" = 1 ]; then
    skip=(--skip "$stress_tests")
else
    echo "== end-to-end: device-login against a real Authlib server =="
    # The end-to-end packages live in a virtual environment under .build (Scripts/install-deps.sh --test makes
    # it): Debian's own python3 refuses `pip install` outside one (PEP 668).
    .build/e2e-venv/bin/python -m pytest -q Tests/e2e
fi

echo "== swift test${skip:+ (quick: without the stress tests)}: one line per suite, failures in full," \
    "the whole log in .build/swift-test.log =="
timeout 1800 swift test "${skip[@]}" 2>&1 | tee .build/swift-test.log | awk '
    # A failure and the detail lines (↳) that follow it, in full.
    /^✘/ { print; detail = 1; next }
    /^↳/ { if (detail) print; next }
    { detail = 0 }
    # Each suite, the closing lines of both runners, and whatever the build or a crash says.
    /^✔ Suite / || /Test run with [0-9]+ test/ || /Executed [0-9]+ test/ { print; next }
    /^(◇|✔ Test)/ || /^Test (Case|Suite) / || /^\[[0-9]+\/[0-9]+\]/ { next }
    /error|warning:|Fatal|Crash|signal|Exited/ { print }
'
status=${PIPESTATUS[0]}
exit "$status"
