#!/usr/bin/env bash
# Fuzzes the parsers that face hostile input with libFuzzer and AddressSanitizer (swiftc -sanitize=fuzzer,address):
#   server-reply   the server-reply parser (JSON and form bodies, any status) and every wire type read from it
#   jwt            compact JWTs, ID-token claims and their checks, RFC 6750 Bearer challenges
#   sanitizer      the terminal sanitiser and SafeURI, with their promises checked on every input
#   http-request   the testing kit's HTTP/1.1 request parser, fed in chunks
#   git-credential git's credential-helper protocol as git-credential reads and writes it
#   stored-record  the one reader of a stored record (the strict JSON parser and ProfileRecord), checked to round-trip
# Each target starts from its checked-in seed corpus (Tests/Fuzz/Corpus/NAME) in a working copy under .build/fuzz,
# runs for SECONDS (default 60), and prints its executions and corpus size. A crash, a failed check or a sanitizer
# report fails the script and leaves the input in .build/fuzz/artifacts/NAME/.
#
# Usage: Scripts/fuzz.sh [SECONDS] [TARGET...]
set -euo pipefail
cd "$(dirname "$0")/.."

seconds="${1:-60}"
[[ "$seconds" =~ ^[0-9]+$ ]] && ((seconds > 0 && seconds <= 86400)) || { echo "fuzz.sh: SECONDS must be 1-86400" >&2; exit 64; }
shift || true
all=(server-reply jwt sanitizer http-request git-credential stored-record)
targets=("$@")
[ ${#targets[@]} -gt 0 ] || targets=("${all[@]}")

source_of() {
    case "$1" in
        server-reply) echo Tests/Fuzz/ServerReplyFuzzer.swift ;;
        jwt) echo Tests/Fuzz/JWTFuzzer.swift ;;
        sanitizer) echo Tests/Fuzz/SanitizerFuzzer.swift ;;
        http-request) echo Tests/Fuzz/HTTPRequestParserFuzzer.swift ;;
        git-credential) echo Tests/Fuzz/GitCredentialFuzzer.swift ;;
        stored-record) echo Tests/Fuzz/StoredRecordFuzzer.swift ;;
        *) echo "fuzz.sh: unknown target $1 (targets: ${all[*]})" >&2; exit 64 ;;
    esac
}

build=.build/fuzz
# A fresh clone has no .build yet: the build log below lives in it.
mkdir -p "$build"
build_log="$build/build.log"
flags=(-Xswiftc -sanitize=fuzzer,address -Xswiftc -enable-testing)
echo "== building the libraries with -sanitize=fuzzer,address" >&2
for target in CLibraryLoader DeviceLoginTerminal DeviceLoginTesting DeviceLoginCLI; do
    swift build --build-path "$build" "${flags[@]}" --target "$target" >"$build_log" 2>&1 \
        || { tail -30 "$build_log" >&2; echo "fuzz.sh: building $target failed" >&2; exit 1; }
done
modules="$build/debug/Modules"
objects=("$build"/debug/DeviceLogin.build/*.o "$build"/debug/CProcessHardening.build/*.o
    "$build"/debug/CLibraryLoader.build/*.o "$build"/debug/CCurl.build/*.o "$build"/debug/CCrypto.build/*.o
    "$build"/debug/CQRencode.build/*.o "$build"/debug/CExec.build/*.o "$build"/debug/CKeyring.build/*.o
    "$build"/debug/CSecretService.build/*.o
    "$build"/debug/DeviceLoginTerminal.build/*.o "$build"/debug/DeviceLoginTesting.build/*.o
    "$build"/debug/DeviceLoginCLI.build/*.o)
# libcurl, libcrypto and libqrencode are not linked: CCurl, CCrypto and CQRencode load them with dlopen on first use,
# as in the shipped binary.

failed=0
printf '%-14s %12s %10s %8s\n' target executions corpus result
for name in "${targets[@]}"; do
    src=$(source_of "$name")
    exe="$build/fuzz-$name"
    swiftc -sanitize=fuzzer,address -parse-as-library -I "$modules" -I Sources/CCurl/include -I Sources/CQRencode/include \
        -I Sources/CCrypto/include -I Sources/CLibraryLoader/include -I Sources/CProcessHardening/include \
        -I Sources/CExec/include -I Sources/CKeyring/include -I Sources/CSecretService/include \
        "$src" "${objects[@]}" -o "$exe" 2>"$build/$name-link.log" \
        || { grep -v 'Cannot export local symbol' "$build/$name-link.log" >&2; exit 1; }
    corpus="$build/corpus/$name"
    artifacts="$build/artifacts/$name"
    rm -rf "$corpus" "$artifacts"
    mkdir -p "$corpus" "$artifacts"
    [ -d "Tests/Fuzz/Corpus/$name" ] && cp "Tests/Fuzz/Corpus/$name"/* "$corpus"/ 2>/dev/null || true
    log="$build/$name.log"
    result=ok
    SWIFT_BACKTRACE=enable=no ASAN_OPTIONS=detect_leaks=0 "$exe" "$corpus" -max_total_time="$seconds" -timeout=10 -rss_limit_mb=2048 \
        -max_len=8192 -print_final_stats=1 -artifact_prefix="$artifacts/" >"$log" 2>&1 || result=CRASH
    runs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -n 1)
    size=$(find "$corpus" -type f | wc -l)
    printf '%-14s %12s %10s %8s\n' "$name" "${runs:-?}" "$size" "$result"
    if [ "$result" != ok ]; then
        failed=1
        grep -E -m 20 'ERROR|Fatal error|SUMMARY|Test unit written|==[0-9]+==' "$log" >&2 || tail -30 "$log" >&2
    fi
done
exit "$failed"
