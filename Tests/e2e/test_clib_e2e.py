"""libdevicelogin, the C library, against the Authlib server: built once (Scripts/build-lib.sh, release), installed
into a temporary prefix with `Scripts/install.sh --lib`, and used as a C program would — compiled by gcc with
-Wall -Wextra -Werror from the installed header and `pkg-config --cflags --libs devicelogin`, under AddressSanitizer
(and LeakSanitizer) — and as the Python ctypes example does. Tests/e2e/clib/clib_test.c holds the C side of each
scenario; this file starts it, plays the person (approve, deny, wait) and checks what it printed and the server saw.
"""

import json
import os
import re
import shutil
import subprocess
import sys

import pytest

from approve import approve, deny
from integration_support import cli_environment, make_home
from test_device_login_e2e import PUBLIC, REPO_ROOT, binary_path

CLIB = REPO_ROOT / "Tests" / "e2e" / "clib"
ABI = CLIB / "abi.txt"
HEADER = REPO_ROOT / "include" / "device_login.h"
TIMEOUT = 60


def run(command, **options):
    result = subprocess.run(command, capture_output=True, text=True, timeout=600, **options)
    assert result.returncode == 0, f"{command} failed:\n{result.stdout}\n{result.stderr}"
    return result


@pytest.fixture(scope="module")
def installed(tmp_path_factory):
    """The library built in release and installed into a temporary prefix; the test program and the C example built
    against it. Returns (prefix, environment for running its programs, the build folder)."""
    if not shutil.which("gcc") or not shutil.which("pkg-config"):
        if os.environ.get("CI"):
            pytest.fail("gcc and pkg-config are needed (Debian: apt-get install gcc pkg-config)")
        pytest.skip("gcc or pkg-config is missing")
    built = run(["bash", str(REPO_ROOT / "Scripts" / "build-lib.sh")], cwd=REPO_ROOT).stdout.strip()
    prefix = tmp_path_factory.mktemp("prefix")
    run(["bash", str(REPO_ROOT / "Scripts" / "install.sh"), "--lib", "--prefix", str(prefix), "--from",
         str(REPO_ROOT / built)])
    environment = dict(os.environ, PKG_CONFIG_PATH=str(prefix / "lib" / "pkgconfig"))
    flags = run(["pkg-config", "--cflags", "--libs", "devicelogin"], env=environment).stdout.split()
    assert f"-I{prefix}/include" in flags and "-ldevicelogin" in flags
    programs = tmp_path_factory.mktemp("programs")
    strict = ["gcc", "-std=c99", "-D_POSIX_C_SOURCE=200809L", "-Wall", "-Wextra", "-Werror", "-g"]
    run(strict + ["-fsanitize=address", "-o", str(programs / "clib_test"), str(CLIB / "clib_test.c")] + flags
        + ["-lpthread"], env=environment)
    run(strict + ["-o", str(programs / "sign-in"), str(REPO_ROOT / "examples" / "c" / "sign-in.c")] + flags,
        env=environment)
    environment.update(
        LD_LIBRARY_PATH=str(prefix / "lib"), NO_PROXY="127.0.0.1,localhost",
        ASAN_OPTIONS="detect_leaks=1:abort_on_error=0", DEVICELOGIN_LIBRARY=str(prefix / "lib" / "libdevicelogin.so.1"))
    for name in ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        environment.pop(name, None)
    return prefix, environment, programs


def drive(installed, server, scenario, store, decide=None, client_id=PUBLIC):
    """Runs one scenario of clib_test; calls decide(user_code) on the authorization line. Returns (exit status,
    stdout lines, stderr)."""
    _, environment, programs = installed
    make_home(store)
    process = subprocess.Popen([str(programs / "clib_test"), scenario, server.base_url, client_id, str(store)],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=environment)
    lines = []
    for line in process.stdout:
        lines.append(line.rstrip("\n"))
        if decide and line.startswith("EVENT ") and json.loads(line[6:])["event"] == "authorization":
            decide(json.loads(line[6:])["user_code"])
    stderr = process.stderr.read()
    status = process.wait(timeout=TIMEOUT)
    process.stdout.close()
    process.stderr.close()
    assert "ERROR: AddressSanitizer" not in stderr and "ERROR: LeakSanitizer" not in stderr, stderr
    return status, lines, stderr


def outcome(lines, name):
    found = [line.split(" ", 3) for line in lines if line.startswith(name + " ")]
    assert found, f"no {name} line in {lines}"
    return int(found[-1][1]), found[-1][2]


def events(lines):
    return [json.loads(line[6:]) for line in lines if line.startswith("EVENT ")]


def token_requests(server):
    return len(re.findall(r'"POST /oauth/token HTTP', server.log()))


def test_sign_in_refresh_once_for_16_threads_and_sign_out(installed, server_factory, tmp_path):
    # Tokens live 61 s: with the 60 s refresh margin they are due a second after they arrive.
    server = server_factory(interval=1, token_expires_in=61)
    status, lines, stderr = drive(installed, server, "sign-in", tmp_path / "store",
                                  lambda code: approve(server.base_url, code))
    assert status == 0, stderr
    assert outcome(lines, "SIGN_IN") == (0, "DL_OK")
    names = [event["event"] for event in events(lines)]
    assert names[0] == "authorization" and names[-1] == "succeeded" and "polling" in names
    succeeded = events(lines)[-1]
    assert succeeded["profile"] == "default" and "openid" in succeeded["scopes"]
    token = next(line.split()[1] for line in lines if line.startswith("TOKEN "))
    assert not any(token in line for line in lines if line.startswith("EVENT ") or line.startswith("STATUS "))
    refreshed = next(line.split()[1] for line in lines if line.startswith("REFRESHED "))
    assert refreshed != token
    # One token request for the sign-in's approval poll and exactly one refresh for the 16 threads; then revoked.
    log = server.log()
    polls_answered = log.count("poll -> ")
    assert token_requests(server) == polls_answered + 1, log
    assert log.count("POST /oauth/revoke") >= 1
    assert outcome(lines, "SIGN_OUT") == (0, "DL_OK")
    assert outcome(lines, "TOKEN_AFTER_SIGN_OUT") == (77, "DL_NOT_SIGNED_IN")


def test_denied_and_expired(installed, server_factory, tmp_path):
    server = server_factory(interval=1)
    status, lines, _ = drive(installed, server, "outcome", tmp_path / "denied", lambda code: deny(server.base_url, code))
    assert status == 0 and outcome(lines, "SIGN_IN") == (65, "DL_DENIED")
    assert events(lines)[-1]["event"] == "failed" and events(lines)[-1]["exit_code"] == 65
    short = server_factory(interval=1, expires_in=2)
    status, lines, _ = drive(installed, short, "outcome", tmp_path / "expired")
    assert status == 0 and outcome(lines, "SIGN_IN") == (66, "DL_EXPIRED")


def test_cancel_from_another_thread_mid_poll(installed, server, tmp_path):
    status, lines, stderr = drive(installed, server, "cancel", tmp_path / "store")
    assert status == 0, stderr
    assert outcome(lines, "SIGN_IN") == (130, "DL_CANCELLED")
    assert [event["event"] for event in events(lines)][-1] == "failed"
    assert events(lines)[-1]["code"] == "cancelled"


def test_callback_error_and_reentry(installed, server, tmp_path):
    status, lines, stderr = drive(installed, server, "callback-error", tmp_path / "one")
    assert status == 0, stderr
    assert outcome(lines, "SIGN_IN") == (74, "DL_IO")
    assert len(events(lines)) == 1  # nothing more once the callback said stop
    status, lines, stderr = drive(installed, server, "reenter", tmp_path / "two")
    assert status == 0, stderr
    assert outcome(lines, "REENTER_SIGN_IN") == (75, "DL_BUSY")
    assert outcome(lines, "REENTER_FREE") == (75, "DL_BUSY")
    assert outcome(lines, "REENTER_TOKEN") == (77, "DL_NOT_SIGNED_IN")
    assert outcome(lines, "SIGN_IN") == (130, "DL_CANCELLED")


def test_bad_input_and_every_error_code(installed, server, tmp_path):
    status, lines, stderr = drive(installed, server, "bad-input", tmp_path / "store")
    assert status == 0, stderr + "\n".join(lines)
    seen = {int(line.split()[2]) for line in lines if line.startswith("SETTINGS ")}
    seen |= {int(line.split()[1]) for line in lines if line.startswith(("TOKEN_", "SIGN_"))}
    # With the other tests: 0, 65, 66, 74 (callback), 75, 130. DL_FAILURE (1) is out of memory only.
    assert {64, 69, 74, 76, 77, 78} <= seen, lines


def test_abi_matches_the_checked_in_list(installed):
    prefix, _, _ = installed
    exported = run(["nm", "-D", "--defined-only", str(prefix / "lib" / "libdevicelogin.so.1")]).stdout
    # Global symbols only (T, D, B, …): the runtime's thread-local dispatch key is a local dynamic symbol.
    symbols = sorted(line.split()[2].split("@")[0] for line in exported.splitlines()
                     if len(line.split()) == 3 and line.split()[1].isupper() and line.split()[1] != "A")
    soname = run(["objdump", "-p", str(prefix / "lib" / "libdevicelogin.so.1")]).stdout
    assert re.search(r"SONAME\s+libdevicelogin\.so\.1\b", soname)
    # Only libc, libm and libgcc_s (and the loader): the runtime and libstdc++ are inside, libcurl is loaded on use.
    needed = set(re.findall(r"NEEDED\s+(\S+)", soname))
    assert needed <= {"libc.so.6", "libm.so.6", "libgcc_s.so.1", "ld-linux-x86-64.so.2"}, needed
    declarations = re.findall(r"^(?:typedef [^;]*;|(?:const )?\w[\w ]*\*?\s*dl_\w+\([^;]*\);)", HEADER.read_text(), re.M)
    defines = re.findall(r"^#define (DL_\w+ \S+)", HEADER.read_text(), re.M)
    current = ["# symbols"] + symbols + ["# declarations"] + [" ".join(d.split()) for d in declarations] + \
        ["# constants"] + defines
    expected = [line for line in ABI.read_text().splitlines() if line and not line.startswith("#!")]
    assert current == expected, "the ABI changed; if on purpose, update Tests/e2e/clib/abi.txt:\n" + "\n".join(current)
    assert (prefix / "lib" / "libdevicelogin.so").resolve().name == "libdevicelogin.so.1"


def test_static_archive_links_alone(installed, tmp_path):
    prefix, environment, _ = installed
    source = tmp_path / "version.c"
    source.write_text('#include <device_login.h>\n#include <stdio.h>\n'
                      'int main(void) { printf("%s %s\\n", dl_version(), dl_status_name(DL_BUSY)); return 0; }\n')
    flags = run(["pkg-config", "--static", "--cflags", "--libs", "devicelogin"], env=environment).stdout.split()
    run(["gcc", "-Wall", "-Wextra", "-Werror", "-o", str(tmp_path / "version"), str(source), "-Wl,-Bstatic",
         "-ldevicelogin", "-Wl,-Bdynamic"] + flags, env=environment)
    needed = run(["objdump", "-p", str(tmp_path / "version")]).stdout
    assert "libdevicelogin" not in needed
    result = run([str(tmp_path / "version")])
    assert result.stdout.split()[1] == "DL_BUSY"


def sign_in_example(command, installed, server, home, **extra):
    _, environment, _ = installed
    make_home(home)
    process = subprocess.Popen(command + [server.base_url, PUBLIC], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               text=True, env=dict(environment, DEVICE_LOGIN_HOME=str(home), **extra))
    shown = process.stderr.readline()
    match = re.match(r"To sign in, open (\S+) and enter the code (\S+)", shown)
    assert match, shown
    approve(server.base_url, match.group(2))
    stdout, stderr = process.communicate(timeout=TIMEOUT)
    assert process.returncode == 0, stderr
    return stdout.strip(), shown + stderr


def test_c_example_signs_in_where_the_cli_finds_the_token(installed, server, tmp_path):
    _, _, programs = installed
    home = tmp_path / "home"
    token, shown = sign_in_example([str(programs / "sign-in")], installed, server, home)
    assert token and "Signed in." in shown
    cli = subprocess.run([str(binary_path()), "token"], capture_output=True, text=True, timeout=TIMEOUT,
                         env=cli_environment(home))
    assert cli.returncode == 0, cli.stderr
    assert cli.stdout.strip() == token


def test_c_example_under_valgrind_memcheck(installed, server, tmp_path):
    """The whole sign-in of the C example (the library's threads, libcurl, the store) under memcheck: no invalid read
    or write, no use of an uninitialised value, nothing definitely lost — but the two reports valgrind.supp names and
    explains. valgrind 3.19 cannot read the toolchain's DWARF 5, so the library is run with its debug info stripped
    (its symbols kept)."""
    if not shutil.which("valgrind"):
        if os.environ.get("CI"):
            pytest.fail("valgrind is needed (Debian: apt-get install valgrind)")
        pytest.skip("valgrind is missing")
    prefix, _, programs = installed
    library = tmp_path / "lib"
    library.mkdir()
    run(["strip", "--strip-debug", "-o", str(library / "libdevicelogin.so.1"), str(prefix / "lib" / "libdevicelogin.so.1")])
    log = tmp_path / "memcheck.log"
    memcheck = ["valgrind", "--error-exitcode=99", "--leak-check=full", "--errors-for-leak-kinds=definite",
                f"--suppressions={CLIB / 'valgrind.supp'}", f"--log-file={log}"]
    token, shown = sign_in_example(memcheck + [str(programs / "sign-in")], installed, server, tmp_path / "home",
                                   LD_LIBRARY_PATH=str(library))
    summary = log.read_text()
    assert token and "Signed in." in shown
    assert "ERROR SUMMARY: 0 errors" in summary, summary
    assert "definitely lost: 0 bytes" in summary or "All heap blocks were freed" in summary, summary
    print(next(line for line in summary.splitlines() if "ERROR SUMMARY" in line))


def test_python_example_signs_in(installed, server, tmp_path):
    example = REPO_ROOT / "examples" / "python" / "sign_in.py"
    token, shown = sign_in_example([sys.executable, str(example)], installed, server, tmp_path / "home")
    assert token and "Signed in." in shown
    assert (tmp_path / "home" / "default.json").is_file()


def test_install_lib_lists_and_uninstalls_exactly_its_files(installed, tmp_path):
    built = REPO_ROOT / ".build" / "clib" / "lib"
    prefix = tmp_path / "prefix"
    output = run(["bash", str(REPO_ROOT / "Scripts" / "install.sh"), "--lib", "--prefix", str(prefix), "--from",
                  str(built)]).stdout
    files = ["lib/libdevicelogin.so.1", "lib/libdevicelogin.so", "lib/libdevicelogin.a", "include/device_login.h",
             "lib/pkgconfig/devicelogin.pc"]
    for relative in files:
        assert (prefix / relative).exists() and f"{prefix}/{relative}" in output
    assert f"prefix={prefix}" in (prefix / "lib" / "pkgconfig" / "devicelogin.pc").read_text()
    mine = prefix / "include" / "mine.h"
    mine.write_text("/* the user's */\n")
    run(["bash", str(REPO_ROOT / "Scripts" / "install.sh"), "--lib", "--prefix", str(prefix), "--uninstall"])
    assert not any((prefix / relative).exists() or (prefix / relative).is_symlink() for relative in files)
    assert mine.exists()
