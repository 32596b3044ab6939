"""The key stores (issue 21) with the built binary against Authlib: the kernel keyring for real.

The module joins a new session keyring of its own before any test runs (`KEYCTL_JOIN_SESSION_KEYRING`, on the main
thread, which starts every child), and runs the binary with `DEVICE_LOGIN_KEYRING=session`: no test reads or writes
the user's persistent keyring. The test process possesses that keyring, so it reads and rewrites the keys itself to
check where the tokens are, to revoke one underneath the binary, and to expire the access token.
"""

import ctypes
import json
import os
import platform
import subprocess
import time

import pytest

from approve import approve
from integration_support import cli_environment, make_home, run_cli, token_is_accepted
from test_device_login_e2e import PUBLIC, CLIRun, binary_path

# (add_key, keyctl) system call numbers.
SYSCALLS = {"x86_64": (248, 250), "aarch64": (217, 219)}
KEYCTL_JOIN_SESSION_KEYRING, KEYCTL_REVOKE, KEYCTL_DESCRIBE, KEYCTL_SEARCH, KEYCTL_READ = 1, 3, 6, 10, 11
SESSION_KEYRING = -3

libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long


def keyctl(*arguments):
    result = libc.syscall(ctypes.c_long(SYSCALLS[platform.machine()][1]), *arguments)
    if result < 0:
        raise OSError(ctypes.get_errno(), os.strerror(ctypes.get_errno()))
    return result


def key_serial(description):
    return keyctl(ctypes.c_long(KEYCTL_SEARCH), ctypes.c_long(SESSION_KEYRING), b"user", description.encode(),
                  ctypes.c_long(0))


def read_key(description):
    """The key's payload, or None when there is none."""
    try:
        serial = key_serial(description)
    except OSError:
        return None
    buffer = ctypes.create_string_buffer(32768)
    length = keyctl(ctypes.c_long(KEYCTL_READ), ctypes.c_long(serial), buffer, ctypes.c_long(len(buffer)))
    return buffer.raw[:length]


def write_key(description, payload):
    result = libc.syscall(ctypes.c_long(SYSCALLS[platform.machine()][0]), b"user", description.encode(), payload,
                          ctypes.c_size_t(len(payload)), ctypes.c_long(SESSION_KEYRING))
    assert result >= 0, os.strerror(ctypes.get_errno())


@pytest.fixture(scope="module", autouse=True)
def own_session_keyring():
    if platform.machine() not in SYSCALLS:
        pytest.skip("no keyctl numbers for this machine")
    try:
        keyctl(ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), ctypes.c_void_p(None))
    except OSError as error:
        pytest.skip(f"the kernel keyring cannot be used here: {error}")
    previous = os.environ.get("DEVICE_LOGIN_KEYRING")
    os.environ["DEVICE_LOGIN_KEYRING"] = "session"
    yield
    if previous is None:
        del os.environ["DEVICE_LOGIN_KEYRING"]
    else:
        os.environ["DEVICE_LOGIN_KEYRING"] = previous


def key_of(home, profile="default"):
    return f"device-login:{home}:{profile}"


def cli(home, *arguments, **environment):
    return run_cli(home, *arguments, DEVICE_LOGIN_KEYRING="session", **environment)


def login(server, home, *extra, profile="default"):
    make_home(home)
    run = CLIRun(["login", "--issuer", server.base_url, "--client-id", PUBLIC, "--qr", "never",
                  "--scope", "openid offline_access", "--profile", profile, *extra], home)
    approve(server.base_url, run.user_code())
    assert run.finish() == 0, run.stderr
    return run


def test_keyring_sign_in_status_move_and_logout(server, tmp_path):
    home = tmp_path / "home"
    run = login(server, home, "--store", "keyring")
    assert "kernel keyring" in run.stderr

    # The file keeps the settings, the key the tokens.
    record_text = (home / "default.json").read_text()
    record = json.loads(record_text)
    assert record["profile"]["store"] == "keyring"
    assert record.get("tokens") is None
    stored = json.loads(read_key(key_of(home)))
    assert stored["tokens"]["refresh_token"] and stored["tokens"]["refresh_token"] not in record_text

    status = cli(home, "status")
    assert status.returncode == 0, status.stderr
    assert b"tokens rest in: kernel keyring (the session keyring" in status.stdout
    document = json.loads(cli(home, "status", "--json").stdout)
    assert document["profiles"][0]["token_store"] == "keyring"

    # The fast path answers from the key.
    token = cli(home, "token")
    assert token.returncode == 0, token.stderr
    assert token.stdout.decode().strip() == stored["tokens"]["access_token"]
    assert token_is_accepted(server, stored["tokens"]["access_token"])

    # Moving to the file leaves no key; moving back leaves no tokens in the file.
    moved = cli(home, "store", "--to", "file")
    assert moved.returncode == 0, moved.stderr
    assert read_key(key_of(home)) is None
    assert json.loads((home / "default.json").read_text())["tokens"]["refresh_token"]
    assert json.loads(cli(home, "status", "--json").stdout)["profiles"][0]["token_store"] == "file"
    back = cli(home, "store", "--to", "keyring")
    assert back.returncode == 0, back.stderr
    assert json.loads((home / "default.json").read_text()).get("tokens") is None
    assert read_key(key_of(home)) is not None

    logout = cli(home, "logout")
    assert logout.returncode == 0, logout.stderr
    assert read_key(key_of(home)) is None
    assert not (home / "default.json").exists()


def test_auto_says_once_that_tokens_rest_in_a_file(server, tmp_path):
    home = tmp_path / "home"
    first = login(server, home)
    assert "rest in that file, readable by this user" in first.stderr
    assert "--to keyring" in first.stderr
    assert json.loads(cli(home, "status", "--json").stdout)["profiles"][0]["token_store"] == "file"
    again = login(server, home)
    assert "rest in that file" not in again.stderr

    # Signing in again with another store moves the tokens, and leaves no copy behind.
    login(server, home, "--store", "keyring")
    assert json.loads((home / "default.json").read_text()).get("tokens") is None
    assert read_key(key_of(home)) is not None
    kept = login(server, home)  # no --store: the profile keeps its store
    assert "rest in that file" not in kept.stderr
    assert json.loads(cli(home, "status", "--json").stdout)["profiles"][0]["token_store"] == "keyring"
    login(server, home, "--store", "file")
    assert read_key(key_of(home)) is None
    assert json.loads((home / "default.json").read_text())["tokens"]["refresh_token"]


def test_a_key_revoked_underneath_is_not_signed_in(server, tmp_path):
    home = tmp_path / "home"
    login(server, home, "--store", "keyring")
    keyctl(ctypes.c_long(KEYCTL_REVOKE), ctypes.c_long(key_serial(key_of(home))))

    status = cli(home, "status")
    assert status.returncode == 77
    assert b"Not signed in" in status.stdout and b"no tokens in the kernel keyring" in status.stdout
    token = cli(home, "token", CI="true")
    assert token.returncode == 77
    assert b"device-login login" in token.stderr
    assert b"Fatal error" not in token.stderr and b"Trace" not in token.stderr

    # Signing in again replaces the revoked key.
    login(server, home)
    assert cli(home, "token").returncode == 0


def tokens_of_processes(home, count):
    """Runs `device-login token` in `count` processes at once; each must succeed. The set of tokens they printed."""
    environment = cli_environment(home, DEVICE_LOGIN_KEYRING="session")
    processes = [subprocess.Popen([str(binary_path()), "token"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=environment) for _ in range(count)]
    outputs = [process.communicate(timeout=60) for process in processes]
    assert all(process.returncode == 0 for process in processes), [error for _, error in outputs]
    return {output.decode().strip() for output, _ in outputs}


def test_sixteen_processes_on_an_expired_token_refresh_once(server, tmp_path):
    home = tmp_path / "home"
    login(server, home, "--store", "keyring")
    stored = json.loads(read_key(key_of(home)))
    stored["tokens"]["expires_at"] = time.time() - 60
    write_key(key_of(home), json.dumps(stored).encode())
    before = server.log().count("refresh -> 200")

    tokens = tokens_of_processes(home, 16)
    assert len(tokens) == 1 and stored["tokens"]["access_token"] not in tokens
    assert server.log().count("refresh -> 200") - before == 1
    assert json.loads(read_key(key_of(home)))["tokens"]["access_token"] in tokens


def read_in_child(serial, uid=None):
    """Forks a child that leaves this session keyring (a new one of its own, as a new login has), switches to `uid`
    when given, and tries to read the key `serial`; returns the child's errno (0 when it read the key)."""
    child = os.fork()
    if child == 0:
        code = 255
        try:
            if uid is not None:
                os.setgid(uid)
                os.setuid(uid)
            keyctl(ctypes.c_long(KEYCTL_JOIN_SESSION_KEYRING), ctypes.c_void_p(None))
            buffer = ctypes.create_string_buffer(32768)
            result = libc.syscall(ctypes.c_long(SYSCALLS[platform.machine()][1]), ctypes.c_long(KEYCTL_READ),
                                  ctypes.c_long(serial), buffer, ctypes.c_long(len(buffer)))
            code = 0 if result >= 0 else ctypes.get_errno()
        finally:
            os._exit(code)
    _, status = os.waitpid(child, 0)
    return os.waitstatus_to_exitcode(status)


def test_only_a_possessor_reads_the_key(server, tmp_path):
    home = tmp_path / "home"
    login(server, home, "--store", "keyring")
    serial = key_serial(key_of(home))
    # The same user in another session, without possession: "view" only, never the payload.
    assert read_in_child(serial) == 13  # EACCES
    if os.geteuid() != 0:
        pytest.skip("switching to another user needs root")
    # Another user: nothing at all.
    assert read_in_child(serial, uid=65534) == 13


def test_kill_9_during_refreshes_never_tears_the_key(server, tmp_path):
    """Processes killed with SIGKILL at random moments of a refresh leave the key a whole record, old or new: the
    profile never reads as corrupt (74). (A process killed after the server rotated the refresh token and before
    the save loses that token, on every store: the profile may then be signed out, never broken.)"""
    import random
    import signal

    home = tmp_path / "home"
    login(server, home, "--store", "keyring")
    environment = cli_environment(home, DEVICE_LOGIN_KEYRING="session")
    for _ in range(12):
        payload = read_key(key_of(home))
        if payload is None:
            break  # signed out after a lost rotated refresh token: nothing left to tear
        stored = json.loads(payload)
        stored["tokens"]["expires_at"] = time.time() - 60
        write_key(key_of(home), json.dumps(stored).encode())
        process = subprocess.Popen([str(binary_path()), "token"], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL, env=environment)
        time.sleep(random.uniform(0.0, 0.08))
        process.send_signal(signal.SIGKILL)
        process.wait(timeout=10)
        payload = read_key(key_of(home))
        if payload is not None:
            json.loads(payload)  # never torn
        assert cli(home, "status").returncode in (0, 77)


def test_detach_carries_the_store_to_resume(server, tmp_path):
    """`login --detach --store keyring` keeps the choice in the pending sign-in; `--resume`, in another process, saves
    the tokens there, not in the file."""
    from test_detach_e2e import detach

    home = tmp_path / "home"
    code = detach(server, home, "--store", "keyring", "--scope", "openid offline_access")
    assert json.loads((home / "default.pending").read_text())["store_request"] == "keyring"
    approve(server.base_url, code)
    resumed = cli(home, "login", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    record = json.loads((home / "default.json").read_text())
    assert record["profile"]["store"] == "keyring" and record.get("tokens") is None
    assert json.loads(read_key(key_of(home)))["tokens"]["refresh_token"]
