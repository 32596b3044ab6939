"""`login --events` against the Authlib server: the Python example of docs/events.md, run as written (so the docs
cannot rot), and every line of a real sign-in checked against docs/events.schema.json, with no secret in any.
"""

import json
import os
import re
import subprocess
import threading

import jsonschema
import pytest

from approve import approve, deny
from integration_support import cli_environment, make_home
from test_device_login_e2e import PROXY_VARIABLES, PUBLIC, REPO_ROOT, binary_path

DOCS = REPO_ROOT / "docs" / "events.md"
SCHEMA = json.loads((REPO_ROOT / "docs" / "events.schema.json").read_text())
TIMEOUT = 60  # seconds for a whole sign-in


def docs_example():
    """The Python block of docs/events.md that follows the marker saying the e2e suite runs it."""
    text = DOCS.read_text()
    marker = text.index("<!-- The e2e suite runs this block")
    match = re.compile(r"```python\n(.*?)```", re.S).search(text, marker)
    assert match, "docs/events.md has no python block after the e2e marker"
    return match.group(1)


def test_docs_example_draws_the_code_and_signs_in(server, tmp_path, monkeypatch, capsys):
    home = make_home(tmp_path / "home")
    for name in PROXY_VARIABLES:
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("DEVICE_LOGIN_BIN", str(binary_path()))
    monkeypatch.setenv("DEVICE_LOGIN_HOME", str(home))
    monkeypatch.setenv("NO_PROXY", "127.0.0.1,localhost")
    namespace = {"__name__": "events_example"}
    exec(compile(docs_example(), str(DOCS), "exec"), namespace)

    shown = []

    def show_code(event):
        namespace["draw"](event)  # the example's own drawing
        shown.append(event)
        approve(server.base_url, event["user_code"])  # the person, on their phone

    result = namespace["sign_in"](server.base_url, PUBLIC, show_code, "--scope", "openid offline_access")
    assert len(shown) == 1
    assert result["event"] == "succeeded", result
    assert result["profile"] == "default"
    assert "openid" in result["scopes"]
    drawn = capsys.readouterr().out
    assert shown[0]["user_code"] in drawn and shown[0]["verification_uri"] in drawn
    assert (home / "default.json").is_file()


def run_events(server, home, decide, *extra):
    """Runs `login --events --quiet`; calls decide(user_code) on the authorization line; returns (status, lines,
    stderr)."""
    command = [str(binary_path()), "login", "--events", "--quiet", "--issuer", server.base_url, "--client-id",
               PUBLIC, "--scope", "openid offline_access", *extra]
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                               env=cli_environment(home))
    errors = []
    reader = threading.Thread(target=lambda: errors.append(process.stderr.read()), daemon=True)
    reader.start()
    lines = []
    for raw in process.stdout:
        lines.append(raw.decode())
        event = json.loads(raw)
        if event["event"] == "authorization":
            decide(event["user_code"])
    status = process.wait(timeout=TIMEOUT)
    reader.join(timeout=TIMEOUT)
    return status, lines, b"".join(errors).decode(errors="replace")


def test_every_line_fits_the_schema_and_holds_no_secret(server, tmp_path):
    home = make_home(tmp_path / "home")
    status, lines, stderr = run_events(server, home, lambda code: approve(server.base_url, code))
    assert status == 0, stderr
    events = [json.loads(line) for line in lines]
    for line, event in zip(lines, events):
        jsonschema.validate(event, SCHEMA)
        assert not re.search(r"[\x00-\x09\x0b-\x1f\x7f-\x9f]", line), line
    names = [event["event"] for event in events]
    assert names[0] == "authorization" and names[-1] == "succeeded", names
    assert set(names) <= {"authorization", "polling", "pending", "slow_down", "retrying", "succeeded"}
    record = json.loads((home / "default.json").read_text())
    secrets = [value for key, value in record["tokens"].items()
               if key in ("access_token", "refresh_token", "id_token") and isinstance(value, str)]
    assert secrets
    for secret in secrets:
        assert all(secret not in line for line in lines)


def test_denied_ends_with_failed_and_the_exit_code(server, tmp_path):
    home = make_home(tmp_path / "home")
    status, lines, stderr = run_events(server, home, lambda code: deny(server.base_url, code), "--no-store")
    assert status == 65, stderr
    last = json.loads(lines[-1])
    jsonschema.validate(last, SCHEMA)
    assert last["event"] == "failed" and last["code"] == "access_denied" and last["exit_code"] == 65
    assert "device-login:" in stderr  # the error still reaches stderr


@pytest.mark.parametrize("hook_exit", [0, 3])
def test_notify_hook_gets_the_authorization_line(server, tmp_path, hook_exit):
    home = make_home(tmp_path / "home")
    received = tmp_path / "hook.json"
    hook = f"cat > '{received}'; exit {hook_exit}"
    status, lines, stderr = run_events(server, home, lambda code: approve(server.base_url, code),
                                       "--no-store", "--notify-command", hook)
    assert status == 0, stderr
    sent = received.read_text()
    assert sent.count("\n") == 1
    event = json.loads(sent)
    jsonschema.validate(event, SCHEMA)
    assert event["event"] == "authorization"
    assert event["user_code"] == json.loads(lines[0])["user_code"]
    assert ("failed with exit status 3" in stderr) == (hook_exit == 3), stderr
