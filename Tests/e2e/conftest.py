"""Fixtures shared by the e2e suites: the Authlib test server, started on a free loopback port per test."""

import select
import subprocess
import sys
import time
from pathlib import Path

import pytest
import requests

E2E_DIR = Path(__file__).resolve().parent
REPO_ROOT = E2E_DIR.parent.parent
SERVER_SCRIPT = E2E_DIR / "authlib_server.py"
STARTUP_TIMEOUT = 20  # seconds; the server usually listens within one
HTTP_TIMEOUT = 10


class RunningServer:
    """A started authlib_server.py: its base URL, its log file, and its test-only routes."""

    def __init__(self, process, base_url, log_path):
        self.process = process
        self.base_url = base_url
        self.log_path = log_path

    def url(self, path):
        return self.base_url + path

    def polls(self, user_code):
        """The server's record of every token poll for `user_code`: {"interval", "polls": [{"at", "answer", ...}]}."""
        response = requests.get(self.url("/_test/polls"), params={"user_code": user_code}, timeout=HTTP_TIMEOUT)
        response.raise_for_status()
        return response.json()

    def force_slow_down(self, user_code):
        response = requests.post(self.url("/_test/slow_down"), params={"user_code": user_code}, timeout=HTTP_TIMEOUT)
        response.raise_for_status()

    def rotate_key(self):
        """Makes the server sign ID tokens with a new key, dropping the old one from its key set; returns its kid."""
        response = requests.post(self.url("/_test/rotate_key"), timeout=HTTP_TIMEOUT)
        response.raise_for_status()
        return response.json()["kid"]

    def jwks(self):
        response = requests.get(self.url("/jwks.json"), timeout=HTTP_TIMEOUT)
        response.raise_for_status()
        return response.json()

    def wait_for_polls(self, user_code, predicate, timeout):
        """Re-reads the poll record until `predicate(polls)` holds; fails the test after `timeout` seconds."""
        deadline = time.monotonic() + timeout
        while True:
            polls = self.polls(user_code)["polls"]
            if predicate(polls):
                return polls
            if time.monotonic() > deadline:
                pytest.fail(f"the server's poll record never reached the expected state: {polls}")
            time.sleep(0.1)

    def log(self):
        return self.log_path.read_text(errors="replace")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait(timeout=5)
        self.process.stdout.close()


def start_server(log_path, interval=1, expires_in=600, token_expires_in=3600, scopes=None, code_grant=False,
                 block_device=False, no_device=False):
    command = [
        sys.executable, str(SERVER_SCRIPT), "--port", "0", "--interval", str(interval),
        "--expires-in", str(expires_in), "--token-expires-in", str(token_expires_in),
    ]
    if scopes is not None:
        command += ["--scopes", " ".join(scopes)]
    command += ["--code-grant"] if code_grant else []
    command += ["--block-device"] if block_device else []
    command += ["--no-device"] if no_device else []
    with open(log_path, "wb") as log:
        process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=log, stdin=subprocess.DEVNULL, text=True)
    deadline = time.monotonic() + STARTUP_TIMEOUT
    while time.monotonic() < deadline and process.poll() is None:
        ready, _, _ = select.select([process.stdout], [], [], 0.2)
        if ready:
            line = process.stdout.readline()
            if line.startswith("LISTENING "):
                return RunningServer(process, line.split()[1], log_path)
            if not line:
                break
    server = RunningServer(process, None, log_path)
    server.stop()
    pytest.fail(f"authlib_server.py did not start; its log:\n{log_path.read_text(errors='replace')}")


@pytest.fixture
def server_factory(tmp_path):
    """Starts servers with chosen options (interval, expires_in, token_expires_in, scopes, code_grant,
    block_device, no_device); all stopped on teardown."""
    servers = []

    def start(**options):
        server = start_server(tmp_path / f"server-{len(servers)}.log", **options)
        servers.append(server)
        return server

    yield start
    for server in servers:
        server.stop()


@pytest.fixture
def server(server_factory):
    """A server with a 1 s polling interval, so the suites stay fast."""
    return server_factory(interval=1)


@pytest.fixture
def standard_server(server_factory):
    """A server configured as Authlib's documentation shows: its discovery lists openid, profile and email and no
    offline_access, and it refuses a scope it does not list. A new user's first server looks like this."""
    return server_factory(interval=1, scopes=["openid", "profile", "email"])
