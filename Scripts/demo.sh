#!/usr/bin/env bash
# The first thing to run: installs what is missing (libqrencode, libcurl's headers, pkg-config), builds, and runs
# a whole device sign-in against the built-in authorization server on 127.0.0.1. Arguments go to the demo
# (default: --approve-after 5; pass --approve-after 0 for instant, or nothing after `--` to approve by hand).
# Two products: device-login, and device-login-demo, the separate program with the server that
# `device-login demo` hands over to (so that device-login itself links no testing kit).
set -euo pipefail
cd "$(dirname "$0")/.."
bash Scripts/install-deps.sh
swift build -c release --product device-login >&2
swift build -c release --product device-login-demo >&2
if [ $# -eq 0 ]; then set -- --approve-after 5; fi
[ "${1:-}" = "--" ] && shift
exec .build/release/device-login demo "$@"
