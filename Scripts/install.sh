#!/usr/bin/env bash
# Installs device-login: one binary with the Swift runtime linked in (it runs on a box with no Swift), the
# docker-credential-device-login link Docker looks for, the man page device-login(1), and completions for bash, zsh
# and fish. Prints what it put where, and keeps that list so that --uninstall removes exactly that.
#
#   Scripts/install.sh [--prefix DIR] [--bin FILE] [--pam]
#   Scripts/install.sh [--prefix DIR] --uninstall
#   Scripts/install.sh --lib [--prefix DIR] [--uninstall]   the C library instead (Scripts/install-lib.sh)
#
#   --prefix DIR   where to install (default: /usr/local for root, ~/.local otherwise); created when missing
#   --bin FILE     install this device-login binary instead of building one (Scripts/build-release.sh). In a package
#                  made by Scripts/package.sh, the binary beside this script is taken without --bin.
#   --uninstall    remove what an earlier install into DIR put there (its list: DIR/share/device-login/installed)
#   --pam          also build and install the PAM module (gcc and libpam0g-dev; docs/ssh.md): with --prefix as
#                  DIR/lib/security/pam_device_login.so, which finds its helper DIR/bin/device-login; without, in
#                  the system's PAM module folder (Debian: /lib/TRIPLET/security, TRIPLET from dpkg-architecture
#                  or gcc -print-multiarch; else the folder of pam_unix.so), named with helper= in the stack line
#   DESTDIR=DIR    (variable) write every file below DIR, as a package build does: DIR/usr/local/..., DIR/lib/...
#
# Files, below DIR:
#   bin/device-login                                 the program
#   bin/docker-credential-device-login               a link to it (Docker's credential helper name)
#   share/man/man1/device-login.1                    `device-login help --man`
#   share/bash-completion/completions/device-login   `device-login completion bash`
#   share/zsh/site-functions/_device-login           `device-login completion zsh`
#   share/fish/vendor_completions.d/device-login.fish  `device-login completion fish`
#   lib/security/pam_device_login.so                 with --pam: the PAM module (Scripts/build-pam.sh)
#   share/device-login/installed                     the list of the files above, and of the folders the install
#                                                    created, for --uninstall
# The man page and the completions come from the installed binary itself, so they match it. --uninstall removes the
# folders the install created once they are empty, never one that was there before (nor /usr/local/bin and the
# like). bash loads the completion only with the bash-completion package: the install says so when it is missing.
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
case " $* " in *" --lib "*) exec bash "$here/install-lib.sh" "$@" ;; esac
prefix=""
binary=""
uninstall=0
pam=0
usage() { sed -n '2,19p' "$0" | sed 's/^# \{0,1\}//'; }
prefix_given=0
while (($#)); do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; prefix_given=1; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; prefix_given=1; shift ;;
        --bin) binary="${2:?--bin needs a file}"; shift 2 ;;
        --bin=*) binary="${1#--bin=}"; shift ;;
        --uninstall) uninstall=1; shift ;;
        --pam) pam=1; shift ;;
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
destdir="${DESTDIR:-}"
destdir="${destdir%/}"
case "$destdir" in "" | /*) ;; *) destdir="$PWD/$destdir" ;; esac
installed_prefix="$prefix"  # where the files are used from; they are written below $destdir
prefix="$destdir$prefix"
manifest="$prefix/share/device-login/installed"

# The system's PAM module folder: Debian's multiarch one (/lib/TRIPLET/security) when it exists, else the folder
# that holds pam_unix.so. Nothing printed when there is none.
system_pam_folder() {
    local triplet folder
    triplet="$(dpkg-architecture -qDEB_HOST_MULTIARCH 2>/dev/null || ${CC:-gcc} -print-multiarch 2>/dev/null || true)"
    if [ -n "$triplet" ] && [ -d "/lib/$triplet/security" ]; then
        echo "/lib/$triplet/security"
        return 0
    fi
    for folder in ${triplet:+"/usr/lib/$triplet/security"} /lib/security /usr/lib/security /lib64/security \
        /usr/lib64/security; do
        [ -f "$folder/pam_unix.so" ] && { echo "$folder"; return 0; }
    done
    return 0
}
# The list's entry for a module in the system's folder: a word, not a path, so that a tampered list cannot name a
# file outside the prefix; the folder is found again on --uninstall.
system_pam_entry="@system-pam-module"

# Folders that are never removed, even when empty and listed: the system's and the user's standard places.
protected_folder() {
    case "${1%/}" in
        "" | / | /usr | /usr/local | /usr/local/bin | /usr/local/share | /usr/local/share/man \
            | /usr/local/share/man/man1 | /opt | "${HOME%/}" | "${HOME%/}/.local" | "${HOME%/}/.local/bin" \
            | "${HOME%/}/.local/share") return 0 ;;
    esac
    return 1
}

# The path of a list entry: a file, `FOLDER/` (a folder the install created) or `./` (the prefix itself).
entry_path() {
    case "$1" in
        ./) echo "$prefix" ;;
        */) echo "$prefix/${1%/}" ;;
        *) echo "$prefix/$1" ;;
    esac
}

# --- Uninstall: exactly what the list names ----------------------------------------------------------------------
if [ "$uninstall" = 1 ]; then
    [ -f "$manifest" ] || die "nothing to uninstall: no list of installed files at $manifest"
    folders=()
    while IFS= read -r relative; do
        if [ "$relative" = "$system_pam_entry" ]; then
            folder="$(system_pam_folder)"
            [ -n "$folder" ] || { echo "no system PAM folder found: the module stays where it is"; continue; }
            path="$destdir$folder/pam_device_login.so"
            [ -e "$path" ] && rm -f -- "$path" && echo "removed $path" || echo "already gone: $path"
            continue
        fi
        case "$relative" in
            "" | /* | *..* | .?* | */./* | *//*) [ "$relative" = ./ ] \
                || die "refusing a strange entry in $manifest: '$relative'" ;;
        esac
        path="$(entry_path "$relative")"
        case "$relative" in
            */) folders+=("$path"); continue ;;
        esac
        if [ -e "$path" ] || [ -L "$path" ]; then
            rm -f -- "$path"
            echo "removed $path"
        else
            echo "already gone: $path"
        fi
    done <"$manifest"
    rm -f -- "$manifest"
    rmdir -- "$prefix/share/device-login" 2>/dev/null || true  # a list written before folders were listed
    # The list names folders deepest first; one that holds something of the user's stays.
    for path in "${folders[@]}"; do
        protected_folder "$path" && continue
        [ -d "$path" ] && [ ! -L "$path" ] && rmdir -- "$path" 2>/dev/null && echo "removed folder $path"
    done
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
# The PAM module: below the prefix when one is given (or when the system has no PAM folder), else in the system's.
pam_folder=""
if [ "$pam" = 1 ]; then
    [ "$prefix_given" = 1 ] || pam_folder="$(system_pam_folder)"
    if [ -z "$pam_folder" ]; then
        files+=(lib/security/pam_device_login.so)
    else
        mkdir -p -- "$destdir$pam_folder" 2>/dev/null && [ -w "$destdir$pam_folder" ] \
            || die "cannot write the system's PAM folder $destdir$pam_folder: run as root, or give --prefix DIR"
    fi
fi
# Each folder is made one level at a time, and each one made is listed, for --uninstall. An earlier install's folders
# stay listed when this one finds them already there.
created=()
if [ -f "$manifest" ]; then
    while IFS= read -r relative; do
        case "$relative" in */) created+=("$relative") ;; esac
    done <"$manifest"
fi
make_folder() {
    local relative="$1" sofar="" part
    if [ ! -d "$prefix" ]; then
        mkdir -p -- "$prefix" || die "cannot create $prefix"
        created=("./" "${created[@]}")
    fi
    IFS=/ read -ra parts <<<"$relative"
    for part in "${parts[@]}"; do
        sofar="${sofar:+$sofar/}$part"
        if [ ! -d "$prefix/$sofar" ]; then
            mkdir -- "$prefix/$sofar" || die "cannot create $prefix/$sofar"
            created+=("$sofar/")
        fi
    done
}
for relative in "${files[@]}"; do
    make_folder "$(dirname "$relative")"
done
make_folder share/device-login

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
if [ "$pam" = 1 ]; then
    [ -f "$here/build-pam.sh" ] || die "--pam builds the module from the source tree: run this script from it"
    bash "$here/build-pam.sh" "$staged" >/dev/null || die "the PAM module did not build (gcc, libpam0g-dev?)"
fi

install -m 755 "$staged/device-login" "$prefix/bin/device-login"
ln -sfn device-login "$prefix/bin/docker-credential-device-login"
install -m 644 "$staged/device-login.1" "$prefix/share/man/man1/device-login.1"
install -m 644 "$staged/completion.bash" "$prefix/share/bash-completion/completions/device-login"
install -m 644 "$staged/completion.zsh" "$prefix/share/zsh/site-functions/_device-login"
install -m 644 "$staged/completion.fish" "$prefix/share/fish/vendor_completions.d/device-login.fish"
if [ "$pam" = 1 ] && [ -z "$pam_folder" ]; then
    install -m 644 "$staged/pam_device_login.so" "$prefix/lib/security/pam_device_login.so"
elif [ "$pam" = 1 ]; then
    install -m 644 "$staged/pam_device_login.so" "$destdir$pam_folder/pam_device_login.so"
fi
# The files, then the folders deepest first (a folder's path is longer than its parent's), the prefix last.
{
    printf '%s\n' "${files[@]}"
    [ -z "$pam_folder" ] || echo "$system_pam_entry"
    for folder in "${created[@]}"; do
        [ "$folder" = ./ ] || printf '%s\t%s\n' "${#folder}" "$folder"
    done | sort -rn -k1,1 | cut -f2- | awk '!seen[$0]++'
    for folder in "${created[@]}"; do
        [ "$folder" != ./ ] || { echo ./; break; }
    done
} >"$manifest"

version="$("$prefix/bin/device-login" --version)"
echo "Installed $version into $prefix:"
echo "  $prefix/bin/device-login                       the program"
echo "  $prefix/bin/docker-credential-device-login     -> device-login (Docker: \"credsStore\": \"device-login\")"
echo "  $prefix/share/man/man1/device-login.1          man device-login"
echo "  $prefix/share/bash-completion/completions/device-login"
echo "  $prefix/share/zsh/site-functions/_device-login"
echo "  $prefix/share/fish/vendor_completions.d/device-login.fish"
if [ "$pam" = 1 ] && [ -z "$pam_folder" ]; then
    echo "  $prefix/lib/security/pam_device_login.so   the PAM module: auth required $installed_prefix/lib/security/pam_device_login.so"
elif [ "$pam" = 1 ]; then
    echo "  $destdir$pam_folder/pam_device_login.so   the PAM module, in the system's folder:"
    echo "      auth required pam_device_login.so helper=$installed_prefix/bin/device-login"
fi
echo "  $manifest   (what --uninstall removes)"
case ":$PATH:" in
    *":$prefix/bin:"*) ;;
    *) echo "Note: $prefix/bin is not on your PATH; add it, e.g. export PATH=\"$prefix/bin:\$PATH\"" ;;
esac
# bash reads share/bash-completion/completions only through the bash-completion package's loader. The places it
# installs that loader (Debian and Ubuntu, Fedora, Homebrew); DEVICE_LOGIN_BASH_COMPLETION names another to look for.
bash_completion_found=0
for loader in ${DEVICE_LOGIN_BASH_COMPLETION:-/usr/share/bash-completion/bash_completion /etc/bash_completion \
    /usr/local/share/bash-completion/bash_completion /opt/homebrew/share/bash-completion/bash_completion \
    /opt/homebrew/etc/profile.d/bash_completion.sh /usr/local/etc/profile.d/bash_completion.sh}; do
    [ -f "$loader" ] && bash_completion_found=1 && break
done
if [ "$bash_completion_found" = 0 ]; then
    echo "Note: bash completes device-login only with the bash-completion package, which is not installed"
    echo "      (Debian, Ubuntu: sudo apt-get install bash-completion; then open a new shell)."
fi
