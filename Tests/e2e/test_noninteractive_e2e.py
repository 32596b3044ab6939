"""The non-interactive contract against the Authlib server: `token` never waits for a person, `login --timeout`
gives up cleanly, and `status` shows the URL bindings `login --for` saved."""

import json
import time

from integration_support import make_home, run_cli, sign_in
from test_device_login_e2e import CLIRun, PUBLIC

# Not a speed goal: a bound on "does not wait for anyone". The contract is an answer within a second; a loaded CI
# machine gets ten.
NO_WAIT = 10


def test_token_without_a_profile_fails_at_once_with_one_line_naming_login(tmp_path):
    started = time.monotonic()
    result = run_cli(tmp_path / "home", "token", "--profile", "work", input=b"")
    assert time.monotonic() - started < NO_WAIT
    assert result.returncode == 77
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert lines == ["device-login: not signed in: there is no profile 'work'; sign in with: "
                     "device-login login --profile work --issuer URL --client-id ID"]


def test_token_after_logout_names_the_profiles_own_server(server, tmp_path):
    home = tmp_path / "home"
    sign_in(server, home, profile="work")
    assert run_cli(home, "logout", "--profile", "work", "--local").returncode == 0
    # `logout --local` deletes the profile; a session the server ended keeps it without tokens. Make that state by
    # hand: sign in again, then remove the tokens from the file, as the store does when the server ends a session.
    sign_in(server, home, profile="work")
    path = home / "work.json"
    record = json.loads(path.read_text())
    del record["tokens"]
    path.write_text(json.dumps(record))
    result = run_cli(home, "token", "--profile", "work")
    assert result.returncode == 77
    assert result.stdout == b""
    assert result.stderr.decode() == (
        "device-login: not signed in (profile work); sign in with: device-login login --profile work "
        f"--issuer {server.base_url} --client-id {PUBLIC} --scope 'openid offline_access'\n")


def test_login_timeout_gives_up_cleanly_and_stops_polling(server, tmp_path):
    home = make_home(tmp_path / "home")
    run = CLIRun(["login", "--issuer", server.base_url, "--client-id", PUBLIC, "--qr", "never", "--profile", "t",
                  "--timeout", "3s"], home)
    code = run.user_code()
    assert run.finish() == 66
    assert "device-login: gave up: the sign-in was not approved within 3 s (--timeout)" in run.stderr
    assert run.stdout == ""
    assert not (home / "t.json").exists()
    polls = len(server.polls(code)["polls"])
    time.sleep(2.5)  # more than two intervals: a poller still running would have polled again
    assert len(server.polls(code)["polls"]) == polls


def test_status_shows_the_bindings(server, tmp_path):
    home = tmp_path / "home"
    sign_in(server, home, profile="work", bindings=["https://Git.Example.com/team/", "registry.example.com:5000"],
            extra=["--username", "x-access-token"])
    text = run_cli(home, "status", "--profile", "work")
    assert text.returncode == 0
    assert "  serves:         https://git.example.com/team\n" in text.stdout.decode()
    assert "  serves:         https://registry.example.com:5000\n" in text.stdout.decode()
    assert "  user name:      x-access-token\n" in text.stdout.decode()
    document = json.loads(run_cli(home, "status", "--profile", "work", "--json").stdout)
    assert document["v"] == 1 and document["profile"] == "work"
    document = next(entry for entry in document["profiles"] if entry["name"] == "work")
    assert document["bindings"] == ["https://git.example.com/team", "https://registry.example.com:5000"]
    assert document["username"] == "x-access-token"
