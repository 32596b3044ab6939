"""`device-login curl-config` with the real curl, and `device-login exec` with real child programs, against a
loopback resource server that accepts exactly the bearer tokens the Authlib server accepts.

- curl: `device-login curl-config | curl -sf -K - URL` gets 200; without a sign-in curl-config fails at once
  (exit 77, one line, nothing on stdout) and curl, given no header, gets 401.
- exec: a Python child reads the token from its environment and calls the resource server; its exit status is
  device-login's; the token is in no process's command line while the child runs; a Ctrl-C typed on the
  terminal reaches the child once, not twice (device-login does not pass on what the terminal sent the whole
  process group). The signal tests and 127 run on both of exec's paths (`exec_path`): the fast lane (a token valid
  for an hour) and the full path (a token inside the refresh margin, refreshed at the Authlib server first), and
  check which one was taken.
"""

import fcntl
import json
import os
import pty
import select
import shutil
import signal
import subprocess
import sys
import termios
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

import pytest

from integration_support import cli_environment, run_cli, sign_in, token_is_accepted
from test_device_login_e2e import binary_path

CURL = shutil.which("curl")
RUN_TIMEOUT = 30  # seconds for one device-login or curl run


class ResourceServer:
    """A loopback HTTP API: GET / answers 200 {"ok": true} to a bearer token the authorization server accepts
    (asked through `token_is_accepted`), 401 otherwise. Records the Authorization header of every request."""

    def __init__(self, authorization_server):
        self.authorizations = []
        records = self.authorizations

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                header = self.headers.get("Authorization")
                records.append(header)
                token = header[len("Bearer "):] if header and header.startswith("Bearer ") else None
                accepted = token is not None and token_is_accepted(authorization_server, token)
                body = json.dumps({"ok": accepted}).encode()
                self.send_response(200 if accepted else 401)
                if not accepted:
                    self.send_header("WWW-Authenticate", 'Bearer error="invalid_token"')
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *arguments):
                pass

        self.httpd = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.httpd.server_address[1]}/"
        self.thread = threading.Thread(target=self.httpd.serve_forever, daemon=True)
        self.thread.start()

    def stop(self):
        self.httpd.shutdown()
        self.httpd.server_close()


@pytest.fixture
def api(server):
    resource = ResourceServer(server)
    yield resource
    resource.stop()


@pytest.fixture
def home(tmp_path):
    binary_path()  # skips (or fails under CI) when the binary is missing
    path = tmp_path / "home"
    path.mkdir(mode=0o700)  # the store refuses a directory other users can read
    return path


def stored_token(home):
    """The access token `device-login token` prints for the default profile."""
    run = run_cli(home, "token")
    assert run.returncode == 0, run.stderr
    return run.stdout.decode().strip()


def curl_through_config(home, url, **environment):
    """`device-login curl-config | curl -sf -K - URL`, as a shell pipeline would run it."""
    env = cli_environment(home, **environment)
    config = subprocess.Popen([str(binary_path()), "curl-config"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                              env=env)
    curl = subprocess.run([CURL, "-sf", "-K", "-", url], stdin=config.stdout, capture_output=True, env=env,
                          timeout=RUN_TIMEOUT)
    config.stdout.close()
    stderr = config.stderr.read().decode()
    config.stderr.close()
    config.wait(timeout=RUN_TIMEOUT)
    return config.returncode, stderr, curl


# curl


@pytest.mark.skipif(CURL is None, reason="needs curl")
def test_curl_config_piped_into_curl_reaches_the_api(server, api, home):
    sign_in(server, home)
    status, stderr, curl = curl_through_config(home, api.url)
    assert status == 0, stderr
    assert stderr == ""
    assert curl.returncode == 0, curl.stderr
    assert json.loads(curl.stdout) == {"ok": True}
    assert api.authorizations == [f"Bearer {stored_token(home)}"]


def test_curl_config_prints_only_the_header_line(server, home):
    sign_in(server, home)
    run = run_cli(home, "curl-config")
    assert run.returncode == 0, run.stderr
    assert run.stderr == b""
    assert run.stdout.decode() == f'header = "Authorization: Bearer {stored_token(home)}"\n'


@pytest.mark.skipif(CURL is None, reason="needs curl")
def test_curl_config_without_sign_in_fails_fast_and_curl_sends_no_header(api, home):
    status, stderr, curl = curl_through_config(home, api.url)
    assert status == 77
    lines = stderr.splitlines()
    assert len(lines) == 1 and "sign in with: device-login login" in lines[0], stderr
    assert curl.returncode == 22  # -f: the API's 401
    assert api.authorizations == [None]


def test_curl_config_run_by_ci_without_sign_in_never_prompts(home):
    run = run_cli(home, "curl-config", CI="true")
    assert run.returncode == 77
    assert run.stdout == b""
    assert len(run.stderr.decode().splitlines()) == 1


# exec

CALL_API = """
import json, os, sys, urllib.request
request = urllib.request.Request(sys.argv[1], headers={
    "Authorization": "Bearer " + os.environ[sys.argv[2]]})
try:
    with urllib.request.urlopen(request, timeout=10) as response:
        ok = json.load(response)["ok"]
except urllib.error.HTTPError as error:
    ok = False
sys.exit(int(sys.argv[3]) if ok else 3)
"""


def test_exec_child_calls_the_api_with_the_token_and_its_status_comes_back(server, api, home):
    sign_in(server, home)
    for status in (0, 7):
        run = run_cli(home, "exec", "--", sys.executable, "-c", CALL_API, api.url, "DEVICE_LOGIN_ACCESS_TOKEN",
                      str(status))
        assert run.returncode == status, run.stderr
        assert run.stdout == b"" and run.stderr == b""
    assert api.authorizations == [f"Bearer {stored_token(home)}"] * 2


def test_exec_env_names_the_variable(server, api, home):
    sign_in(server, home)
    run = run_cli(home, "exec", "--env", "API_TOKEN", "--", sys.executable, "-c", CALL_API, api.url, "API_TOKEN",
                  "0")
    assert run.returncode == 0, run.stderr


def test_exec_without_sign_in_fails_fast_and_runs_nothing(tmp_path, home):
    marker = tmp_path / "ran"
    run = run_cli(home, "exec", "--", sys.executable, "-c", f"open({str(marker)!r}, 'w')")
    assert run.returncode == 77
    assert run.stdout == b""
    assert len(run.stderr.decode().splitlines()) == 1
    assert not marker.exists()


@pytest.fixture(params=["lane", "full"])
def exec_path(request):
    """Which of exec's ways to its token a test takes; both hand the command to the same supervisor."""
    return request.param


def stored_access_token(home):
    return json.loads((home / "default.json").read_text())["tokens"]["access_token"]


def prepare_path(home, path):
    """Sets the default profile's token up for `path` and returns it: "lane" leaves it valid for an hour (the fast
    lane answers, with no request); "full" leaves it valid for 30 s more, inside the 60 s refresh margin, so the
    full path refreshes it at the Authlib server before it starts the command."""
    if path == "full":
        record_path = home / "default.json"
        record = json.loads(record_path.read_text())
        record["tokens"]["expires_at"] = time.time() + 30
        record_path.write_text(json.dumps(record))
    return stored_access_token(home)


def assert_path_taken(home, path, before):
    """The full path stored a refreshed token; the lane left the token as it was."""
    assert (stored_access_token(home) != before) == (path == "full"), f"the {path} path was not taken"


def test_exec_missing_command_is_127(server, home, exec_path):
    sign_in(server, home)
    before = prepare_path(home, exec_path)
    run = run_cli(home, "exec", "--", "device-login-e2e-no-such-command")
    assert run.returncode == 127
    assert run.stderr.decode() == "device-login: exec: device-login-e2e-no-such-command: command not found\n"
    assert_path_taken(home, exec_path, before)


WAIT_FOR_GO = """
import os, sys, time
with open(sys.argv[1], "w") as ready:
    ready.write(str(os.getpid()))
while not os.path.exists(sys.argv[2]):
    time.sleep(0.02)
"""


def command_lines():
    """Every process's command line, as `ps` shows them to every user (from /proc/PID/cmdline)."""
    lines = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as cmdline:
                    lines[int(entry)] = cmdline.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                pass
    return lines


def test_exec_token_is_in_no_command_line_while_the_child_runs(server, tmp_path, home):
    sign_in(server, home)
    token = stored_token(home)
    ready, go = tmp_path / "ready", tmp_path / "go"
    process = subprocess.Popen([str(binary_path()), "exec", "--", sys.executable, "-c", WAIT_FOR_GO, str(ready),
                                str(go)], env=cli_environment(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        deadline = time.monotonic() + RUN_TIMEOUT
        while not (ready.exists() and ready.read_text()):
            assert time.monotonic() < deadline, "the child did not start"
            assert process.poll() is None, process.stderr.read()
            time.sleep(0.02)
        child = int(ready.read_text())
        lines = command_lines()
        assert child in lines and process.pid in lines
        assert "exec --" in lines[process.pid] and WAIT_FOR_GO.strip()[:9] in lines[child]
        assert not [pid for pid, line in lines.items() if token in line]
        with open(f"/proc/{child}/environ", "rb") as environ:
            assert f"DEVICE_LOGIN_ACCESS_TOKEN={token}".encode() in environ.read().split(b"\0")
    finally:
        go.touch()
        process.wait(timeout=RUN_TIMEOUT)
    assert process.returncode == 0, process.stderr.read()


COUNT_INTERRUPTS = """
import os, signal, sys, time
reading, writing = os.pipe()
os.set_blocking(writing, False)
os.set_blocking(reading, False)
signal.set_wakeup_fd(writing)  # one byte for every delivery, however close together
signal.signal(signal.SIGINT, lambda number, frame: None)
print("ready", flush=True)
deadline = time.monotonic() + 20
received = b""
while time.monotonic() < deadline:
    try:
        received += os.read(reading, 64)
    except BlockingIOError:
        pass
    if received:
        time.sleep(1.5)  # long enough for a passed-on copy to arrive too
        try:
            received += os.read(reading, 64)
        except BlockingIOError:
            pass
        break
    time.sleep(0.02)
print("interrupts", received.count(bytes([signal.SIGINT])), flush=True)
sys.exit(10 + received.count(bytes([signal.SIGINT])))
"""


def read_until(descriptor, text, timeout):
    output = b""
    deadline = time.monotonic() + timeout
    while text not in output and time.monotonic() < deadline:
        ready, _, _ = select.select([descriptor], [], [], 0.1)
        if ready:
            try:
                chunk = os.read(descriptor, 4096)
            except OSError:
                break
            if not chunk:
                break
            output += chunk
    return output


def test_exec_ctrl_c_on_the_terminal_reaches_the_child_once(server, home, exec_path):
    sign_in(server, home)
    before = prepare_path(home, exec_path)
    primary, secondary = pty.openpty()

    def controlling_terminal():
        # In a session of its own (start_new_session), the pseudo-terminal on stdin becomes its terminal, and
        # device-login's process group the terminal's foreground group.
        fcntl.ioctl(0, termios.TIOCSCTTY, 0)

    process = subprocess.Popen([str(binary_path()), "exec", "--", sys.executable, "-c", COUNT_INTERRUPTS],
                               stdin=secondary, stdout=secondary, stderr=secondary, env=cli_environment(home),
                               start_new_session=True, preexec_fn=controlling_terminal)
    os.close(secondary)
    try:
        output = read_until(primary, b"ready", RUN_TIMEOUT)
        assert b"ready" in output, output
        os.write(primary, b"\x03")  # Ctrl-C: the terminal sends SIGINT to device-login and its child
        output += read_until(primary, b"interrupts", RUN_TIMEOUT)
        # The count may come in a later read than the word (seen under load): read the line to its end.
        if b"\n" not in output[output.find(b"interrupts"):]:
            output += read_until(primary, b"\n", RUN_TIMEOUT)
        process.wait(timeout=RUN_TIMEOUT)
    finally:
        if process.poll() is None:
            process.kill()
        os.close(primary)
    assert b"interrupts 1" in output, output
    assert process.returncode == 11, output
    assert_path_taken(home, exec_path, before)


def test_exec_sigterm_is_passed_on_and_device_login_waits(server, tmp_path, home, exec_path):
    sign_in(server, home)
    before = prepare_path(home, exec_path)
    ready = tmp_path / "ready"
    script = ("import signal, sys, time, pathlib\n"
              "signal.signal(signal.SIGTERM, lambda n, f: sys.exit(42))\n"
              f"pathlib.Path({str(ready)!r}).touch()\n"
              "time.sleep(20)\n"
              "sys.exit(99)\n")
    process = subprocess.Popen([str(binary_path()), "exec", "--", sys.executable, "-c", script],
                               env=cli_environment(home), stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    deadline = time.monotonic() + RUN_TIMEOUT
    while not ready.exists():
        assert time.monotonic() < deadline and process.poll() is None, process.stderr.read()
        time.sleep(0.02)
    process.send_signal(signal.SIGTERM)
    stdout, stderr = process.communicate(timeout=RUN_TIMEOUT)
    assert process.returncode == 42, stderr
    assert stdout == b"" and stderr == b""
    assert_path_taken(home, exec_path, before)
