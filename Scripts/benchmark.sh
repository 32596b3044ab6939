#!/usr/bin/env bash
# Measures the device-login CLI in release mode and prints the figures side by side with their goals:
#   1. start-up time and peak RSS of `device-login --help` and of `device-login token` with a stored, valid token
#      (the fast path; goal: within 2x of --help);
#   2. the fast paths that programs call on every run — `token` and the integration helpers (git-credential,
#      kubectl-credential, docker-credential, curl-config, exec) with a valid stored token — each against `cat` of the
#      same profile file, pair by pair, with the binary Scripts/install.sh installs (Scripts/build-release.sh; goals: at most 3x cat's wall time, peak RSS
#      at most 10 MB); a helper not in this build is shown as n/a;
#   3. CPU time and peak RSS of a whole `device-login login` of the installed binary that waits 60 s for approval
#      against the demo server running in another process, three side by side and judged on their median (goals: at
#      most 20 ms of CPU, 8 ms of it for the 12 polls, peak RSS at most 12 MB), with the floors under it; 3b. the CPU
#      of `login --kiosk` waiting 30 s in a pseudo-terminal of 80x24 and of 200x60, redrawing its countdown every
#      second (goal: under 10 ms of CPU per second, 1% of one core), and of the plain prompt's login in the same
#      pseudo-terminal, whose status line is redrawn four times a second (the same goal);
#   4. the size of that binary (goal: at most 20 MB), its dynamic dependencies (libcurl, libqrencode and libstdc++
#      must not be among them: the first two are loaded on first use, the last is linked in) and whether full Foundation is in it
#      (it must not be: FoundationEssentials only);
#   5. 16 `device-login token` processes started at once on a profile whose access token has expired: wall time,
#      distinct tokens printed (goal: 1) and refresh requests that reached the server (goal: 1);
#   6. libdevicelogin, the C library (Scripts/build-lib.sh): its stripped size (goal: at most 12 MB), and a C
#      program's token fast path (dl_client_new + dl_token + print) against `cat` of the profile (goal: at most 3x).
#      It runs before section 5, which expires the stored token.
#
# Goals missed are reported as FAIL; the script exits non-zero only when something could not be run.
# Uses hyperfine when installed (apt-get install -y hyperfine), else a timing loop; /usr/bin/time (apt-get install
# -y time) for peak RSS; perf (when it works) for a CPU figure finer than /usr/bin/time's 10 ms.
#
# Usage: Scripts/benchmark.sh [--runs N] [--skip-login] [--skip-static]
#   --skip-static measures section 2 with the release build (dynamic Swift runtime) instead, and skips section 4.
set -uo pipefail
cd "$(dirname "$0")/.."

runs=30
skip_login=false
skip_static=false
while (($#)); do
    case "$1" in
        --runs) runs="${2:?--runs needs a number}"; shift 2 ;;
        --skip-login) skip_login=true; shift ;;
        --skip-static) skip_static=true; shift ;;
        -h|--help) sed -n '2,25p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        *) echo "benchmark.sh: unknown option $1" >&2; exit 64 ;;
    esac
done
[[ "$runs" =~ ^[0-9]+$ ]] && ((runs > 0 && runs <= 1000)) || { echo "benchmark.sh: --runs must be 1-1000" >&2; exit 64; }

# What this script shares with Scripts/check-budgets.sh: messages, the work folder and the background processes
# stopped on exit, /usr/bin/time, peak RSS, the demo server.
program=benchmark.sh
# shellcheck source=Scripts/benchmark-common.sh
source Scripts/benchmark-common.sh

# --- Build --------------------------------------------------------------------------------------------------------
# device-login-demo is the program `device-login demo` hands over to (the demo server); it is not measured.
say "== building device-login and device-login-demo in release mode"
build_release device-login device-login-demo
cli="$bin_dir/device-login"
[[ -x "$cli" ]] || die "no binary at $cli"
[[ -x "$bin_dir/device-login-demo" ]] || die "no binary at $bin_dir/device-login-demo"

# The binary users install, as Scripts/install.sh builds it (Scripts/build-release.sh: the Swift runtime and
# libstdc++ linked in statically, relocations packed, stripped; a separate scratch path; the first build takes a
# while). Sections 2 and 4 measure it.
static_bin=""
if ! $skip_static; then
    say "== building the installed binary (Scripts/build-release.sh)"
    show "bash Scripts/build-release.sh"
    stripped_bin="$(timeout 3600 bash Scripts/build-release.sh 2>"$work/static.log")" \
        || { tail -30 "$work/static.log" >&2; die "the release build for installing failed"; }
    static_bin=".build/static/release/device-login"
    [[ -x "$static_bin" ]] || die "no binary at $static_bin"
    cp "$stripped_bin" "$work/device-login.stripped"
fi

# --- Helpers ------------------------------------------------------------------------------------------------------

# mean_ms NAME COMMAND...: prints the mean wall time of COMMAND in milliseconds over $runs runs (3 warm-up runs).
mean_ms() {
    local name="$1"; shift
    if have hyperfine; then
        timeout 600 hyperfine -N --style none --warmup 3 --runs "$runs" --export-csv "$work/$name.csv" \
            "$(printf '%q ' "$@")" >/dev/null 2>"$work/$name.err" \
            || { cat "$work/$name.err" >&2; die "hyperfine failed on: $*"; }
        awk -F, 'NR == 2 { printf "%.2f", $2 * 1000 }' "$work/$name.csv"
    else
        local i start end total=0
        for i in 1 2 3; do timeout 30 "$@" >/dev/null 2>&1; done
        for ((i = 0; i < runs; i++)); do
            start=$(date +%s%N)
            timeout 30 "$@" >/dev/null 2>&1 || die "failed: $*"
            end=$(date +%s%N)
            total=$((total + end - start))
        done
        awk -v t="$total" -v n="$runs" 'BEGIN { printf "%.2f", t / n / 1e6 }'
    fi
}

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { if (b > 0 && a != "n/a" && b != "n/a") printf "%.2f", a / b; else printf "n/a" }'; }
verdict() { if [[ "$1" == 1 ]]; then echo PASS; else echo FAIL; fi; }

echo
echo "device-login benchmarks ($(uname -m), $(nproc) cores; timing: $(have hyperfine && echo hyperfine || echo 'date loop'), $runs runs)"

# --- 1. Start-up: --help and the token fast path -----------------------------------------------------------------
say "== signing in once (profile bench) for the token measurements"
export DEVICE_LOGIN_HOME="$work/home"
mkdir -m 700 "$DEVICE_LOGIN_HOME"
start_demo quick --approve-after 0 --interval 1
quick_issuer="$issuer"
quick_pid="$server_pid"
# The URLs that git-credential and docker-credential find the profile by (`login --for`), where this build has it.
bindings=()
if "$cli" login --help 2>/dev/null | grep -q -- '--for'; then
    bindings=(--for https://git.bench.example --for https://registry.bench.example)
fi
login_bench=("$cli" login --issuer "$quick_issuer" --client-id test-client --profile bench --qr never "${bindings[@]}")
show_args "${login_bench[@]}"
timeout 60 "${login_bench[@]}" </dev/null >"$work/login-bench.out" 2>"$work/login-bench.err" \
    || { cat "$work/login-bench.err" >&2; die "signing in to the demo server failed"; }

echo
echo "1. Start-up (mean of $runs runs) and peak RSS (median of 5)"
show "$cli --help"
show "DEVICE_LOGIN_HOME=$DEVICE_LOGIN_HOME $cli token --profile bench"
help_ms="$(mean_ms help "$cli" --help)" || exit 1
token_ms="$(mean_ms token "$cli" token --profile bench)" || exit 1
help_rss="$(peak_rss_mb "$cli" --help)" || exit 1
token_rss="$(peak_rss_mb "$cli" token --profile bench)" || exit 1
time_ratio="$(ratio "$token_ms" "$help_ms")"
rss_ratio="$(ratio "$token_rss" "$help_rss")"
printf '   %-34s %12s %12s\n' "command" "start-up" "peak RSS"
printf '   %-34s %9s ms %9s MB\n' "device-login --help" "$help_ms" "$help_rss"
printf '   %-34s %9s ms %9s MB\n' "device-login token (valid token)" "$token_ms" "$token_rss"
printf '   %-34s %11sx %11sx   goal <= 2x: %s\n' "ratio token / --help" "$time_ratio" "$rss_ratio" \
    "$(verdict "$(awk -v r="$time_ratio" 'BEGIN { print (r != "n/a" && r <= 2) ? 1 : 0 }')")"

# --- 2. The fast paths against cat -------------------------------------------------------------------------------
# What is measured: each command that a program runs on every call (git on every fetch, kubectl on every command),
# with a valid stored token, so that it makes no request: from exec to exit, beside `cat` of the profile file the
# command reads, the least any such command can do. The two commands of a pair are timed in one hyperfine run, one
# right after the other, so that both see the same machine. A command that reads stdin gets it from a file: with
# hyperfine's --input where the installed hyperfine has it (1.16+), else through a tiny wrapper compiled here
# (stdin-from FILE COMMAND…, one exec) that both commands of the pair run through, else through hyperfine's shell
# (`sh -c 'CMD <FILE'`; hyperfine subtracts the shell's own start-up). `exec -- true` runs a second
# program, so it is compared with `cat FILE` and `/usr/bin/true`, both timed in the same run and added. Peak RSS is
# the command's own (/usr/bin/time -f %M; for exec, the larger of device-login and true).
echo
fast_bin="$work/device-login.stripped"
fast_label="the installed binary: Scripts/build-release.sh"
if $skip_static; then
    fast_bin="$cli"
    fast_label="release build with the dynamic Swift runtime (--skip-static); the goals are for the static build"
fi
profile_file="$DEVICE_LOGIN_HOME/bench.json"
hyperfine_input=false
have hyperfine && hyperfine --help 2>/dev/null | grep -q -- '--input' && hyperfine_input=true
# Without --input: a tiny wrapper that runs a command with stdin from a file, without a shell. Both commands of a
# pair then run through it, so that its own cost (one exec) falls on both sides.
stdin_from=""
if have hyperfine && ! $hyperfine_input; then
    compiler="$(command -v cc || command -v clang || true)"
    if [[ -n "$compiler" ]]; then
        cat >"$work/stdin-from.c" <<'C'
#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>
/* stdin-from FILE COMMAND [ARG...]: runs COMMAND with FILE as its standard input. */
int main(int argc, char **argv) {
    if (argc < 3) { fprintf(stderr, "usage: stdin-from FILE COMMAND [ARG...]\n"); return 64; }
    int fd = open(argv[1], O_RDONLY);
    if (fd < 0 || dup2(fd, 0) < 0) { perror(argv[1]); return 66; }
    if (fd != 0) close(fd);
    execv(argv[2], argv + 2);
    perror(argv[2]);
    return 127;
}
C
        "$compiler" -O2 -o "$work/stdin-from" "$work/stdin-from.c" 2>"$work/stdin-from.err" \
            && stdin_from="$work/stdin-from"
    fi
fi
echo "2. Fast paths with a valid stored token, against \`cat\` of the profile file ($fast_label)"
echo "   wall: mean of $runs runs, pair by pair ($(have hyperfine && echo hyperfine || echo 'date loop')); peak RSS:" \
    "median of 5; goals: <= 3x cat's wall time, <= 10 MB"
printf 'protocol=https\nhost=git.bench.example\n\n' >"$work/git.in"
printf 'https://registry.bench.example' >"$work/docker.in"
fast_fails=()

# pair_ms NAME INPUT SHAPE COMMAND...: prints "A B", the mean wall times in ms of COMMAND (stdin from INPUT) and of
# its `cat` (SHAPE exec: cat's and /usr/bin/true's added), measured together.
pair_ms() {
    local name="$1" input="$2" shape="$3"; shift 3
    local command cat_command i start middle end a_total=0 b_total=0
    if have hyperfine; then
        command="$(printf '%q ' "$@")"
        cat_command="cat $(printf '%q' "$profile_file")"
        local options=(--style none --warmup 3 --runs "$runs" --export-csv "$work/$name.csv")
        local commands=("$command" "$cat_command")
        if [[ "$input" == /dev/null ]]; then
            options+=(-N)
        elif $hyperfine_input; then
            options+=(-N --input "$input")
        elif [[ -n "$stdin_from" ]]; then
            options+=(-N)
            local through
            through="$(printf '%q ' "$stdin_from" "$input")"
            commands=("$through$command" "$through$(printf '%q ' "$(command -v cat)" "$profile_file")")
        else
            # Through hyperfine's shell, which subtracts the shell's start-up: coarser for commands this short.
            command+="<$(printf '%q' "$input")"
            commands=("$command" "$cat_command")
        fi
        # exec: `true` is timed in the same run, and cat's time and its are added.
        [[ "$shape" == exec ]] && commands+=(/usr/bin/true)
        timeout 600 hyperfine "${options[@]}" -- "${commands[@]}" >/dev/null 2>"$work/$name.err" \
            || { cat "$work/$name.err" >&2; die "hyperfine failed on: $command"; }
        awk -F, 'NR == 2 { a = $2 } NR > 2 { b += $2 } END { printf "%.2f %.2f\n", a * 1000, b * 1000 }' \
            "$work/$name.csv"
    else
        for ((i = 0; i < runs + 3; i++)); do
            start=$(date +%s%N)
            timeout 30 "$@" <"$input" >/dev/null 2>&1 || die "failed: $*"
            middle=$(date +%s%N)
            cat "$profile_file" >/dev/null
            [[ "$shape" == exec ]] && /usr/bin/true
            end=$(date +%s%N)
            # The first 3 rounds warm up.
            ((i < 3)) && continue
            a_total=$((a_total + middle - start))
            b_total=$((b_total + end - middle))
        done
        awk -v a="$a_total" -v b="$b_total" -v n="$runs" 'BEGIN { printf "%.2f %.2f\n", a / n / 1e6, b / n / 1e6 }'
    fi
}

# fast_path LABEL INPUT SHAPE COMMAND...: checks that COMMAND answers (stdin from INPUT, /dev/null for none), then
# prints its row. SHAPE: plain; exec (answers nothing on stdout; compared with cat + true); bound (finds its
# profile by a URL binding, so it needs `login --for`).
fast_path() {
    local label="$1" input="$2" shape="$3"; shift 3
    local status=0
    show_args "$@"
    if [[ "$input" != /dev/null ]]; then
        # The input as the shell would quote it; the x keeps the trailing newlines from $(...).
        local text
        text="$(cat "$input"; printf x)"
        printf '      (stdin: %q)\n' "${text%x}"
    fi
    timeout 30 "$@" <"$input" >"$work/fast.out" 2>"$work/fast.err" || status=$?
    # A command or option this build does not have is a usage error (exit 64): the command is not built yet.
    if ((status == 64)) && grep -q "unknown \(command\|option\)" "$work/fast.err"; then
        printf '   %-32s n/a (command not in this build)\n' "$label"
        return
    fi
    if [[ "$shape" == bound ]] && ((${#bindings[@]} == 0)); then
        printf '   %-32s n/a (login --for not in this build)\n' "$label"
        return
    fi
    if ((status != 0)) || { [[ "$shape" != exec ]] && [[ ! -s "$work/fast.out" ]]; }; then
        printf '   %-32s FAIL: exited %s with %s: %s\n' "$label" "$status" \
            "$([[ -s "$work/fast.out" ]] && echo output || echo 'no output')" "$(head -1 "$work/fast.err")"
        fast_fails+=("$label: the fast path did not answer (exit $status)")
        return
    fi
    local times ms cat_ms rss cat_rss time_ratio
    times="$(pair_ms "fast-${label// /-}" "$input" "$shape" "$@")" || exit 1
    read -r ms cat_ms <<<"$times"
    rss="$(peak_rss_mb_in "$input" "$@")" || exit 1
    cat_rss="$(peak_rss_mb_in /dev/null cat "$profile_file")" || exit 1
    time_ratio="$(ratio "$ms" "$cat_ms")"
    local time_ok rss_ok
    time_ok="$(awk -v r="$time_ratio" 'BEGIN { print (r != "n/a" && r <= 3) ? 1 : 0 }')"
    rss_ok="$(awk -v m="$rss" 'BEGIN { print (m != "n/a" && m <= 10) ? 1 : 0 }')"
    printf '   %-32s %8s ms %8s ms %7sx %-4s %7s MB %-4s (cat: %s MB)\n' "$label" "$ms" "$cat_ms" "$time_ratio" \
        "$(verdict "$time_ok")" "$rss" "$(verdict "$rss_ok")" "$cat_rss"
    ((time_ok)) || fast_fails+=("$label: ${time_ratio}x cat's wall time ($ms ms against $cat_ms ms; goal <= 3x)")
    ((rss_ok)) || fast_fails+=("$label: peak RSS $rss MB (goal <= 10 MB)")
}

show "cat $profile_file"
printf '   %-32s %11s %11s %8s %-4s %10s\n' "fast path" "device-login" "cat" "ratio" "" "peak RSS"
fast_path "token" /dev/null plain "$fast_bin" token --profile bench
fast_path "git-credential get" "$work/git.in" bound "$fast_bin" git-credential get
exec_info='{"apiVersion":"client.authentication.k8s.io/v1","kind":"ExecCredential","spec":{"interactive":false}}'
KUBERNETES_EXEC_INFO="$exec_info" \
    fast_path "kubectl-credential" /dev/null plain "$fast_bin" kubectl-credential --profile bench
fast_path "docker-credential get" "$work/docker.in" bound "$fast_bin" docker-credential get
fast_path "curl-config" /dev/null plain "$fast_bin" curl-config --profile bench
fast_path "exec -- true (cat + true)" /dev/null exec "$fast_bin" exec --profile bench -- true
# The same fast paths with the tokens in the kernel keyring (issue 21; the session keyring, so that nothing is left in
# the user's persistent keyring); `cat` still reads the profile file, which now holds no tokens.
if DEVICE_LOGIN_KEYRING=session "$cli" store --profile bench --to keyring >/dev/null 2>"$work/store.err"; then
    export DEVICE_LOGIN_KEYRING=session
    fast_path "token (keyring)" /dev/null plain "$fast_bin" token --profile bench
    fast_path "git-credential get (keyring)" "$work/git.in" bound "$fast_bin" git-credential get
    fast_path "curl-config (keyring)" /dev/null plain "$fast_bin" curl-config --profile bench
    "$cli" store --profile bench --to file >/dev/null
    unset DEVICE_LOGIN_KEYRING
else
    fast_fails+=("keyring: store --to keyring failed: $(head -1 "$work/store.err")")
fi
# On secret-service (a private session bus with gnome-keyring's secrets on it, so that the user's keyring is never
# touched): `token` answers from the kernel keyring's copy of the access token; the row without that copy is the
# D-Bus round trip the copy avoids, shown for reference and not held to the budget.
if command -v dbus-daemon >/dev/null && command -v gnome-keyring-daemon >/dev/null; then
    dbus-daemon --session --fork --print-address=1 --print-pid=3 >"$work/bus.address" 3>"$work/bus.pid"
    background+=("$(cat "$work/bus.pid")")
    export DBUS_SESSION_BUS_ADDRESS DEVICE_LOGIN_KEYRING=session
    DBUS_SESSION_BUS_ADDRESS="$(head -1 "$work/bus.address")"
    mkdir -p "$work/keyring-home"
    printf '%s' bench | HOME="$work/keyring-home" XDG_DATA_HOME="$work/keyring-home" \
        gnome-keyring-daemon --foreground --unlock --components=secrets >/dev/null 2>&1 &
    background+=("$!")
    sleep 1
    if "$cli" store --profile bench --to secret-service >/dev/null 2>"$work/store.err"; then
        fast_path "token (secret-service)" /dev/null plain "$fast_bin" token --profile bench
        fast_path "git-credential get (secret-service)" "$work/git.in" bound "$fast_bin" git-credential get
        fast_fails_kept=("${fast_fails[@]}")
        python3 - "$DEVICE_LOGIN_HOME" <<'PY'
import ctypes, platform, sys
keyctl = {"x86_64": 250, "aarch64": 219}[platform.machine()]
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
key = libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(10), ctypes.c_long(-3), b"user",
                   f"device-login:{sys.argv[1]}:bench".encode(), ctypes.c_long(0))
libc.syscall(ctypes.c_long(keyctl), ctypes.c_long(21), ctypes.c_long(key))  # KEYCTL_INVALIDATE: no copy
PY
        fast_path "token (secret-service, D-Bus)" /dev/null plain "$fast_bin" token --profile bench
        fast_fails=("${fast_fails_kept[@]}")
        "$cli" store --profile bench --to file >/dev/null
    else
        fast_fails+=("secret-service: store --to secret-service failed: $(head -1 "$work/store.err")")
    fi
    unset DBUS_SESSION_BUS_ADDRESS DEVICE_LOGIN_KEYRING
fi
for line in "${fast_fails[@]}"; do
    echo "   FAIL $line"
done

# --- 3. A whole sign-in with a 60-second wait ---------------------------------------------------------------------
# Issue 19's goals for one sign-in: at most 20 ms of CPU in all for a login that waits 60 s, at most 8 ms of it for the
# 12 polls of the wait, and a peak RSS of at most 12 MB. They are judged on the binary users install (the static one
# of section 4, Scripts/build-release.sh); the release build (dynamic Swift runtime, which users do not get) runs
# the same wait after it, against a server of its own, and is shown, not judged. With --skip-static the release
# build is judged, and says so.
#   The polls are measured directly and judged: perf stat attaches to the first of the three logins while it waits,
# from 7.5 s after its prompt to 57.5 s (the 2nd to the 11th poll, and the waits between them: nothing else of that
# login runs then; the other two poll 1.7 and 3.4 s after it), counts its CPU (all threads) and context switches,
# and the 12 polls are 12/10 of that. The wait's share is also shown as what it adds to a login approved at once:
# the same binary signs in against the quick server (approval at once, interval 1 s: one poll) 10 times, and the
# wait's 11 more polls and 59 s of waiting are the difference.
# That difference of two measurements on a shared machine is noisy (6.7, 3.4 and 11.9 ms for the 12 polls in
# three runs of the same code), so it is shown, not judged. The floors under a sign-in are measured alongside:
# `--help` of the same binary (the Swift runtime and the CLI's start-up) and a C program that only loads libcurl
# (dlopen, as CCurl does) and calls curl_global_init, which is what loading libcurl and its ~30 dependencies costs
# any program.
echo
if $skip_static; then
    login_cli="$cli"
    login_label="release build (dynamic Swift runtime; --skip-static: not the installed binary)"
else
    login_cli="$work/device-login.stripped"
    login_label="the installed binary (Scripts/build-release.sh, static, stripped)"
fi
echo "3. device-login login with a 60 s wait before approval (server in another process, interval 5 s)"
echo "   judged: $login_label"
if $skip_login; then
    echo "   skipped (--skip-login)"
else
    # task_ms FILE: the mean task-clock in ms that `perf stat -x,` wrote to FILE.
    task_ms() { awk -F, '$3 == "task-clock" { printf "%.2f", $1 }' "$1"; }
    # timed_login NAME ISSUER BINARY: one whole --no-store login, measured by perf (task-clock) and /usr/bin/time.
    timed_login() {
        local name="$1" login_issuer="$2" binary="$3" measured=()
        [[ -n "$time_bin" ]] && measured+=("$time_bin" -f '%e %U %S %M' -o "$work/$name.time")
        $perf_ok && measured=(perf stat -x, -e task-clock -o "$work/$name.perf" -- "${measured[@]}")
        timeout 180 "${measured[@]}" "$binary" login --no-store --qr never --issuer "$login_issuer" \
            --client-id test-client </dev/null >"$work/$name.out" 2>"$work/$name.err"
    }
    # login_pid ROOT BINARY: the pid of the process running BINARY among ROOT and its descendants (timed_login runs
    # it under perf and /usr/bin/time), once it has started; empty when none appears within 10 s.
    login_pid() {
        local root="$1" binary pid child
        binary="$(readlink -f "$2")"
        for _ in $(seq 100); do
            local pending=("$root")
            while ((${#pending[@]})); do
                pid="${pending[0]}"
                pending=("${pending[@]:1}")
                [[ "$(readlink -f "/proc/$pid/exe" 2>/dev/null)" == "$binary" ]] && { echo "$pid"; return; }
                for child in $(pgrep -P "$pid"); do pending+=("$child"); done
            done
            sleep 0.1
        done
    }
    # polls_window PID ERRFILE: perf stat attached to the waiting login PID for the 10 polls at 10, 15, ... 55 s
    # after its prompt appeared in ERRFILE (the client polls every 5 s from the device authorization response,
    # RFC 8628 §3.5, and the demo server approves at 60 s): the window opens 7.5 s after the prompt, between the
    # first and second polls, and closes 50 s later, between the 11th and the 12th.
    polls_window() {
        local pid="$1" errors="$2"
        for _ in $(seq 200); do
            grep -q 'Waiting for approval' "$errors" 2>/dev/null && break
            kill -0 "$pid" 2>/dev/null || return 1
            sleep 0.05
        done
        grep -q 'Waiting for approval' "$errors" 2>/dev/null || return 1
        sleep 7.5
        perf stat -x, -e task-clock,context-switches -p "$pid" -o "$work/polls.perf" -- sleep 50 >/dev/null 2>&1
    }
    # median VALUES...: the middle one of three or more numbers.
    median() { printf '%s\n' "$@" | sort -g | sed -n "$((($# + 1) / 2))p"; }
    start_demo slow --approve-after 60 --interval 5
    slow_issuer="$issuer"
    show_args perf stat -e task-clock -- "$time_bin" -f '%e %U %S %M' \
        "$login_cli" login --no-store --qr never --issuer "$slow_issuer" --client-id test-client
    show "... three of them, started 1.7 s apart; the goals are judged on their median"
    $perf_ok && show "perf stat -e task-clock,context-switches -p PID -- sleep 50" \
        "  (the first login, from 7.5 s after its prompt)"
    # One 60-second process's CPU moves by about 2 ms from run to run on a shared machine (20.84 and 19.62 ms, then
    # 21.72 and 20.00, for the same code), so a single run's verdict on a 20 ms goal was a coin toss. Three logins wait
    # side by side and the verdict is on their median, all three shown. Started 1.7 s apart with a 5 s interval, no
    # two of their polls, start-ups or exits fall in the same second, so they do not share a core's moment.
    slow_logins=()
    timed_login login1 "$slow_issuer" "$login_cli" &
    slow_logins+=("$!")
    window_job=""
    rm -f "$work/polls.ok"
    if $perf_ok; then
        (
            slow_pid="$(login_pid "${slow_logins[0]}" "$login_cli")"
            [[ -n "$slow_pid" ]] && polls_window "$slow_pid" "$work/login1.err" && touch "$work/polls.ok"
        ) &
        window_job=$!
    fi
    for n in 2 3; do
        sleep 1.7
        timed_login "login$n" "$slow_issuer" "$login_cli" &
        slow_logins+=("$!")
    done
    for n in 1 2 3; do
        wait "${slow_logins[$((n - 1))]}" || { tail -5 "$work/login$n.err" >&2; die "the 60-second sign-in $n failed"; }
    done
    [[ -n "$window_job" ]] && wait "$window_job"
    polls_measured=false
    [[ -f "$work/polls.ok" ]] && polls_measured=true
    # The release build's run comes after, not beside: two logins polling at the same instants share the 2 cores.
    reference=false
    if [[ "$login_cli" != "$cli" ]]; then
        reference=true
        start_demo slow-dynamic --approve-after 60 --interval 5
        timed_login login-dynamic "$issuer" "$cli" \
            || { tail -5 "$work/login-dynamic.err" >&2; die "the dynamic 60-second sign-in failed"; }
    fi
    login_cpu_ms=""
    login_rss=""
    if [[ -n "$time_bin" ]]; then
        walls=() cpus=() rsss=()
        for n in 1 2 3; do
            read -r login_wall login_user login_sys login_rss_kb <"$work/login$n.time"
            walls+=("$login_wall")
            cpus+=("$(awk -v u="$login_user" -v s="$login_sys" 'BEGIN { printf "%.0f", (u + s) * 1000 }')")
            rsss+=("$(awk -v k="$login_rss_kb" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')")
        done
        login_cpu_ms="$(median "${cpus[@]}")"
        login_rss="$(median "${rsss[@]}")"
        printf '   %-44s %s s\n' "wall time" "${walls[*]}"
        printf '   %-44s %s ms (median of %s; 10 ms resolution)\n' "CPU, /usr/bin/time user+sys" \
            "$login_cpu_ms" "${cpus[*]}"
    else
        echo "   /usr/bin/time is missing (apt-get install -y time): no user+sys or peak RSS"
    fi
    login_task_ms=""
    if $perf_ok; then
        tasks=()
        for n in 1 2 3; do tasks+=("$(task_ms "$work/login$n.perf")"); done
        login_task_ms="$(median "${tasks[@]}")"
        printf '   %-44s %s ms (median of %s; all threads; includes /usr/bin/time, ~1 ms)\n' \
            "CPU, perf task-clock" "$login_task_ms" "${tasks[*]}"
    fi
    judged="${login_task_ms:-$login_cpu_ms}"
    if [[ -n "$judged" ]]; then
        printf '   %-44s %s\n' "goal: at most 20 ms of CPU for the whole wait" \
            "$(verdict "$(awk -v c="$judged" 'BEGIN { print (c <= 20) ? 1 : 0 }')") (median $judged ms)"
    fi
    if [[ -n "$login_rss" ]]; then
        printf '   %-44s %s MB (median of %s)   goal <= 12 MB: %s\n' "peak RSS" "$login_rss" "${rsss[*]}" \
            "$(verdict "$(awk -v m="$login_rss" 'BEGIN { print (m <= 12) ? 1 : 0 }')")"
    fi
    if $reference; then
        reference_rss="n/a"
        if [[ -n "$time_bin" ]]; then
            read -r _ _ _ reference_rss_kb <"$work/login-dynamic.time"
            reference_rss="$(awk -v k="$reference_rss_kb" 'BEGIN { printf "%.1f", k * 1024 / 1e6 }')"
        fi
        reference_ms="n/a"
        $perf_ok && reference_ms="$(task_ms "$work/login-dynamic.perf")"
        printf '   %-44s %s ms, peak RSS %s MB (not judged: not what users install)\n' \
            "release build (dynamic), the same wait" "$reference_ms" "$reference_rss"
    fi
    if $perf_ok; then
        # The fixed cost (a login approved at once: one poll), the floors, and the wait's share.
        # Measured as the 60-second login was (through /usr/bin/time where it is), so that the difference is the
        # wait's; /usr/bin/time's own share is measured too and taken out of the breakdown.
        timer=()
        [[ -n "$time_bin" ]] && timer=("$time_bin" -o /dev/null)
        show "perf stat -r 10 -e task-clock ${timer[*]} $login_cli login --no-store --qr never" \
            "--issuer $quick_issuer --client-id test-client"
        perf stat -r 10 -x, -e task-clock -o "$work/login-once.perf" -- "${timer[@]}" "$login_cli" login --no-store \
            --qr never --issuer "$quick_issuer" --client-id test-client </dev/null >/dev/null 2>&1 \
            || die "the login approved at once failed"
        once_ms="$(task_ms "$work/login-once.perf")"
        timer_ms=0
        if [[ -n "$time_bin" ]]; then
            perf stat -r 20 -x, -e task-clock -o "$work/timer.perf" -- "$time_bin" -o /dev/null /bin/true \
                >/dev/null 2>&1 && perf stat -r 20 -x, -e task-clock -o "$work/true.perf" -- /bin/true \
                && timer_ms="$(awk -v a="$(task_ms "$work/timer.perf")" -v b="$(task_ms "$work/true.perf")" \
                    'BEGIN { printf "%.2f", a - b }')"
        fi
        once_rss="$(peak_rss_mb "$login_cli" login --no-store --qr never --issuer "$quick_issuer" \
            --client-id test-client)" || exit 1
        perf stat -r 20 -x, -e task-clock -o "$work/login-help.perf" -- "$login_cli" --help >/dev/null 2>&1 \
            || die "$login_cli --help failed"
        floor_help_ms="$(task_ms "$work/login-help.perf")"
        floor_help_rss="$(peak_rss_mb "$login_cli" --help)" || exit 1
        cat >"$work/curl-floor.c" <<'C'
#include <dlfcn.h>
#include <stdio.h>
/* What loading libcurl costs any program: dlopen as CCurl does it, then curl_global_init(CURL_GLOBAL_DEFAULT). */
int main(void) {
    void *curl = dlopen("libcurl.so.4", RTLD_LAZY | RTLD_LOCAL);
    if (curl == NULL) { fprintf(stderr, "%s\n", dlerror()); return 1; }
    int (*global_init)(long) = (int (*)(long))dlsym(curl, "curl_global_init");
    return global_init == NULL || global_init(3) != 0;
}
C
        floor_curl_ms="n/a"
        floor_curl_rss="n/a"
        if gcc -O2 -o "$work/curl-floor" "$work/curl-floor.c" -ldl 2>"$work/curl-floor.err" \
            && perf stat -r 20 -x, -e task-clock -o "$work/curl-floor.perf" -- "$work/curl-floor" >/dev/null 2>&1; then
            floor_curl_ms="$(task_ms "$work/curl-floor.perf")"
            floor_curl_rss="$(peak_rss_mb "$work/curl-floor")" || exit 1
        fi
        wait_ms="$(awk -v a="$login_task_ms" -v b="$once_ms" 'BEGIN { printf "%.2f", a - b }')"
        polls_ms="$(awk -v w="$wait_ms" 'BEGIN { printf "%.2f", w * 12 / 11 }')"
        ours_ms="$(awk -v o="$once_ms" -v t="$timer_ms" -v h="$floor_help_ms" -v c="$floor_curl_ms" \
            'BEGIN { if (c == "n/a") print "n/a"; else printf "%.2f", o - t - h - c }')"
        printf '   %-44s %9s %12s\n' "where it goes (perf task-clock)" "CPU" "peak RSS"
        printf '   %-44s %6s ms %9s MB\n' "login approved at once (mean of 10)" "$once_ms" "$once_rss"
        printf '   %-44s %6s ms\n' "  of which /usr/bin/time" "$timer_ms"
        printf '   %-44s %6s ms %9s MB\n' "  floor: --help of the same binary" "$floor_help_ms" "$floor_help_rss"
        printf '   %-44s %6s ms %9s MB\n' "  floor: C program loading libcurl" "$floor_curl_ms" "$floor_curl_rss"
        printf '   %-44s %6s ms\n' "  the rest: requests, JSON, ID token, output" "$ours_ms"
        printf '   %-44s %6s ms (%s ms for 12 polls; a difference of two totals, noisy: not judged)\n' \
            "the wait: 11 more polls, 59 s" "$wait_ms" "$polls_ms"
        # The polls measured directly: perf attached to the waiting login for 10 polls and the waits between them.
        if $polls_measured; then
            read -r window_ms window_switches < <(awk -F, '$3 == "task-clock" { t = $1 }
                $3 == "context-switches" { c = $1 } END { printf "%.3f %d\n", t, c }' "$work/polls.perf")
            poll_ms="$(awk -v t="$window_ms" 'BEGIN { printf "%.3f", t / 10 }')"
            twelve_ms="$(awk -v t="$window_ms" 'BEGIN { printf "%.2f", t * 12 / 10 }')"
            printf '   %-44s %6s ms a poll, %s context switches a poll (10 polls: %s ms)\n' \
                "polls measured (perf stat -p, polls 2-11)" "$poll_ms" \
                "$(awk -v c="$window_switches" 'BEGIN { printf "%.1f", c / 10 }')" "$window_ms"
            printf '   %-44s %6s ms   goal <= 8 ms: %s\n' "the 12 polls of the wait" "$twelve_ms" \
                "$(verdict "$(awk -v p="$twelve_ms" 'BEGIN { print (p <= 8) ? 1 : 0 }')")"
        else
            printf '   %-44s %s\n' "the 12 polls of the wait" \
                "FAIL: not measured (the login's process or its prompt was not found, or perf could not attach)"
        fi
    fi
fi

# --- 3b. The kiosk screen: the same wait, redrawn every second --------------------------------------------------
echo
echo "3b. device-login login --kiosk with a 30 s wait, in a pseudo-terminal (script(1)) of 80x24 and of 200x60;"
echo "    and the plain prompt in the same pseudo-terminal, whose status line is redrawn four times a second"
if $skip_login; then
    echo "   skipped (--skip-login)"
elif ! have script || ! $perf_ok; then
    echo "   skipped: needs script (util-linux) and a working perf"
else
    # The screen is redrawn once a second (the countdown): its cost is CPU per second of waiting, which must stay
    # small on an appliance's slow CPU. Goal: under 1% of one core, 10 ms of CPU per second.
    start_demo kiosk --approve-after 30 --interval 5
    for size in "80 24" "200 60"; do
        read -r kiosk_columns kiosk_rows <<<"$size"
        kiosk_login="$(printf '%q ' "$cli" login --kiosk --no-store --issuer "$issuer" --client-id test-client)"
        show "script -qfec 'stty cols $kiosk_columns rows $kiosk_rows; perf stat -e task-clock $kiosk_login' /dev/null"
        timeout 120 script -qfec "stty cols $kiosk_columns rows $kiosk_rows; \
            perf stat -x, -e task-clock -o $work/kiosk.perf $kiosk_login >/dev/null" /dev/null >"$work/kiosk.screen" \
            || die "the kiosk sign-in at ${kiosk_columns}x${kiosk_rows} failed"
        kiosk_ms="$(awk -F, '$3 == "task-clock" { printf "%.1f", $1 }' "$work/kiosk.perf")"
        [[ -n "$kiosk_ms" ]] || die "perf gave no task-clock for the kiosk sign-in"
        per_second="$(awk -v c="$kiosk_ms" 'BEGIN { printf "%.2f", c / 30 }')"
        printf '   %-44s %s ms in all, %s ms per second of waiting: %s\n' "CPU at ${kiosk_columns}x${kiosk_rows}" \
            "$kiosk_ms" "$per_second" "$(verdict "$(awk -v c="$per_second" 'BEGIN { print (c < 10) ? 1 : 0 }')")"
    done
    # How most people sign in: the prompt on a terminal (§3 measures it on a pipe, where no status line is drawn).
    # Judged by the kiosk's goal; its difference from §3's pipe is what the live status line costs.
    start_demo prompt-tty --approve-after 30 --interval 5
    prompt_login="$(printf '%q ' "$login_cli" login --no-store --qr never --issuer "$issuer" --client-id test-client)"
    show "script -qfec 'stty cols 80 rows 24; perf stat -e task-clock $prompt_login' /dev/null"
    timeout 120 script -qfec "stty cols 80 rows 24; \
        perf stat -x, -e task-clock,context-switches -o $work/prompt-tty.perf $prompt_login >/dev/null" /dev/null \
        >"$work/prompt-tty.screen" || die "the sign-in on a pseudo-terminal failed"
    read -r tty_ms tty_switches < <(awk -F, '$3 == "task-clock" { t = $1 } $3 == "context-switches" { c = $1 }
        END { printf "%.1f %d\n", t, c }' "$work/prompt-tty.perf")
    [[ -n "$tty_ms" ]] || die "perf gave no task-clock for the sign-in on a pseudo-terminal"
    per_second="$(awk -v c="$tty_ms" 'BEGIN { printf "%.2f", c / 30 }')"
    printf '   %-44s %s ms in all, %s context switches, %s ms per second of waiting: %s\n' \
        "the prompt (not --kiosk) at 80x24" "$tty_ms" "$tty_switches" "$per_second" \
        "$(verdict "$(awk -v c="$per_second" 'BEGIN { print (c < 10) ? 1 : 0 }')")"
fi

# --- 4. Static-stdlib binary size ---------------------------------------------------------------------------------
echo
echo "4. The installed binary (Scripts/build-release.sh: Swift runtime and libstdc++ linked in statically, stripped)"
if $skip_static; then
    echo "   skipped (--skip-static)"
else
    unstripped=$(stat -c %s "$static_bin")
    stripped=$(stat -c %s "$work/device-login.stripped")
    mb() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1e6 }'; }
    printf '   %-44s %s MB (%s bytes)\n' "unstripped" "$(mb "$unstripped")" "$unstripped"
    printf '   %-44s %s MB (%s bytes)   goal <= 20 MB: %s\n' "stripped" "$(mb "$stripped")" "$stripped" \
        "$(verdict "$((stripped <= 20000000 ? 1 : 0))")"
    show "$work/device-login.stripped --help"
    static_ms="$(mean_ms static-help "$work/device-login.stripped" --help)" || exit 1
    static_rss="$(peak_rss_mb "$work/device-login.stripped" --help)" || exit 1
    printf '   %-34s %12s %12s\n' "--help, side by side" "start-up" "peak RSS"
    printf '   %-34s %9s ms %9s MB\n' "release build (dynamic stdlib)" "$help_ms" "$help_rss"
    printf '   %-34s %9s ms %9s MB\n' "static stdlib, stripped" "$static_ms" "$static_rss"
    printf '   %-34s %11sx %11sx\n' "ratio static / dynamic" "$(ratio "$static_ms" "$help_ms")" \
        "$(ratio "$static_rss" "$help_rss")"
    # Issue 19: --help against a C hello built here, beside it in the same run; and, for the floor any Swift program
    # starts from, a Swift hello and one that makes a Data with FoundationEssentials, linked as device-login is
    # (Scripts/build-release.sh: static Swift runtime and libstdc++, -Osize, --gc-sections, and with lld and DT_RELR
    # where glibc has them), so that the floor is not raised by a link the installed binary does not have.
    printf 'int main(void) { return puts("hello") < 0; }\n' >"$work/hello.c"
    printf 'print("hello")\n' >"$work/hello.swift"
    printf 'import FoundationEssentials\nprint("hello \\(Data([1, 2, 3]).count)")\n' >"$work/hello-foundation.swift"
    mkdir -p "$work/static-cxx"
    printf 'INPUT(%s)\n' "$(c++ -print-file-name=libstdc++.a 2>/dev/null)" >"$work/static-cxx/libstdc++.so"
    hello_flags=(-Osize -static-stdlib -L "$work/static-cxx" -Xlinker --gc-sections)
    glibc="$(getconf GNU_LIBC_VERSION 2>/dev/null | awk '{ print $2 }')"
    if [ -n "$glibc" ] && printf '2.36\n%s\n' "$glibc" | sort -V -C; then
        hello_flags+=(-use-ld=lld -Xlinker -z -Xlinker pack-relative-relocs)
    fi
    if gcc -O2 -include stdio.h -o "$work/hello-c" "$work/hello.c" 2>"$work/hello.err" \
        && swiftc "${hello_flags[@]}" -o "$work/hello-swift" "$work/hello.swift" 2>>"$work/hello.err" \
        && swiftc "${hello_flags[@]}" -o "$work/hello-foundation" "$work/hello-foundation.swift" \
            2>>"$work/hello.err" \
        && strip "$work/hello-swift" "$work/hello-foundation"; then
        # The goal is judged on the CPU each process itself uses (perf's task-clock, mean of 30 runs): a wall-time
        # loop of a few milliseconds measures mostly its own fork and exec, which makes every ratio look near 1.
        # Without perf, the wall times are shown and not judged.
        cpu_ms() {
            local name="$1"; shift
            $perf_ok || { echo "n/a"; return; }
            perf stat -r 30 -x, -e task-clock -o "$work/$name.perf" -- "$@" >/dev/null 2>&1 || { echo "n/a"; return; }
            awk -F, '$3 == "task-clock" { printf "%.2f", $1 }' "$work/$name.perf"
        }
        for program in c swift foundation; do
            printf -v "hello_${program}_ms" '%s' "$(mean_ms "hello-$program" "$work/hello-$program")" || exit 1
            printf -v "hello_${program}_cpu" '%s' "$(cpu_ms "hello-$program" "$work/hello-$program")"
        done
        static_cpu="$(cpu_ms static-help "$work/device-login.stripped" --help)"
        printf '   %-44s %9s %12s\n' "" "wall" "CPU (perf)"
        printf '   %-44s %6s ms %9s ms\n' "C hello (gcc -O2)" "$hello_c_ms" "$hello_c_cpu"
        printf '   %-44s %6s ms %9s ms (%sx the C hello)\n' "Swift hello (linked as device-login)" "$hello_swift_ms" \
            "$hello_swift_cpu" "$(ratio "$hello_swift_cpu" "$hello_c_cpu")"
        printf '   %-44s %6s ms %9s ms (%sx the C hello)\n' "FoundationEssentials hello (linked alike)" \
            "$hello_foundation_ms" "$hello_foundation_cpu" "$(ratio "$hello_foundation_cpu" "$hello_c_cpu")"
        printf '   %-44s %6s ms %9s ms\n' "static --help" "$static_ms" "$static_cpu"
        help_ratio="$(ratio "$static_cpu" "$hello_c_cpu")"
        printf '   %-44s %9sx   goal <= 2x: %s (%sx the FoundationEssentials hello; wall %sx)\n' \
            "static --help / C hello, CPU" "$help_ratio" \
            "$(if [[ "$help_ratio" == n/a ]]; then echo "not judged (no perf)"; else
                verdict "$(awk -v r="$help_ratio" 'BEGIN { print (r <= 2) ? 1 : 0 }')"; fi)" \
            "$(ratio "$static_cpu" "$hello_foundation_cpu")" "$(ratio "$static_ms" "$hello_c_ms")"
    else
        echo "   the hello programs did not build: $(head -1 "$work/hello.err")"
    fi
    echo "   dynamic dependencies (ldd):"
    ldd "$work/device-login.stripped" | sed 's/^[[:space:]]*/     /'
    # libcurl is loaded with dlopen on the first request (CCurl), so it must not be a link-time dependency.
    if readelf -d "$work/device-login.stripped" | grep -q 'NEEDED.*libcurl'; then
        echo "   FAIL libcurl is a link-time dependency (readelf -d: NEEDED); it must be loaded on the first request"
    else
        echo "   libcurl not in readelf -d's NEEDED (loaded on the first request): PASS"
    fi
    for library in libqrencode libstdc++; do
        if readelf -d "$work/device-login.stripped" | grep -q "NEEDED.*$library"; then
            echo "   FAIL $library is a link-time dependency (readelf -d: NEEDED)"
        else
            echo "   $library not in readelf -d's NEEDED: PASS"
        fi
    done
    # The CLI uses FoundationEssentials only: full Foundation's symbols ($s10Foundation...) must not be linked in.
    foundation_symbols=$(nm "$static_bin" 2>/dev/null | grep -c ' \$s10Foundation')
    if ((foundation_symbols > 0)); then
        echo "   FAIL full Foundation is linked in ($foundation_symbols \$s10Foundation symbols)"
    else
        echo "   full Foundation not linked in (no \$s10Foundation symbols; FoundationEssentials only): PASS"
    fi
fi

# --- 6. The C library: size and the token fast path --------------------------------------------------------------
echo
echo "6. libdevicelogin (Scripts/build-lib.sh): stripped size, and a C program's dl_token against cat"
show "bash Scripts/build-lib.sh"
if lib_dir="$(timeout 3600 bash Scripts/build-lib.sh 2>"$work/lib.log")"; then
    strip -o "$work/libdevicelogin.stripped.so" "$lib_dir/libdevicelogin.so.1"
    lib_bytes=$(stat -c %s "$work/libdevicelogin.stripped.so")
    lib_mb=$(awk -v b="$lib_bytes" 'BEGIN { printf "%.1f", b / 1048576 }')
    printf '   %-44s %s MB   goal <= 12 MB: %s\n' "stripped libdevicelogin.so.1" "$lib_mb" \
        "$(verdict "$(awk -v m="$lib_mb" 'BEGIN { print (m <= 12) ? 1 : 0 }')")"
    # The program a firmware tool would run on every call: the saved profile's token, nothing else.
    cat >"$work/c-token.c" <<'C'
#include <stdio.h>
#include <string.h>
#include <device_login.h>
int main(void) {
    const char *settings = "{\"v\":1,\"profile\":\"bench\"}";
    dl_client *client = NULL;
    char *token = NULL;
    int status = dl_client_new(settings, strlen(settings), &client, NULL);
    if (status == DL_OK) status = dl_token(client, 0, &token, NULL);
    if (status == DL_OK) puts(token);
    dl_string_free(token);
    dl_client_free(client);
    return status;
}
C
    lib_abs="$(cd "$lib_dir" && pwd)"
    if gcc -O2 -I include -o "$work/c-token" "$work/c-token.c" -L "$lib_abs" -ldevicelogin \
        -Wl,-rpath,"$lib_abs" 2>"$work/c-token.err"; then
        printf '   %-32s %11s %11s %8s %-4s %10s\n' "fast path" "C program" "cat" "ratio" "" "peak RSS"
        fast_path "C dl_token" /dev/null plain "$work/c-token"
        for line in "${fast_fails[@]}"; do
            [[ "$line" == "C dl_token"* ]] && echo "   FAIL $line"
        done
    else
        echo "   FAIL the C program did not compile: $(head -1 "$work/c-token.err")"
    fi
else
    echo "   FAIL Scripts/build-lib.sh failed: $(tail -1 "$work/lib.log")"
fi

# --- 5. The 16-process refresh race -------------------------------------------------------------------------------
echo
echo "5. 16 \`device-login token\` processes at once on an expired access token"
store="$DEVICE_LOGIN_HOME/bench.json"
# Make the stored access token look expired: its expires_at (Unix seconds) goes to 2001-09-09.
show "sed -i -E '0,/\"expires_at\" *: *[0-9.eE+-]+/s//\"expires_at\" : 1000000000/' $store"
sed -i -E '0,/"expires_at" *: *[0-9.eE+-]+/s//"expires_at" : 1000000000/' "$store" || die "cannot edit $store"
grep -q '"expires_at" : 1000000000' "$store" || die "no expires_at in $store"

# The demo server prints what it served when it stops (SIGINT): its refresh count is read from there. Nothing
# before the race refreshes (the fast-path runs found a valid token), so the count is the race's.
show "for i in \$(seq 16); do $cli token --profile bench & done; wait"
pids=()
start=$(date +%s%N)
for i in $(seq 16); do
    timeout 60 "$cli" token --profile bench >"$work/race.$i.out" 2>"$work/race.$i.err" &
    pids+=($!)
done
failed=0
for pid in "${pids[@]}"; do wait "$pid" || failed=$((failed + 1)); done
end=$(date +%s%N)
race_ms=$(((end - start) / 1000000))
distinct=$(cat "$work"/race.*.out | grep -v '^$' | sort -u | wc -l)
kill -INT "$quick_pid" 2>/dev/null
for _ in $(seq 100); do kill -0 "$quick_pid" 2>/dev/null || break; sleep 0.1; done
refreshes=$(sed -n -E 's/^Served .* ([0-9]+) refreshes.*/\1/p' "$work/quick.err")
[[ -n "$refreshes" ]] || refreshes="n/a"
printf '   %-44s %s ms\n' "wall time, all 16" "$race_ms"
printf '   %-44s %s\n' "processes that failed" "$failed"
printf '   %-44s %s   goal 1: %s\n' "distinct tokens printed" "$distinct" "$(verdict "$((distinct == 1 ? 1 : 0))")"
printf '   %-44s %s   goal 1: %s\n' "refresh requests the server received" "$refreshes" \
    "$(verdict "$([[ "$refreshes" == 1 ]] && echo 1 || echo 0)")"
echo "   (as counted by the demo server, printed when it stops)"
if ((failed > 0)); then
    echo "   first error: $(cat "$work"/race.*.err | head -1)"
fi
