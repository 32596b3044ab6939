#!/usr/bin/env bash
# Builds the device-login binary users install: release mode, the Swift runtime and libstdc++ linked in statically,
# stripped. Prints the path of the stripped binary on stdout (everything else goes to stderr).
#
#   Scripts/build-release.sh [--portable] [--scratch-path DIR] [--product NAME]
#
# --product device-login-bench builds the benchmark the same way, so that its peak RSS is that of the binary users
# run (the dynamically linked runtime alone adds 5 MB before the first flow); it leaves out the fast paths' order
# file, which names the CLI's functions.
#
# The link is tuned for the start-up of `device-login token` and the credential helpers, which git and kubectl run on
# every call (issue 9's fast path):
#   - libstdc++ is linked in from libstdc++.a: one shared library fewer to map and relocate at every start, and one
#     dependency fewer on the box it is copied to. The Swift toolchain's static-stdlib link line names -lstdc++ itself,
#     so a folder searched first holds a linker script `libstdc++.so` that says INPUT(libstdc++.a).
#   - the relative relocations (about 38,000 of them, one per pointer in the Swift metadata) are packed as DT_RELR
#     with lld (-z pack-relative-relocs): the dynamic loader reads 7 kB instead of 0.9 MB of relocation records.
#     The binary then needs glibc 2.36 or later (Debian 12, Ubuntu 23.04, Fedora 37). --portable, and a machine
#     whose glibc is older, leave it out.
# Both keep the binary position-independent (ASLR stays on).
# libcurl and libcrypto are not linked: they are loaded on the first request or signature (CCurl, CCrypto).
set -euo pipefail
cd "$(dirname "$0")/.."

portable=0
scratch=.build/static
product=device-login
while (($#)); do
    case "$1" in
        --portable) portable=1; shift ;;
        --scratch-path) scratch="${2:?--scratch-path needs a folder}"; shift 2 ;;
        --product) product="${2:?--product needs a name}"; shift 2 ;;
        -h|--help) sed -n '2,22p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "build-release.sh: unknown option $1" >&2; exit 64 ;;
    esac
done

die() { echo "build-release.sh: $*" >&2; exit 1; }

cxx_archive="$(c++ -print-file-name=libstdc++.a 2>/dev/null || true)"
for cc in gcc clang; do [ -f "$cxx_archive" ] || cxx_archive="$($cc -print-file-name=libstdc++.a 2>/dev/null || true)"; done
[ -f "$cxx_archive" ] || die "libstdc++.a not found (Debian: apt-get install libstdc++-12-dev)"

mkdir -p "$scratch"
link_dir="$(cd "$scratch" && pwd)/static-cxx"
mkdir -p "$link_dir"
printf 'INPUT(%s)\n' "$cxx_archive" >"$link_dir/libstdc++.so"

flags=(-Xswiftc -L -Xswiftc "$link_dir")
# No dynamic symbol table of our own: the toolchain's static-stdlib link line says --export-dynamic (with the runtime's
# libraries excluded), which exported 4,493 of this package's symbols that nothing loads by name, kept the code behind
# them from --gc-sections, and put a 4,900-entry table first in the lookup of every symbol libcurl's libraries bind.
# Measured at its introduction: 15,932,904 -> 15,441,376 bytes stripped.
flags+=(-Xlinker --no-export-dynamic)
# No RUNPATH: SwiftPM writes $ORIGIN into every executable, and the loader then looks for libm, libgcc_s and libc in the
# binary's folder (and its glibc-hwcaps, tls and x86_64 subfolders) before the system's: 26 failed system calls at every
# start of a binary that links the Swift runtime in and loads nothing from beside itself.
flags+=(--disable-local-rpath)
# Compiled for size (Scripts/size-flags.sh; SwiftPM links executables with --gc-sections), so that the code nothing
# reaches is dropped. Measured on this package (stripped bytes): 16,506,288 before; 15,936,944 with the size flags;
# 15,510,960 with lld's --icf=all below. The token fast path runs 1.5 % more instructions (callgrind: 2,250,299 ->
# 2,283,985) and peaks 0.6 MB lower (10.4 -> 9.8 MB). The floor under it: a program that makes one Data with
# FoundationEssentials, linked the same way, is 12,770,344 bytes (without Foundation: 5,781,200).
# shellcheck source=Scripts/size-flags.sh
source Scripts/size-flags.sh
flags+=("${size_flags[@]}")
glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')"
relr=0
if [ "$portable" = 0 ] && [ -n "$glibc" ] && printf '2.36\n%s\n' "$glibc" | sort -V -C; then
    relr=1
    flags+=(-Xswiftc -use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
    # lld folds functions whose code is identical (generic specialisations mostly).
    flags+=(-Xlinker --icf=all)
fi
if [ "$relr" = 1 ] && [ "$product" = device-login ]; then
    # The fast paths' functions side by side at the front of the text (Scripts/order-file.sh writes the list and says
    # what it saves): a name the binary no longer has is passed over. The copy is named by its content, so that a new
    # list changes the link command and SwiftPM links again.
    order="$(cd "$scratch" && pwd)/fast-path-$(sha256sum Scripts/fast-path.order | cut -c1-16).order"
    cp Scripts/fast-path.order "$order"
    flags+=(-Xlinker "--symbol-ordering-file=$order" -Xlinker --no-warn-symbol-ordering)
fi

echo "build-release.sh: swift build -c release --static-swift-stdlib --product $product (static libstdc++;" \
    "$([ "$relr" = 1 ] && echo "DT_RELR relocations, glibc >= 2.36" || echo "plain RELA relocations, portable"))" >&2
swift build -c release --static-swift-stdlib --product "$product" --scratch-path "$scratch" "${flags[@]}" >&2 \
    || die "the release build failed"
bin_dir="$(swift build -c release --static-swift-stdlib --scratch-path "$scratch" --show-bin-path "${flags[@]}")"
[ -x "$bin_dir/$product" ] || die "no binary at $bin_dir/$product"

out="$scratch/$product.stripped"
cp "$bin_dir/$product" "$out"
strip "$out" || die "strip failed"
if readelf -d "$out" | grep -q 'NEEDED.*libstdc++'; then
    die "libstdc++ is still a shared dependency of $out"
fi
echo "$(cd "$(dirname "$out")" && pwd)/$(basename "$out")"
