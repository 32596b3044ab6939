"""`login --flow`: the authorization code grant with PKCE against Authlib's (authlib_server.py --code-grant).

A scripted browser ($BROWSER = browser.py) signs in and follows the redirect to the real binary's loopback
listener; a paste run types the redirect address into a pseudo-terminal; `auto` falls back from a device
authorization refused as AADSTS53003; Ctrl-C while waiting for the redirect leaves the port free.
"""

import json
import os
import pty
import re
import shlex
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from browser import authorize
from test_device_login_e2e import PROXY_VARIABLES, binary_path

PUBLIC = "device-login-e2e"
BROWSER = " ".join(shlex.quote(part) for part in (sys.executable, str(Path(__file__).parent / "browser.py")))
LINK = re.compile(r"^  (http://127\.0\.0\.1:\d+/oauth/authorize\?\S+)$", re.M)
TIMEOUT = 40


class Run:
    """The binary with stdin on a pseudo-terminal (for a paste) and stdout, stderr read on threads."""

    def __init__(self, server, home, *extra, environment=None, where=None):
        env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES + ("DISPLAY", "WAYLAND_DISPLAY",
                                                                                   "SSH_CONNECTION", "SSH_TTY")}
        env.update(DEVICE_LOGIN_HOME=str(home), NO_PROXY="127.0.0.1,localhost", NO_COLOR="1")
        env.update(environment or {})
        self.master, slave = pty.openpty()
        arguments = ["login", *(where or ["--issuer", server.base_url]), "--client-id", PUBLIC, "--json", "--qr", "never", *extra]
        self.process = subprocess.Popen([str(binary_path()), *arguments], stdin=slave, stdout=subprocess.PIPE,
                                        stderr=subprocess.PIPE, env=env)
        os.close(slave)
        self.out, self.err = [], []
        self.readers = [threading.Thread(target=self._read, args=(s, c), daemon=True)
                        for s, c in ((self.process.stdout, self.out), (self.process.stderr, self.err))]
        for reader in self.readers:
            reader.start()

    def _read(self, stream, chunks):
        for line in iter(stream.readline, b""):
            chunks.append(line)

    @property
    def stdout(self):
        return b"".join(self.out).decode(errors="replace")

    @property
    def stderr(self):
        return b"".join(self.err).decode(errors="replace")

    def link(self):
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            found = LINK.search(self.stderr)
            if found:
                return found.group(1)
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.process.kill()
        pytest.fail(f"no authorization link on stderr; stderr:\n{self.stderr}")

    def type(self, text):
        os.write(self.master, text.encode())

    def finish(self):
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            pytest.fail(f"device-login still running after {TIMEOUT} s; stderr:\n{self.stderr}")
        for reader in self.readers:
            reader.join(timeout=5)
        os.close(self.master)
        return self.process.returncode


def token_of(run):
    token = json.loads(run.stdout)
    assert token["token_type"].lower() == "bearer"
    assert token["access_token"] and token["id_token"]
    return token


def test_browser_flow_signs_in_through_a_scripted_browser(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True)
    run = Run(server, tmp_path, "--flow", "browser", environment={"BROWSER": BROWSER})
    assert run.finish() == 0, run.stderr
    token_of(run)
    assert "signing in with the browser on this device, as asked" in run.stderr
    assert run.link().startswith(server.base_url + "/oauth/authorize?response_type=code&client_id=device-login-e2e")
    assert "code_challenge_method=S256" in run.link()
    assert "code_verifier" not in run.stderr


def test_auto_in_a_graphical_session_opens_the_browser(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True)
    run = Run(server, tmp_path, environment={"BROWSER": BROWSER, "DISPLAY": ":0"})
    assert run.finish() == 0, run.stderr
    token_of(run)
    assert "signing in with the browser on this device: a graphical session, not over SSH" in run.stderr


def test_paste_flow_reads_the_redirect_address_typed_into_the_terminal(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True)
    run = Run(server, tmp_path, "--flow", "paste")
    location = authorize(run.link(), follow=False)
    assert location.startswith("http://127.0.0.1:") and "code=" in location
    run.type(location + "\n")
    assert run.finish() == 0, run.stderr
    token_of(run)
    assert "paste it here" in run.stderr


def test_auto_over_ssh_falls_back_from_a_blocked_device_flow_to_paste(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True, block_device=True)
    run = Run(server, tmp_path, environment={"SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22", "DISPLAY": ":0"})
    location = authorize(run.link(), follow=False)
    run.type(location + "\n")
    assert run.finish() == 0, run.stderr
    token_of(run)
    assert "signing in with the device flow: over SSH, and the server offers it" in run.stderr
    assert "signing in with a pasted code: the server refused the device flow as blocked" in run.stderr
    # An explicit device flow still fails, with the advice.
    explicit = Run(server, tmp_path, "--flow", "device")
    assert explicit.finish() != 0
    assert "AADSTS53003" in explicit.stderr and "signing in with" not in explicit.stderr


def test_a_server_without_a_device_endpoint_gets_a_pasted_code_over_ssh(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True, no_device=True)
    run = Run(server, tmp_path, environment={"SSH_CONNECTION": "10.0.0.1 50000 10.0.0.2 22"})
    run.type(authorize(run.link(), follow=False) + "\n")
    assert run.finish() == 0, run.stderr
    token_of(run)
    assert "signing in with a pasted code: over SSH, and the server has no device flow" in run.stderr
    explicit = Run(server, tmp_path, "--flow", "device")
    assert explicit.finish() == 78
    assert "the device flow needs the server's device authorization endpoint" in explicit.stderr


def test_without_discovery_the_authorization_endpoint_given_by_hand_signs_in(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True, no_device=True)
    where = ["--authorization-endpoint", server.base_url + "/oauth/authorize",
             "--token-endpoint", server.base_url + "/oauth/token"]
    run = Run(server, tmp_path, "--flow", "browser", environment={"BROWSER": BROWSER}, where=where)
    assert run.finish() == 0, run.stderr
    assert json.loads(run.stdout)["access_token"]
    profile = json.loads((tmp_path / "default.json").read_text())["profile"]
    assert profile["endpoints"]["authorization_endpoint"] == server.base_url + "/oauth/authorize"
    assert "device_authorization_endpoint" not in profile["endpoints"]


def test_ctrl_c_while_waiting_for_the_redirect_frees_the_port(server_factory, tmp_path):
    server = server_factory(interval=1, code_grant=True)
    run = Run(server, tmp_path, "--flow", "browser", environment={"BROWSER": "true"})
    link = run.link()
    port = int(re.search(r"redirect_uri=http%3A%2F%2F127\.0\.0\.1%3A(\d+)", link).group(1))
    run.process.send_signal(signal.SIGINT)
    assert run.finish() == 130, run.stderr
    assert run.stdout.strip() == ""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", port))  # free again: the listener was closed


def test_events_of_a_browser_sign_in_follow_the_v1_schema(server_factory, tmp_path):
    import jsonschema

    schema = json.loads((Path(__file__).resolve().parent.parent.parent / "docs" / "events.schema.json").read_text())
    server = server_factory(interval=1, code_grant=True)
    env = {k: v for k, v in os.environ.items() if k not in PROXY_VARIABLES}
    env.update(DEVICE_LOGIN_HOME=str(tmp_path), NO_PROXY="127.0.0.1,localhost", BROWSER=BROWSER)
    result = subprocess.run(
        [str(binary_path()), "login", "--issuer", server.base_url, "--client-id", PUBLIC, "--events", "--flow",
         "browser"], capture_output=True, text=True, env=env, stdin=subprocess.DEVNULL, timeout=TIMEOUT)
    assert result.returncode == 0, result.stderr
    lines = [json.loads(line) for line in result.stdout.splitlines()]
    for line in lines:
        jsonschema.validate(line, schema)
    assert [line["event"] for line in lines] == ["flow", "link", "redirected", "succeeded"]
    assert "access_token" not in result.stdout and "code_verifier" not in result.stdout
