#!/usr/bin/env bash
# Runs every test: the Swift unit, virtual-time, loopback, CLI and QR (zbar) tests, then the end-to-end tests of
# the built device-login binary against a real Authlib RFC 8628 server. Installs what is missing first.
set -euo pipefail
cd "$(dirname "$0")/.."

bash Scripts/install-deps.sh --test

swift build
export DEVICE_LOGIN_BIN="$PWD/.build/debug/device-login"

echo "== end-to-end: device-login against a real Authlib server =="
python3 -m pytest -q Tests/e2e

echo "== swift test =="
timeout 1800 swift test 2>&1 | tee .build/swift-test.log | grep -vE '^(◇|↳|Test Case .* started|Test Suite .* started)' 
status=${PIPESTATUS[0]}
exit "$status"
