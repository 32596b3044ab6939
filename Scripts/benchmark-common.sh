# Sourced by Scripts/benchmark.sh, Scripts/check-budgets.sh and Scripts/order-file.sh (not run on its own): what they
# need to measure the CLI. Set $program (for messages) and cd to the repository before sourcing; set $cli before
# calling start_demo.

# The keyring rows keep their keys in the session keyring: the sourcing script runs again, whole, in a new session
# keyring of its own, which every process it starts shares (Scripts/session-keyring.py says why).
[ -n "${DEVICE_LOGIN_SCRIPT_KEYRING:-}" ] \
    || DEVICE_LOGIN_SCRIPT_KEYRING=1 exec python3 Scripts/session-keyring.py bash "$0" "$@"

die() { echo "$program: $*" >&2; exit 1; }
say() { echo "$*" >&2; }
show() { echo "  \$ $*"; }
# show_args COMMAND...: prints a command with its arguments quoted as the shell needs them.
show_args() { printf '  $'; printf ' %q' "$@"; echo; }

# --- Everything started in the background is recorded here and stopped on exit. -------------------------------
work="$(mktemp -d "${TMPDIR:-/tmp}/device-login-bench.XXXXXX")" || die "cannot create a temporary directory"
chmod 700 "$work"
background=()
cleanup() {
    local pid
    for pid in "${background[@]}"; do
        kill "$pid" 2>/dev/null
    done
    for pid in "${background[@]}"; do
        # Bounded: a process that ignores SIGTERM for 5 s gets SIGKILL.
        for _ in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
        kill -9 "$pid" 2>/dev/null
        wait "$pid" 2>/dev/null
    done
    rm -rf "$work"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

have() { command -v "$1" >/dev/null 2>&1; }
have timeout || die "timeout (coreutils) is required"
time_bin=/usr/bin/time
[[ -x "$time_bin" ]] || time_bin=""
perf_ok=false
if have perf && perf stat -x, -e task-clock -o /dev/null true >/dev/null 2>&1; then perf_ok=true; fi

# peak_rss_mb COMMAND...: the median peak RSS of 5 runs, in MB (10^6 bytes), from /usr/bin/time -f %M.
peak_rss_mb() {
    [[ -n "$time_bin" ]] || { echo "n/a"; return; }
    local i
    for i in 1 2 3 4 5; do
        timeout 30 "$time_bin" -f %M -o "$work/rss" "$@" >/dev/null 2>&1 || die "failed: $*"
        tail -1 "$work/rss"
    done | sort -n | sed -n 3p | awk '{ printf "%.1f", $1 * 1024 / 1e6 }'
}

# peak_rss_mb_in INPUT COMMAND...: as peak_rss_mb, with stdin from INPUT.
peak_rss_mb_in() {
    [[ -n "$time_bin" ]] || { echo "n/a"; return; }
    local input="$1" i
    shift
    for i in 1 2 3 4 5; do
        timeout 30 "$time_bin" -f %M -o "$work/rss" "$@" <"$input" >/dev/null 2>&1 || die "failed: $*"
        tail -1 "$work/rss"
    done | sort -n | sed -n 3p | awk '{ printf "%.1f", $1 * 1024 / 1e6 }'
}

# start_demo NAME ARGS...: starts `device-login demo --serve ARGS` in the background and sets $issuer and $server_pid.
start_demo() {
    local name="$1"; shift
    show "$cli demo --serve $* &"
    "$cli" demo --serve "$@" >"$work/$name.out" 2>"$work/$name.err" &
    server_pid=$!
    background+=("$server_pid")
    issuer=""
    for _ in $(seq 100); do
        issuer="$(head -1 "$work/$name.out" 2>/dev/null)"
        [[ -n "$issuer" ]] && return
        kill -0 "$server_pid" 2>/dev/null || break
        sleep 0.1
    done
    cat "$work/$name.err" >&2
    die "the demo server did not print its issuer within 10 s"
}

# build_release PRODUCT...: builds each product in release mode (its log shown only when it fails) and sets $bin_dir.
build_release() {
    local product
    for product in "$@"; do
        show "swift build -c release --product $product"
        timeout 1800 swift build -c release --product "$product" >"$work/build.log" 2>&1 \
            || { tail -30 "$work/build.log" >&2; die "the release build of $product failed"; }
    done
    bin_dir="$(swift build -c release --show-bin-path)" || die "cannot find the release bin path"
}
