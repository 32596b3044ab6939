#!/usr/bin/env bash
# Installs what DeviceLogin needs to build (and, with --test, to run every test) when it is missing.
# Debian/Ubuntu: apt-get (as root, or through sudo). macOS: brew install qrencode.
set -euo pipefail

want_test=0
[ "${1:-}" = "--test" ] && want_test=1
here=$(cd "$(dirname "$0")/.." && pwd)

if [ "$(uname -s)" = "Darwin" ]; then
    command -v pkg-config >/dev/null || brew install pkg-config
    pkg-config --exists libqrencode || brew install qrencode
    if [ "$want_test" = 1 ]; then command -v zbarimg >/dev/null || brew install zbar; fi
else
    # libssl-dev: OpenSSL 3's headers, which CCrypto is compiled against (libcrypto.so.3 is loaded at run time).
    packages=(pkg-config libcurl4-openssl-dev libssl-dev libqrencode-dev)
    # The integration tests drive the real clients: git (git http-backend), curl, and kubectl (Debian's
    # kubernetes-client, only when no kubectl is installed).
    [ "$want_test" = 1 ] && packages+=(zbar-tools openssl python3-pip git curl)
    # The completion and man page tests: bash runs the completion function, fish and zsh check their scripts, and
    # groff and man render device-login(1).
    [ "$want_test" = 1 ] && packages+=(groff-base man-db zsh fish)
    [ "$want_test" = 1 ] && ! command -v kubectl >/dev/null && packages+=(kubernetes-client)
    missing=()
    for p in "${packages[@]}"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
    done
    if [ ${#missing[@]} -gt 0 ]; then
        sudo=""
        [ "$(id -u)" = 0 ] || sudo="sudo"
        echo "Installing: ${missing[*]}" >&2
        $sudo apt-get update -qq
        DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${missing[@]}" >&2
    fi
fi

if [ "$want_test" = 1 ]; then
    if ! python3 -c 'import authlib, docker, flask, pytest, requests' 2>/dev/null; then
        echo "Installing the end-to-end test server's Python packages (Tests/e2e/requirements.txt)" >&2
        python3 -m pip install -q -r "$here/Tests/e2e/requirements.txt" >&2
    fi
fi
