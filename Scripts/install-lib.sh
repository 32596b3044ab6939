#!/usr/bin/env bash
# Installs libdevicelogin, the C library (docs/embedding.md): what `Scripts/install.sh --lib` runs. Builds it with
# Scripts/build-lib.sh unless --from names a folder it built. Prints what it put where, and keeps that list so that
# --uninstall removes exactly that.
#
#   Scripts/install.sh --lib [--prefix DIR] [--from DIR]
#   Scripts/install.sh --lib [--prefix DIR] --uninstall
#
# Files, below DIR (default: /usr/local for root, ~/.local otherwise):
#   lib/libdevicelogin.so.1, lib/libdevicelogin.so -> it, lib/libdevicelogin.a
#   include/device_login.h
#   lib/pkgconfig/devicelogin.pc          (its prefix is DIR)
#   share/device-login/installed-lib      the list of the files above, for --uninstall
set -euo pipefail

here="$(cd "$(dirname "$0")" && pwd)"
prefix=""
from=""
uninstall=0
while (($#)); do
    case "$1" in
        --lib) shift ;;
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --prefix=*) prefix="${1#--prefix=}"; shift ;;
        --from) from="${2:?--from needs a folder}"; shift 2 ;;
        --uninstall) uninstall=1; shift ;;
        -h|--help) sed -n '2,14p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "install.sh --lib: unknown option $1 (see --help)" >&2; exit 64 ;;
    esac
done
die() { echo "install.sh --lib: $*" >&2; exit 1; }
if [ -z "$prefix" ]; then
    if [ "$(id -u)" = 0 ]; then prefix=/usr/local; else prefix="$HOME/.local"; fi
fi
case "$prefix" in /*) ;; *) prefix="$PWD/$prefix" ;; esac
manifest="$prefix/share/device-login/installed-lib"
files=(lib/libdevicelogin.so.1 lib/libdevicelogin.so lib/libdevicelogin.a include/device_login.h
    lib/pkgconfig/devicelogin.pc)

if [ "$uninstall" = 1 ]; then
    [ -f "$manifest" ] || die "nothing to uninstall: no list of installed files at $manifest"
    while IFS= read -r relative; do
        case "$relative" in
            lib/* | include/*) ;;
            *) die "refusing a strange entry in $manifest: '$relative'" ;;
        esac
        case "$relative" in *..*) die "refusing a strange entry in $manifest: '$relative'" ;; esac
        rm -f -- "$prefix/$relative" && echo "removed $prefix/$relative"
    done <"$manifest"
    rm -f -- "$manifest"
    echo "libdevicelogin is uninstalled from $prefix."
    exit 0
fi

if [ -z "$from" ]; then
    command -v swift >/dev/null || die "no Swift toolchain to build with; pass --from DIR"
    from="$(bash "$here/build-lib.sh")" || die "the build failed"
fi
for file in libdevicelogin.so.1 libdevicelogin.a; do
    [ -f "$from/$file" ] || die "no $file in $from"
done
version="$(sed -n 's/^Version: //p' "$from/devicelogin.pc" 2>/dev/null || true)"
[ -n "$version" ] || die "no devicelogin.pc in $from"

mkdir -p "$prefix/lib/pkgconfig" "$prefix/include" "$prefix/share/device-login"
install -m 755 "$from/libdevicelogin.so.1" "$prefix/lib/libdevicelogin.so.1"
ln -sfn libdevicelogin.so.1 "$prefix/lib/libdevicelogin.so"
install -m 644 "$from/libdevicelogin.a" "$prefix/lib/libdevicelogin.a"
install -m 644 "$here/../include/device_login.h" "$prefix/include/device_login.h"
sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" "$here/../include/devicelogin.pc.in" \
    >"$prefix/lib/pkgconfig/devicelogin.pc"
chmod 644 "$prefix/lib/pkgconfig/devicelogin.pc"
printf '%s\n' "${files[@]}" >"$manifest"

echo "Installed libdevicelogin $version into $prefix:"
for relative in "${files[@]}"; do echo "  $prefix/$relative"; done
echo "  $manifest   (what --uninstall removes)"
echo "Build with: cc prog.c \$(PKG_CONFIG_PATH=$prefix/lib/pkgconfig pkg-config --cflags --libs devicelogin)"
case "$prefix" in
    /usr | /usr/local) command -v ldconfig >/dev/null && [ "$(id -u)" = 0 ] && ldconfig || true ;;
    *) echo "Run with: LD_LIBRARY_PATH=$prefix/lib (or add $prefix/lib to /etc/ld.so.conf.d)" ;;
esac
