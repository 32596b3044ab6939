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
    packages=(pkg-config libssl-dev libqrencode-dev)
    # libcurl's headers: Debian's flavours (OpenSSL, GnuTLS, NSS) exclude each other and all give the same
    # curl/curl.h and libcurl.pc, which is all CCurl needs (libcurl.so.4 is loaded at run time). Take the one that is
    # installed; installing another would remove it and everything that depends on it.
    curl_dev=libcurl4-openssl-dev
    for flavour in libcurl4-openssl-dev libcurl4-gnutls-dev libcurl4-nss-dev; do
        if dpkg-query -W -f='${Status}' "$flavour" 2>/dev/null | grep -q "install ok installed"; then
            curl_dev="$flavour"
            break
        fi
    done
    packages+=("$curl_dev")
    # The integration tests drive the real clients: git (git http-backend), curl, and kubectl (Debian's
    # kubernetes-client, only when no kubectl is installed). python3-venv: the end-to-end test packages go into a
    # virtual environment (Debian's python3 refuses pip outside one, PEP 668).
    [ "$want_test" = 1 ] && packages+=(zbar-tools openssl python3 python3-venv git curl)
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

# The end-to-end tests' Python packages (Tests/e2e/requirements.txt), in a virtual environment under .build that
# Scripts/test.sh runs pytest from.
if [ "$want_test" = 1 ]; then
    venv="$here/.build/e2e-venv"
    if [ ! -x "$venv/bin/python" ]; then
        echo "Creating the end-to-end tests' virtual environment ($venv)" >&2
        mkdir -p "$here/.build"
        python3 -m venv "$venv" >&2
    fi
    # Installed again whenever requirements.txt changes (its SHA-256 is kept in the venv).
    wanted="$(sha256sum "$here/Tests/e2e/requirements.txt" | cut -d' ' -f1)"
    if [ "$(cat "$venv/.requirements.sha256" 2>/dev/null)" != "$wanted" ]; then
        echo "Installing the end-to-end tests' Python packages (Tests/e2e/requirements.txt) into $venv" >&2
        "$venv/bin/python" -m pip install -q --disable-pip-version-check -r "$here/Tests/e2e/requirements.txt" >&2
        echo "$wanted" >"$venv/.requirements.sha256"
    fi
fi
