"""`device-login git-credential` driven by the real git: clone and push over smart HTTP (`git http-backend` behind
git_http_server.py, which accepts only tokens the Authlib server accepts), with the helper configured as a user
would, in an isolated git configuration (HOME, no system config, no terminal prompts).
"""

import json
import os
import shlex
import subprocess
import time

import pytest

from git_http_server import GitHTTPServer
from integration_support import cli_environment, run_cli, sign_in, token_is_accepted
from test_device_login_e2e import binary_path

GIT_TIMEOUT = 60  # seconds for one git command: a helper or git waiting for a person fails the test


@pytest.fixture(autouse=True)
def require_binary():
    binary_path()


class Git:
    """git in an isolated configuration: its own HOME and global config, no system config, no prompts, and
    `device-login` on PATH as a user installs it."""

    def __init__(self, tmp_path, device_login_home):
        self.home = tmp_path / "git-home"
        self.home.mkdir()
        bin_dir = tmp_path / "bin"
        bin_dir.mkdir()
        (bin_dir / "device-login").symlink_to(binary_path())
        environment = {k: v for k, v in cli_environment(device_login_home).items() if not k.startswith("GIT_")}
        environment.update(
            HOME=str(self.home), XDG_CONFIG_HOME=str(self.home / ".config"), GIT_CONFIG_NOSYSTEM="1",
            GIT_TERMINAL_PROMPT="0", PATH=f"{bin_dir}{os.pathsep}{os.environ['PATH']}",
            GIT_AUTHOR_NAME="Ada", GIT_AUTHOR_EMAIL="ada@example.test", GIT_COMMITTER_NAME="Ada",
            GIT_COMMITTER_EMAIL="ada@example.test",
        )
        environment.pop("SSH_ASKPASS", None)
        self.environment = environment

    def __call__(self, *arguments, cwd=None, check=True, **extra):
        environment = dict(self.environment, **extra)
        result = subprocess.run(["git", *arguments], cwd=cwd, env=environment, capture_output=True, text=True,
                                timeout=GIT_TIMEOUT, stdin=subprocess.DEVNULL)
        if check:
            assert result.returncode == 0, f"git {' '.join(arguments)} failed:\n{result.stderr}"
        return result

    def use_helper(self, url=None, options=""):
        """The documented set-up: `git config --global credential.<url>.helper '!device-login git-credential'`."""
        key = f"credential.{url}.helper" if url else "credential.helper"
        self("config", "--global", key, f"!device-login git-credential{options}")


@pytest.fixture
def home(tmp_path):
    return tmp_path / "device-login"


@pytest.fixture
def git(tmp_path, home):
    return Git(tmp_path, home)


@pytest.fixture
def repositories(tmp_path, git):
    """A root of bare repositories: repo.git and team/app.git, each with one commit on main."""
    root = tmp_path / "repositories"
    source = tmp_path / "source"
    git("init", "-q", "-b", "main", str(source))
    (source / "README").write_text("hello\n")
    git("add", "README", cwd=source)
    git("commit", "-q", "-m", "first", cwd=source)
    for name in ("repo.git", "team/app.git"):
        git("clone", "-q", "--bare", str(source), str(root / name))
    return root


@pytest.fixture
def git_server(server, repositories):
    """The smart-HTTP server over `repositories`, accepting the tokens the Authlib server accepts."""
    git_server = GitHTTPServer(repositories, accepts=lambda _user, token: token_is_accepted(server, token)).start()
    yield git_server
    git_server.stop()


def stored_tokens(home, profile="default"):
    """The tokens in the profile file (what `device-login token` would print), read without the CLI."""
    return json.loads((home / f"{profile}.json").read_text())["tokens"]


def test_clone_and_push_with_the_helper(server, home, git, git_server, tmp_path):
    sign_in(server, home, bindings=[git_server.url])
    git.use_helper(git_server.url)
    work = tmp_path / "work"

    clone = git("clone", "-q", f"{git_server.url}/repo.git", str(work))
    assert (work / "README").read_text() == "hello\n"
    assert "device-login" not in clone.stderr

    token = run_cli(home, "token").stdout.decode().strip()
    assert token_is_accepted(server, token)
    first, *served = git_server.requests
    assert first.status == 401 and first.password is None  # git asks its helper only after a 401
    assert served and all(r.status == 200 and r.username == "oauth2" and r.password == token for r in served)

    (work / "CHANGES").write_text("pushed through device-login\n")
    git("add", "CHANGES", cwd=work)
    git("commit", "-q", "-m", "second", cwd=work)
    git("push", "-q", "origin", "main", cwd=work)
    pushed = git("--git-dir", str(git_server.root / "repo.git"), "log", "-1", "--format=%s", "main")
    assert pushed.stdout.strip() == "second"
    assert any(r.path.endswith("/git-receive-pack") and r.status == 200 for r in git_server.requests)
    assert set(git_server.passwords()) == {token}


def test_a_host_no_profile_serves_falls_through(server, home, git, git_server, tmp_path):
    # Configured for every host; the only profile serves another one: the helper answers nothing, and git, with
    # no other helper and no terminal prompt, fails at once.
    sign_in(server, home, bindings=["https://git.example.test"])
    git.use_helper()
    clone = git("clone", "-q", f"{git_server.url}/repo.git", str(tmp_path / "work"), check=False, GIT_TRACE="1")
    assert clone.returncode != 0
    assert "device-login git-credential get" in clone.stderr  # git asked the helper
    assert "terminal prompts disabled" in clone.stderr
    assert "device-login:" not in clone.stderr
    assert all(r.password is None for r in git_server.requests)


def test_the_documented_reset_keeps_another_helper_out(server, home, git, git_server, tmp_path):
    # A user with `credential.helper store` holding an old password for the host: the empty helper line of
    # docs/integrations.md resets the list for that host, so git neither uses the old password nor stores the token.
    sign_in(server, home, bindings=[git_server.url])
    credentials = git.home / ".git-credentials"
    old = git_server.url.replace("http://", "http://oauth2:an-old-password@") + "\n"
    credentials.write_text(old)
    git("config", "--global", "credential.helper", "store")
    git("config", "--global", "--add", f"credential.{git_server.url}.helper", "")
    git("config", "--global", "--add", f"credential.{git_server.url}.helper", "!device-login git-credential")
    git("clone", "-q", f"{git_server.url}/repo.git", str(tmp_path / "work"))
    assert "an-old-password" not in [r.password for r in git_server.requests]
    assert credentials.read_text() == old


def test_erase_marks_the_refused_token_and_the_next_fetch_refreshes(server, home, git, git_server, tmp_path):
    sign_in(server, home, bindings=[git_server.url])
    git.use_helper(git_server.url)
    work = tmp_path / "work"
    git("clone", "-q", f"{git_server.url}/repo.git", str(work))
    first = stored_tokens(home)["access_token"]

    # The git server stops accepting the token: git reports the failure to the helper (erase) ...
    git_server.refuse(first)
    failed = git("fetch", "-q", cwd=work, check=False)
    assert failed.returncode != 0
    assert "Authentication failed" in failed.stderr
    marked = stored_tokens(home)
    assert marked["access_token"] == first
    assert marked["expires_at"] < time.time()
    assert marked.get("refresh_token")

    # ... so the next get refreshes at the Authlib server, and git goes on with the new token.
    git("fetch", "-q", cwd=work)
    second = stored_tokens(home)["access_token"]
    assert second != first
    assert token_is_accepted(server, second)
    assert git_server.passwords()[-1] == second
    assert stored_tokens(home)["expires_at"] > time.time() + 60


def end_session(home, profile):
    """Leaves the profile as a session the server ended: its access token expired and a refresh token the server
    refuses (invalid_grant), as after a revocation."""
    path = home / f"{profile}.json"
    record = json.loads(path.read_text())
    record["tokens"].update(expires_at=0, refresh_token="revoked-refresh-token")
    path.write_text(json.dumps(record))


@pytest.mark.parametrize("options", ["", " --profile missing"])
def test_a_needed_sign_in_fails_at_once_with_the_login_command_and_no_prompt(
        server, home, git, git_server, tmp_path, options):
    sign_in(server, home, profile="work", bindings=[git_server.url])
    end_session(home, "work")
    git.use_helper(git_server.url, options=options)
    clone = git("clone", "-q", f"{git_server.url}/repo.git", str(tmp_path / "work"), check=False)
    assert clone.returncode != 0
    name = "missing" if options else "work"
    lines = [line for line in clone.stderr.splitlines() if line.startswith("device-login:")]
    assert len(lines) == 1, clone.stderr
    assert "not signed in" in lines[0] or "session" in lines[0]
    assert f"sign in with: device-login login --profile {name}" in lines[0]
    assert "told us to quit" in clone.stderr  # quit=1: no other helper, no prompt
    assert "Username for" not in clone.stderr
    assert all(r.password is None for r in git_server.requests)


def test_a_path_binding_needs_use_http_path(server, home, git, git_server, tmp_path):
    sign_in(server, home, profile="team", bindings=[f"{git_server.url}/team"])
    git.use_helper(git_server.url, options=" --verbose")
    without = git("clone", "-q", f"{git_server.url}/team/app.git", str(tmp_path / "without"), check=False)
    assert without.returncode != 0
    assert "no profile serves" in without.stderr  # git sent no path: the host alone is not the team's

    git("config", "--global", f"credential.{git_server.url}.useHttpPath", "true")
    git("clone", "-q", f"{git_server.url}/team/app.git", str(tmp_path / "with"))
    assert (tmp_path / "with" / "README").is_file()
    token = stored_tokens(home, "team")["access_token"]
    assert token not in git("config", "--global", "--list").stdout


def test_the_helper_by_hand(server, home, git_server):
    """What git sees, by hand: `git credential fill` through the helper prints the fresh token."""
    sign_in(server, home, bindings=[git_server.url])
    helper = f"!{shlex.quote(str(binary_path()))} git-credential"
    environment = dict(cli_environment(home), GIT_CONFIG_NOSYSTEM="1", GIT_TERMINAL_PROMPT="0",
                       HOME=str(home))
    fill = subprocess.run(["git", "-c", "credential.helper=", "-c", f"credential.helper={helper}", "credential",
                           "fill"], input=f"url={git_server.url}/repo.git\n\n", capture_output=True, text=True,
                          env=environment, timeout=GIT_TIMEOUT)
    assert fill.returncode == 0, fill.stderr
    answer = dict(line.split("=", 1) for line in fill.stdout.splitlines())
    assert answer["username"] == "oauth2"
    assert token_is_accepted(server, answer["password"])
