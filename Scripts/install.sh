#!/usr/bin/env bash
# Installs device-login: one binary with the Swift runtime linked in (it runs on a box with no Swift), the
# docker-credential-device-login link Docker looks for, the man page device-login(1), and completions for bash, zsh
# and fish. Prints what it put where, and keeps that list so that --uninstall removes exactly that.
#
#   Scripts/install.sh [--prefix DIR] [--bin FILE]
#   Scripts/install.sh [--prefix DIR] --uninstall
#
#   --prefix DIR   where to install (default: /usr/local for root, ~/.local otherwise); created when missing
#   --bin FILE     install this device-login binary instead of building one (Scripts/build-release.sh). In a package
#                  made by Scripts/package.sh, the binary beside this script is taken without --bin.
#   --uninstall    remove what an earlier install into DIR put there (its list: DIR/share/device-login/installed)
#
# Files, below DIR:
#   bin/device-login                                 the program
#   bin/docker-credential-device-login               a link to it (Docker's credential helper name)
#   share/man/man1/device-login.1                    `device-login help --man`
#   share/bash-completion/completions/device-login   `device-login completion bash`
#   share/zsh/site-functions/_device-login           `device-login completion zsh`
#   share/fish/vendor_completions.d/device-login.fish  `device-login completion fish`
#   share/device-login/installed                     the list of the files above, for --uninstall
# The man page and the completions come from the installed binary itself, so they match it.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
prefix=""
binary=""
uninstall=0
usage() { sed -n '2,12p' "$0" | sed 's/^# \{0,1\}//'; }
while (($#)); do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --bin) binary="${2:?--bin needs a file}"; shift 2 ;;
        --bin=*) binary="${1#--bin=}"; shift ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) usage; exit 0 ;;
        *) echo "install.sh: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done

die() { echo "install.sh: $*" >&2; exit 1; }

if [ -z "$prefix" ]; then
    if [ "$(id -u)" = 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
fi
case "$prefix" in
    /*) ;;
    *) prefix="$PWD/$prefix" ;;
esac
manifest="$prefix/share/device-login/installed"

# --- Uninstall: exactly what the list names ----------------------------------------------------------------------
if [ "$uninstall" = 1 ]; then
    [ -f "$manifest" ] || die "nothing to uninstall: no list of installed files at $manifest"
    while IFS= read -r relative; do
        case "$relative" in
            "" | /* | *..*) die "refusing a strange entry in $manifest: '$relative'" ;;
        esac
        path="$prefix/$relative"
        if [ -e "$path" ] || [ -L "$path" ]; then
            rm -f -- "$path"
            echo "removed $path"
        else
            echo "already gone: $path"
        fi
    done <"$manifest"
    rm -f -- "$manifest"
    rmdir -- "$prefix/share/device-login" 2>/dev/null || true
    echo "device-login is uninstalled from $prefix."
    exit 0
fi

# --- The binary ---------------------------------------------------------------------------------------------------
if [ -z "$binary" ]; then
    if [ -x "$here/device-login" ] && [ ! -f "$here/../Package.swift" ]; then
        binary="$here/device-login"  # a package made by Scripts/package.sh
    else
        command -v swift >/dev/null || die "no Swift toolchain to build with; pass --bin FILE, or use a package"
        binary="$(bash "$here/build-release.sh")" || die "the build failed"
    fi
fi
[ -f "$binary" ] && [ -x "$binary" ] || die "not an executable file: $binary"
"$binary" --version >/dev/null 2>&1 || die "$binary does not run here (try: ldd $binary)"

# --- Install, recording every file -------------------------------------------------------------------------------
files=(
    bin/device-login
    bin/docker-credential-device-login
    share/man/man1/device-login.1
    share/bash-completion/completions/device-login
    share/zsh/site-functions/_device-login
    share/fish/vendor_completions.d/device-login.fish
)
for relative in "${files[@]}"; do
    mkdir -p "$prefix/$(dirname "$relative")" || die "cannot create $prefix/$(dirname "$relative")"
done
mkdir -p "$(dirname "$manifest")"

staged="$(mktemp -d "${TMPDIR:-/tmp}/device-login-install.XXXXXX")"
trap 'rm -rf "$staged"' EXIT
# Everything is made first, from the binary being installed, so a failure leaves the prefix as it was.
cp "$binary" "$staged/device-login"
chmod 755 "$staged/device-login"
"$staged/device-login" help --man >"$staged/device-login.1" || die "device-login help --man failed"
for shell in bash zsh fish; do
    "$staged/device-login" completion "$shell" >"$staged/completion.$shell" \
        || die "device-login completion $shell failed"
done

install -m 755 "$staged/device-login" "$prefix/bin/device-login"
ln -sfn device-login "$prefix/bin/docker-credential-device-login"
install -m 644 "$staged/device-login.1" "$prefix/share/man/man1/device-login.1"
install -m 644 "$staged/completion.bash" "$prefix/share/bash-completion/completions/device-login"
install -m 644 "$staged/completion.zsh" "$prefix/share/zsh/site-functions/_device-login"
install -m 644 "$staged/completion.fish" "$prefix/share/fish/vendor_completions.d/device-login.fish"
printf '%s\n' "${files[@]}" >"$manifest"

version="$("$prefix/bin/device-login" --version)"
echo "Installed $version into $prefix:"
echo "  $prefix/bin/device-login                       the program"
echo "  $prefix/bin/docker-credential-device-login     -> device-login (Docker: \"credsStore\": \"device-login\")"
echo "  $prefix/share/man/man1/device-login.1          man device-login"
echo "  $prefix/share/bash-completion/completions/device-login"
echo "  $prefix/share/zsh/site-functions/_device-login"
echo "  $prefix/share/fish/vendor_completions.d/device-login.fish"
echo "  $manifest   (what --uninstall removes)"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "Note: $prefix/bin is not on your PATH; add it, e.g. export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
