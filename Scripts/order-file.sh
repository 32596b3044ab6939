#!/usr/bin/env bash
# Writes Scripts/fast-path.order: the functions that `device-login token`, each credential helper's fast path and
# `--help` run, then those a whole `login` adds, one linker symbol a line, each run's new names sorted.
# Scripts/build-release.sh hands it to lld (--symbol-ordering-file), which puts those functions side by side at the
# front of the text: a fast path then touches a few hundred kilobytes of code instead of pages scattered over the whole
# binary, so it maps fewer pages and faults fewer times. Measured on this package at its introduction (peak RSS, median of 5): token 9.0 -> 6.4 MB,
# git-credential get 9.2 -> 6.4 MB, exec -- true 9.4 -> 6.8 MB, --help 9.5 -> 7.2 MB; token's wall time 0.94x.
#
# A function the file does not name still links and runs, only farther away; a name the binary no longer has is
# passed over (--no-warn-symbol-ordering). So a stale file costs memory, not correctness, and
# Scripts/check-budgets.sh catches it: it fails when fewer than 90 % of the names are in the binary, or when a fast
# path's peak RSS goes over its budget. Run this again after changing what the fast paths run.
#
# How: the static release binary (Scripts/build-release.sh), its debug info stripped (valgrind cannot read the
# toolchain's DWARF 5) and its symbols kept, runs each fast path under `valgrind --tool=callgrind`, which lists every
# function that ran. Needs valgrind; signs in to the demo server (device-login demo --serve) in a temporary home.
#
# Usage: Scripts/order-file.sh
set -uo pipefail
cd "$(dirname "$0")/.."
program=order-file.sh
# shellcheck source=Scripts/benchmark-common.sh
source Scripts/benchmark-common.sh
have valgrind || die "valgrind is required (apt-get install -y valgrind)"

stripped="$(timeout 3600 bash Scripts/build-release.sh 2>"$work/build.log")" \
    || { tail -30 "$work/build.log" >&2; die "the release build failed"; }
symbols="$work/device-login.symbols"
strip --strip-debug -o "$symbols" "$(dirname "$stripped")/release/device-login" || die "strip --strip-debug failed"
# The demo server comes with a source build (device-login-demo beside device-login), as in Scripts/check-budgets.sh.
build_release device-login device-login-demo
cli="$bin_dir/device-login"

export DEVICE_LOGIN_HOME="$work/home"
mkdir -m 700 "$DEVICE_LOGIN_HOME"
start_demo quick --approve-after 0 --interval 1
timeout 60 "$stripped" login --issuer "$issuer" --client-id test-client --profile bench --qr never --store file \
    --for https://git.bench.example --for https://registry.bench.example </dev/null >"$work/login.out" \
    2>"$work/login.err" || { cat "$work/login.err" >&2; die "signing in to the demo server failed"; }
printf 'protocol=https\nhost=git.bench.example\n\n' >"$work/git.in"
printf 'https://registry.bench.example' >"$work/docker.in"
exec_info='{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}'

runs=0
# trace INPUT ARGUMENTS...: runs the binary with its symbols under callgrind; its function list goes to $work/cg.N.
trace() {
    local input="$1"
    shift
    runs=$((runs + 1))
    timeout 300 valgrind --tool=callgrind --demangle=no --dump-instr=no --compress-strings=no --compress-pos=no \
        --callgrind-out-file="$work/cg.$runs" "$symbols" "$@" <"$input" >/dev/null 2>"$work/cg.$runs.err" \
        || { tail -5 "$work/cg.$runs.err" >&2; die "failed under callgrind: $*"; }
    say "  traced: $* ($(grep -o 'refs: *[0-9,]*' "$work/cg.$runs.err"))"
}
trace /dev/null token --profile bench
trace "$work/git.in" git-credential get
KUBERNETES_EXEC_INFO="$exec_info" trace /dev/null kubectl-credential --profile bench
trace "$work/docker.in" docker-credential get
trace /dev/null curl-config --profile bench
trace /dev/null exec --profile bench -- true
trace /dev/null --help
export DEVICE_LOGIN_KEYRING=session
"$cli" store --profile bench --to keyring >/dev/null 2>"$work/store.err" \
    || die "store --to keyring failed: $(head -1 "$work/store.err")"
trace /dev/null token --profile bench
trace "$work/git.in" git-credential get
"$cli" logout --local --profile bench >/dev/null 2>&1 || true
unset DEVICE_LOGIN_KEYRING
# Last, what a whole sign-in runs beyond the fast paths: its functions come after theirs, so a login touches fewer
# pages too without spreading the fast paths' code.
trace /dev/null login --issuer "$issuer" --client-id test-client --profile traced --qr never --store file

# callgrind names a function `fn=NAME`, with `'N` after the name of a recursive call's level N, and lists a run's
# functions in no useful order. Each run adds the names earlier runs did not have, sorted, so that the file is the
# same for the same code and a change to it shows what changed. Only the binary's own functions are kept: those of
# libc and of the libraries loaded with dlopen are not the linker's to place.
export LC_ALL=C
nm --defined-only "$symbols" | awk '{ print $NF }' | sort -u >"$work/defined"
: >"$work/order"
: >"$work/seen"
for n in $(seq "$runs"); do
    grep '^fn=' "$work/cg.$n" | sed -e 's/^fn=//' -e "s/'[0-9]*\$//" | sort -u | comm -12 - "$work/defined" \
        | comm -23 - "$work/seen" >"$work/new"
    cat "$work/new" >>"$work/order"
    sort -u "$work/seen" "$work/new" -o "$work/seen"
done
count="$(wc -l <"$work/order")"
((count > 500)) || die "only $count functions traced: something did not run"
mv "$work/order" Scripts/fast-path.order
say "$program: wrote Scripts/fast-path.order ($count functions)"
