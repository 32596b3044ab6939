#!/usr/bin/env bash
# Builds libdevicelogin, the C library (docs/embedding.md): release mode, the Swift runtime linked in, exporting only
# the functions listed in include/devicelogin.symbols. Prints the folder holding the results on stdout (everything
# else goes to stderr):
#   libdevicelogin.so.1   the shared library (soname libdevicelogin.so.1), with libdevicelogin.so -> it
#   libdevicelogin.a      the static archive: one object with the Swift runtime inside, every symbol but the dl_
#                         functions made local; link it with -ldevicelogin -lstdc++ -lm -ldl -lpthread
#                         (`pkg-config --static --libs devicelogin`)
#   devicelogin.pc        pkg-config's file for the prefix given with --prefix (default /usr/local)
#
#   Scripts/build-lib.sh [--prefix DIR] [--scratch-path DIR]
#
# SwiftPM builds the objects (the static library product `devicelogin`); this script links them, which SwiftPM cannot
# do without unsafeFlags: a version script (DEVICELOGIN_1, made from the symbol list), -static-stdlib for a shared
# library, and the soname. libcurl, libcrypto and libqrencode are not linked: the core loads them with dlopen on
# first use, as the CLI does. The shared library needs only libc, libm and libgcc_s (libstdc++ is linked in).
set -euo pipefail
cd "$(dirname "$0")/.."

prefix=/usr/local
scratch=.build/clib
while (($#)); do
    case "$1" in
        --prefix) prefix="${2:?--prefix needs a folder}"; shift 2 ;;
        --scratch-path) scratch="${2:?--scratch-path needs a folder}"; shift 2 ;;
        -h|--help) sed -n '2,18p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-lib.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
die() { echo "build-lib.sh: $*" >&2; exit 1; }

# Compiled for size (Scripts/size-flags.sh; issue 23's goal: at most 12 MB stripped). Measured on this package
# (stripped bytes): 14,761,016 before; 14,310,456 with the three frontend flags; 14,146,616 with -Osize too;
# 13,876,280 with lld's --icf=all below. The floor under it: a library of one @_cdecl function that makes a Data,
# linked the same way, is 13,589,248 bytes (FoundationEssentials' objects keep one another alive through their
# metadata records; without Foundation the floor is 6,137,256). A C program's dl_token (benchmark section 6) runs 0.25 %
# more instructions (callgrind: 2,404,646 -> 2,410,768) and peaks 0.9 MB lower (9.96 -> 9.05 MB, each library a fresh
# copy: how a file sits in the page cache moves the peak of the same bytes by more than a megabyte).
# shellcheck source=Scripts/size-flags.sh
source Scripts/size-flags.sh
echo "build-lib.sh: swift build -c release --product devicelogin ${size_flags[*]}" >&2
swift build -c release --product devicelogin --scratch-path "$scratch" "${size_flags[@]}" >&2 \
    || die "the release build failed"
objects="$scratch/release"
archive="$objects/libdevicelogin.a"
[ -f "$archive" ] || die "no archive at $archive"
version="$(sed -n 's/.*static let string = "\(.*\)".*/\1/p' Sources/DeviceLogin/Client/DeviceLoginVersion.swift)"
[ -n "$version" ] || die "no version in DeviceLoginVersion.swift"

out="$scratch/lib"
rm -rf "$out"
mkdir -p "$out"
work="$(mktemp -d "${TMPDIR:-/tmp}/build-lib.XXXXXX")"
trap 'rm -rf "$work"' EXIT

# Only the listed functions are global; the core's C loaders (dl_curl_…, dl_crypto_…) and the runtime stay inside.
{
    echo "DEVICELOGIN_1 {"
    echo "    global:"
    sed 's/^/        /; s/$/;/' include/devicelogin.symbols
    echo "    local: *;"
    echo "};"
} >"$work/devicelogin.map"

# As Scripts/build-release.sh: libstdc++ linked in from libstdc++.a (the toolchain's static-stdlib line names -lstdc++,
# so a folder searched first holds a linker script `libstdc++.so` that says INPUT(libstdc++.a)), so that the library
# needs only libc, libm and libgcc_s; and relative relocations packed as DT_RELR with lld where glibc is 2.36 or later, so that
# loading the library costs a C program's start-up less (the token fast path, benchmark section 6).
cxx_archive="$(c++ -print-file-name=libstdc++.a 2>/dev/null || true)"
for cc in gcc clang; do [ -f "$cxx_archive" ] || cxx_archive="$($cc -print-file-name=libstdc++.a 2>/dev/null || true)"; done
[ -f "$cxx_archive" ] || die "libstdc++.a not found (Debian: apt-get install libstdc++-12-dev)"
printf 'INPUT(%s)\n' "$cxx_archive" >"$work/libstdc++.so"
relocations=()
glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')"
if [ -n "$glibc" ] && printf '2.36\n%s\n' "$glibc" | sort -V -C; then
    relocations=(-use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
    # lld folds functions whose code is identical (generic specialisations mostly): 270 kB less.
    relocations+=(-Xlinker --icf=all)
    # The fast paths' functions side by side at the front of the text, as in Scripts/build-release.sh: the CLI's list
    # (Scripts/order-file.sh) names the core's functions that dl_token runs too, and the runtime's. Measured with the
    # C program of benchmark section 6 (/usr/bin/time -f %M, median of 7, twice each): peak RSS 9.58 -> 8.42 MB; the
    # same 2.35 M instructions (callgrind) and the same time (farm-bench -n 30 --vs: 1.00x); the same size.
    relocations+=(-Xlinker --symbol-ordering-file=Scripts/fast-path.order -Xlinker --no-warn-symbol-ordering)
fi

# The DeviceLoginC objects go in as objects (swiftc's static-stdlib line hides every archive's symbols with
# --exclude-libs ALL), the rest of the package from the archive; the runtime libraries the archive's objects
# autolink are named by hand (swiftc reads autolink entries from objects only), and -z defs proves none is missing.
swiftc -emit-library -static-stdlib -O -o "$out/libdevicelogin.so.1" -L "$work" "$objects"/DeviceLoginC.build/*.o \
    -Xlinker "$archive" -Xlinker -l_FoundationCollections -Xlinker -l_FoundationCShims -Xlinker -lswiftDispatch \
    -Xlinker -ldispatch -Xlinker -lBlocksRuntime -Xlinker -z -Xlinker defs \
    -Xlinker -soname=libdevicelogin.so.1 -Xlinker --version-script="$work/devicelogin.map" \
    -Xlinker --gc-sections -Xlinker -z -Xlinker relro "${relocations[@]}" 2>"$work/link.log" \
    || { cat "$work/link.log" >&2; die "linking libdevicelogin.so.1 failed"; }
grep -v "the use of \`mktemp' is dangerous" "$work/link.log" >&2 || true
ln -sfn libdevicelogin.so.1 "$out/libdevicelogin.so"

# The static archive: one relocatable object with the runtime pulled in, then every global but the listed made local,
# so that it cannot clash with a program's own symbols (or another Swift runtime).
runtime="$(dirname "$(dirname "$(readlink -f "$(command -v swiftc)")")")/lib/swift_static/linux"
[ -d "$runtime" ] || die "no static Swift runtime at $runtime"
libraries=()
for name in swiftCore swift_Concurrency swift_StringProcessing swift_RegexParser swiftSynchronization swiftGlibc \
    BlocksRuntime dispatch swiftDispatch FoundationEssentials _FoundationCollections _FoundationCShims; do
    [ -f "$runtime/lib$name.a" ] && libraries+=("$runtime/lib$name.a")
done
ld -r -o "$work/devicelogin.o" "$runtime/x86_64/swiftrt.o" "$objects"/DeviceLoginC.build/*.o \
    --start-group "$archive" "${libraries[@]}" --end-group || die "ld -r failed"
objcopy --keep-global-symbols=include/devicelogin.symbols "$work/devicelogin.o" "$work/devicelogin-local.o" \
    || die "objcopy failed"
ar rcs "$out/libdevicelogin.a" "$work/devicelogin-local.o"

sed -e "s|@PREFIX@|$prefix|g" -e "s|@VERSION@|$version|g" include/devicelogin.pc.in >"$out/devicelogin.pc"
echo "build-lib.sh: $out: libdevicelogin.so.1 ($(stat -c %s "$out/libdevicelogin.so.1") bytes), libdevicelogin.a" >&2
echo "$out"
