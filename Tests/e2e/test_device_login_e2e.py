"""Runs the real `device-login` binary against the Authlib test server and approves through its web pages.

The binary is $DEVICE_LOGIN_BIN, or .build/debug/device-login under the repository root. When it is missing these
tests are skipped, unless $CI is set: then they fail, so CI can never pass without running them.
"""

import json
import os
import re
import signal
import socket
import subprocess
import threading
import time
from datetime import datetime
from pathlib import Path

import pytest
import requests

from approve import approve, deny

REPO_ROOT = Path(__file__).resolve().parent.parent.parent
PUBLIC = "device-login-e2e"
CONFIDENTIAL = "device-login-e2e-confidential"
SECRET = "e2e-confidential-secret"
CODE_LINE = re.compile(r"Code: (\S+)")
CODE_TIMEOUT = 20  # seconds for the CLI to discover the server and show the code
FINISH_TIMEOUT = 40  # seconds for the CLI to finish once the outcome is decided
PROXY_VARIABLES = ("http_proxy", "https_proxy", "all_proxy", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY")


def binary_path():
    configured = os.environ.get("DEVICE_LOGIN_BIN")
    path = Path(configured) if configured else REPO_ROOT / ".build" / "debug" / "device-login"
    if path.is_file() and os.access(path, os.X_OK):
        return path
    message = f"device-login binary not found at {path} (build it with `swift build`, or set DEVICE_LOGIN_BIN)"
    if os.environ.get("CI"):
        pytest.fail(message + "; CI is set, so this is a failure, not a skip")
    pytest.skip(message)


class CLIRun:
    """One running `device-login`: its output is read on threads so the test can react to the prompt."""

    def __init__(self, arguments, home):
        environment = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
        environment.update(DEVICE_LOGIN_HOME=str(home), NO_PROXY="127.0.0.1,localhost", NO_COLOR="1")
        self.process = subprocess.Popen(
            [str(binary_path()), *arguments],
            stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=environment,
        )
        self._stdout = []
        self._stderr = []
        self._code_seen = threading.Event()
        self._readers = [
            threading.Thread(target=self._read, args=(self.process.stdout, self._stdout), daemon=True),
            threading.Thread(target=self._read, args=(self.process.stderr, self._stderr), daemon=True),
        ]
        for reader in self._readers:
            reader.start()

    def _read(self, stream, chunks):
        for line in iter(stream.readline, b""):
            chunks.append(line)
            if chunks is self._stderr and CODE_LINE.search(line.decode(errors="replace")):
                self._code_seen.set()
        stream.close()

    @property
    def stdout(self):
        return b"".join(self._stdout).decode(errors="replace")

    @property
    def stderr(self):
        return b"".join(self._stderr).decode(errors="replace")

    def user_code(self):
        """The user code from the prompt's `Code: XXXX-XXXX` line on stderr."""
        if not self._code_seen.wait(CODE_TIMEOUT):
            self.kill()
            pytest.fail(f"no `Code:` line on stderr within {CODE_TIMEOUT} s; stderr:\n{self.stderr}")
        return CODE_LINE.search(self.stderr).group(1)

    def finish(self):
        try:
            self.process.wait(timeout=FINISH_TIMEOUT)
        except subprocess.TimeoutExpired:
            self.kill()
            pytest.fail(f"device-login still running after {FINISH_TIMEOUT} s; stderr:\n{self.stderr}")
        for reader in self._readers:
            reader.join(timeout=5)
        return self.process.returncode

    def kill(self):
        if self.process.poll() is None:
            self.process.kill()
            self.process.wait(timeout=5)


@pytest.fixture(autouse=True)
def require_binary():
    """Skips (or, with CI set, fails) before any server starts when the binary is missing."""
    binary_path()


@pytest.fixture
def cli(tmp_path):
    """Starts `device-login` with the given arguments and DEVICE_LOGIN_HOME in a temporary folder."""
    runs = []

    def run(*arguments):
        home = tmp_path / "home"
        home.mkdir(exist_ok=True)
        runs.append(CLIRun(arguments, home))
        return runs[-1]

    yield run
    for leftover in runs:
        leftover.kill()


def login_arguments(server, client_id=PUBLIC, *extra):
    return ("login", "--issuer", server.base_url, "--client-id", client_id, "--qr", "never", "--json", "--no-store",
            *extra)


def assert_polls_kept_the_interval(record):
    """No two polls closer than the interval in force after the first of them (RFC 8628 §3.4, §3.5)."""
    polls = record["polls"]
    assert polls, "the CLI never polled"
    for earlier, later in zip(polls, polls[1:]):
        gap = later["at"] - earlier["at"]
        assert gap >= earlier["interval"], f"polled after {gap:.3f} s, interval was {earlier['interval']} s: {polls}"


def parse_expires_at(value):
    if isinstance(value, (int, float)):
        return float(value)
    return datetime.fromisoformat(value.replace("Z", "+00:00")).timestamp()


def single_json_object(stdout):
    """stdout must be exactly one JSON object (surrounding whitespace allowed) and nothing else."""
    document, end = json.JSONDecoder().raw_decode(stdout.strip())
    assert end == len(stdout.strip()), f"stdout holds more than one JSON value: {stdout!r}"
    assert isinstance(document, dict), f"stdout is not a JSON object: {stdout!r}"
    return document


def test_public_client_signs_in_through_discovery(server, cli):
    started = time.time()
    run = cli(*login_arguments(server))
    code = run.user_code()
    approve(server.base_url, code)
    status = run.finish()
    finished = time.time()

    assert status == 0, run.stderr
    result = single_json_object(run.stdout)
    assert result["access_token"]
    assert result["token_type"].lower() == "bearer"
    expires_at = parse_expires_at(result["expires_at"])  # absolute: the server said expires_in 3600
    assert started + 3600 - 60 <= expires_at <= finished + 3600 + 60

    record = server.polls(code)
    assert record["polls"][-1]["answer"] == "token"
    assert_polls_kept_the_interval(record)
    assert code in run.stderr
    for secret in (result["access_token"], result.get("refresh_token"), record["device_code"]):
        if secret:
            assert secret not in run.stderr
    assert record["device_code"] not in run.stdout


def test_openid_scope_token_is_accepted_by_userinfo(server, cli):
    run = cli(*login_arguments(server, PUBLIC, "--scope", "openid"))
    approve(server.base_url, run.user_code())
    assert run.finish() == 0, run.stderr

    result = single_json_object(run.stdout)
    response = requests.get(server.url("/userinfo"), headers={"Authorization": f"Bearer {result['access_token']}"},
                            timeout=10)
    assert response.status_code == 200
    assert response.json()["sub"] == "alice"


def test_confidential_client_authenticates_with_basic_auth(server, cli):
    run = cli(*login_arguments(server, CONFIDENTIAL, "--client-secret", SECRET))
    code = run.user_code()
    approve(server.base_url, code)
    assert run.finish() == 0, run.stderr

    assert single_json_object(run.stdout)["access_token"]
    record = server.polls(code)
    assert {poll["auth_method"] for poll in record["polls"]} == {"client_secret_basic"}
    assert_polls_kept_the_interval(record)
    assert SECRET not in run.stderr and SECRET not in run.stdout


def test_denied_exits_65_with_a_clear_message(server, cli):
    run = cli(*login_arguments(server))
    code = run.user_code()
    deny(server.base_url, code)
    assert run.finish() == 65, run.stderr

    assert re.search(r"denied", run.stderr, re.IGNORECASE), run.stderr
    assert run.stdout.strip() == ""
    assert server.polls(code)["polls"][-1]["answer"] == "access_denied"


def test_expired_code_exits_66(server_factory, cli):
    server = server_factory(interval=1, expires_in=3)
    run = cli(*login_arguments(server))
    code = run.user_code()
    assert run.finish() == 66, run.stderr

    assert re.search(r"expired", run.stderr, re.IGNORECASE), run.stderr
    assert run.stdout.strip() == ""
    assert_polls_kept_the_interval(server.polls(code))


def test_slow_down_adds_5_seconds_to_every_later_poll(server, cli):
    run = cli(*login_arguments(server))
    code = run.user_code()
    server.wait_for_polls(code, lambda polls: len(polls) >= 1, timeout=15)
    server.force_slow_down(code)
    server.wait_for_polls(code, lambda polls: any(p["answer"] == "slow_down" for p in polls), timeout=15)
    approve(server.base_url, code)
    assert run.finish() == 0, run.stderr

    record = server.polls(code)
    polls = record["polls"]
    answers = [poll["answer"] for poll in polls]
    assert answers.count("slow_down") == 1, f"the CLI polled too fast after the forced slow_down: {polls}"
    assert answers[-1] == "token"
    slowed = answers.index("slow_down")
    assert polls[slowed]["interval"] == 6
    assert polls[slowed + 1]["at"] - polls[slowed]["at"] >= 1 + 5
    assert_polls_kept_the_interval(record)


def test_unreachable_issuer_exits_69(cli):
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    run = cli("login", "--issuer", f"http://127.0.0.1:{port}", "--client-id", PUBLIC, "--qr", "never", "--json",
              "--no-store")
    assert run.finish() == 69, run.stderr
    assert run.stdout.strip() == ""


def test_missing_client_id_is_a_usage_error(server, cli):
    run = cli("login", "--issuer", server.base_url, "--no-store")
    assert run.finish() == 64, run.stderr


def test_interrupt_while_waiting_exits_130(server, cli):
    run = cli(*login_arguments(server))
    code = run.user_code()
    server.wait_for_polls(code, lambda polls: len(polls) >= 1, timeout=15)
    run.process.send_signal(signal.SIGINT)
    assert run.finish() == 130, run.stderr
    assert run.stdout.strip() == ""


def test_readme_command_signs_in_to_a_server_that_lists_no_offline_access(standard_server, cli, tmp_path):
    """The README's first command, as a new user types it, against a server set up as Authlib documents: its
    discovery lists no offline_access, so the default scopes must not ask for it (the server would answer
    invalid_scope, exit 76)."""
    (tmp_path / "home").mkdir(mode=0o700)  # the token directory must be the user's alone
    run = cli("login", "--issuer", standard_server.base_url, "--client-id", PUBLIC, "--qr", "never")
    code = run.user_code()
    approve(standard_server.base_url, code)
    assert run.finish() == 0, run.stderr
    assert "invalid_scope" not in run.stderr

    status = subprocess.run([str(binary_path()), "status", "--json"], capture_output=True, text=True, timeout=30,
                            env={**os.environ, "DEVICE_LOGIN_HOME": str(tmp_path / "home")})
    assert status.returncode == 0, status.stderr
    profile = json.loads(status.stdout)["profiles"][0]
    assert set(profile["scope"].split()) == {"openid", "profile"}
    assert profile["has_refresh_token"]  # Authlib issues one without offline_access: the session lasts


def test_a_refused_scope_names_what_was_asked_and_what_the_server_lists(standard_server, cli, tmp_path):
    (tmp_path / "home").mkdir(mode=0o700)
    run = cli("login", "--issuer", standard_server.base_url, "--client-id", PUBLIC, "--qr", "never",
              "--scope", "openid offline_access")
    assert run.finish() == 76
    assert "asked for openid offline_access; the server lists openid profile email" in run.stderr
