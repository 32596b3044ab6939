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
    python3 -m pytest -q Tests/e2e
fi

echo "== swift test${skip:+ (quick: without the stress tests)} =="
timeout 1800 swift test "${skip[@]}" 2>&1 | tee .build/swift-test.log \
    | grep -vE '^(◇|↳|Test Case .* started|Test Suite .* started)'
status=${PIPESTATUS[0]}
exit "$status"
