#!/usr/bin/env bash
# Makes device-login-VERSION-linux-ARCH.tar.gz and its SHA-256 file, for copying to machines that cannot build:
# the stripped binary (the Swift runtime and libstdc++ linked in; built with Scripts/build-release.sh --portable, so
# glibc 2.35 is enough), install.sh (this folder's, which takes the binary beside it) and a README.
#
#   Scripts/package.sh [--output DIR] [--bin FILE]
#
#   --output DIR   where the archive and device-login-VERSION-linux-ARCH.tar.gz.sha256 go (default: .build/package)
#   --bin FILE     package this binary instead of building one
#
# On the target machine:
#   sha256sum -c device-login-VERSION-linux-ARCH.tar.gz.sha256
#   tar -xzf device-login-VERSION-linux-ARCH.tar.gz
#   device-login-VERSION-linux-ARCH/install.sh            # /usr/local as root, ~/.local otherwise; --prefix DIR
# At run time it needs glibc, libcurl.so.4 (Debian: libcurl4) for requests, libcrypto.so.3 (libssl3) for ID-token
# signatures and DPoP, and libqrencode.so.4 (libqrencode4).
set -euo pipefail
cd "$(dirname "$0")/.."

output=.build/package
binary=""
while (($#)); do
    case "$1" in
        --output) output="${2:?--output needs a folder}"; shift 2 ;;
        --bin) binary="${2:?--bin needs a file}"; shift 2 ;;
        -h|--help) sed -n '2,17p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "package.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
die() { echo "package.sh: $*" >&2; exit 1; }

if [ -z "$binary" ]; then
    binary="$(bash Scripts/build-release.sh --portable --scratch-path .build/portable)" || die "the build failed"
fi
[ -f "$binary" ] && [ -x "$binary" ] || die "not an executable file: $binary"

version_line="$("$binary" --version)" || die "$binary --version failed"
version="${version_line##* }"
[[ "$version" =~ ^[0-9A-Za-z.+-]+$ ]] || die "unexpected version '$version' from $binary --version"
arch="$(uname -m)"
name="device-login-$version-linux-$arch"

mkdir -p "$output"
output="$(cd "$output" && pwd)"
staging="$(mktemp -d "${TMPDIR:-/tmp}/device-login-package.XXXXXX")"
trap 'rm -rf "$staging"' EXIT
mkdir "$staging/$name"
install -m 755 "$binary" "$staging/$name/device-login"
install -m 755 Scripts/install.sh "$staging/$name/install.sh"
cat >"$staging/$name/README" <<EOF
device-login $version for Linux ($arch): sign in on machines with no usable browser (OAuth 2.0 device flow).

Install:    ./install.sh                   (/usr/local as root, ~/.local otherwise; --prefix DIR to choose)
Uninstall:  ./install.sh --uninstall       (with the same --prefix)
Or copy device-login anywhere on your PATH; the man page and completions come from
\`device-login help --man\` and \`device-login completion bash|zsh|fish\`.

Needs at run time: glibc 2.35 or later; libcurl.so.4 (Debian: libcurl4) for requests; libcrypto.so.3
(libssl3) for ID-token signatures and DPoP; libqrencode.so.4 (libqrencode4) for the QR code.
EOF

archive="$output/$name.tar.gz"
# Reproducible: files in name order, owned by root, the binary's own modification time.
tar --sort=name --owner=0 --group=0 --numeric-owner --mtime="@$(stat -c %Y "$binary")" \
    -C "$staging" -czf "$archive" "$name"
(cd "$output" && sha256sum "$name.tar.gz" >"$name.tar.gz.sha256")
echo "$archive"
echo "$archive.sha256"
