"""Detached sign-ins against the Authlib server: `login --detach` exits at once, `login --resume` in later processes
polls with the interval, slow_down and the last poll's time carried across them, and finishes as `login` does."""

import json
import re

from approve import approve
from integration_support import make_home, run_cli
from test_device_login_e2e import PUBLIC, assert_polls_kept_the_interval, single_json_object

CODE_LINE = re.compile(r"Code: (\S+)")


def detach(server, home, *extra):
    make_home(home)
    result = run_cli(home, "login", "--detach", "--issuer", server.base_url, "--client-id", PUBLIC, "--qr", "never",
                     *extra)
    assert result.returncode == 0, result.stderr.decode()
    assert result.stdout == b""
    return CODE_LINE.search(result.stderr.decode()).group(1)


def test_detach_then_resume_ends_in_the_same_saved_profile_as_login(server, tmp_path):
    home = tmp_path / "home"
    code = detach(server, home)
    pending = json.loads((home / "default.pending").read_text())
    assert (home / "default.pending").stat().st_mode & 0o777 == 0o600
    assert pending["response"]["user_code"] == code
    approve(server.base_url, code)
    result = run_cli(home, "login", "--resume", "--json")
    assert result.returncode == 0, result.stderr.decode()
    assert single_json_object(result.stdout.decode())["token_type"].lower() == "bearer"
    assert pending["response"]["device_code"] not in result.stderr.decode()
    assert not (home / "default.pending").exists()
    saved = json.loads((home / "default.json").read_text())
    assert saved["profile"]["client_id"] == PUBLIC
    assert saved["tokens"]["access_token"]
    status = run_cli(home, "status", "--json")
    assert status.returncode == 0
    document = json.loads(status.stdout)
    assert document["v"] == 1 and document["profile"] == "default"
    [entry] = [entry for entry in document["profiles"] if entry["name"] == "default"]
    assert entry["pending_sign_in"] is None
    assert_polls_kept_the_interval(server.polls(code))


def test_slow_down_seen_by_one_resume_is_kept_by_the_next(server, tmp_path):
    home = tmp_path / "home"
    code = detach(server, home)
    server.force_slow_down(code)
    # The first resume polls, is told to slow down (interval 1 + 5 s), and gives up after 3 s.
    first = run_cli(home, "login", "--resume", "--timeout", "3s")
    assert first.returncode == 66, first.stderr.decode()
    assert b"still pending" in first.stderr
    assert json.loads((home / "default.pending").read_text())["interval"] == 6
    approve(server.base_url, code)
    second = run_cli(home, "login", "--resume")
    assert second.returncode == 0, second.stderr.decode()
    record = server.polls(code)
    answers = [poll["answer"] for poll in record["polls"]]
    assert answers.count("slow_down") == 1, record
    assert answers[-1] == "token"
    assert_polls_kept_the_interval(record)
