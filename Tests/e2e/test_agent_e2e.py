"""`device-login agent` end to end: two hosts simulated by two DEVICE_LOGIN_HOMEs, the "laptop" one signed in at the
Authlib server and served by an agent over its socket, the "remote" one empty.

- The remote's token, git-credential, kubectl-credential, curl-config and exec get tokens the Authlib server
  accepts, through the agent, and its home stays empty.
- An agent that is gone (no socket; killed while a helper waits for its reply) fails the helper at once: exit 77,
  one line, no hang.
- 64 concurrent helper calls on an expired access token cost exactly one refresh at the Authlib server.
- A malformed or oversized request closes that connection only: another open connection is still answered.
- `--lifetime`: after it, the agent has forgotten its tokens and the helpers are told to sign in.
- `--confirm`: a confirm command's exit 0 gives the token, another refuses it (exit 77 at the helper); with no
  terminal the askpass program (SSH_ASKPASS) is asked the same way; with no terminal, no askpass and no command,
  nobody can answer and every request is refused, which a background agent says when it starts.
- Without `--foreground` the agent goes on in the background, as ssh-agent: its two lines printed, the command
  ended, the agent (at the PID it printed) serving, at the address `-a` gave (no variable names it).
- Stdout closed or `--verbose`: the full path asks the agent too, and the local home (another sign-in) is untouched.
- DPoP profiles (the binary's demo server, which checks proofs at its resource): the agent makes each proof, for
  curl-config --url, exec --dpop-url and dpop-proof (with the resource server's nonce); the key never leaves it.
- git's `erase` through the agent marks the refused token expired there: the next `get` refreshes (one refresh).
- Docker's `list` answers from the agent's profiles (as the local answer does); `store`/`erase` do what the local
  path does (accept a served URL and keep nothing, refuse another; sign nothing out).
- `device-login ssh` through a real sshd on loopback (sshd_support.py): the session's helper gets a token from the
  laptop's agent over the forwarded socket (0600), and the remote home stays empty.
"""

import base64
import hashlib
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from sshd_support import SSHServer
from integration_support import cli_environment, make_home, run_cli, sign_in, token_is_accepted
from test_device_login_e2e import binary_path
from test_secret_service_e2e import dpop_demo  # noqa: F401  (a fixture: the demo server speaking DPoP)

GIT_URL = "https://git.example.test/team"
STARTUP_TIMEOUT = 20


class Agent:
    """A started `device-login agent` serving `home`, listening at `socket_path`."""

    def __init__(self, home, socket_path, *options, environment=None):
        self.socket_path = socket_path
        # No askpass program unless the test gives one: nobody to ask is the default.
        env = {k: v for k, v in cli_environment(home).items() if k not in ("SSH_ASKPASS", "DEVICE_LOGIN_ASKPASS")}
        env.update(environment or {})
        self.process = subprocess.Popen(
            [str(binary_path()), "agent", "--foreground", "--socket", str(socket_path), *options],
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, stdin=subprocess.DEVNULL, text=True,
            env=env, start_new_session=True)  # no controlling terminal: nobody at the agent
        line = self.process.stdout.readline()
        assert line == f"DEVICE_LOGIN_AGENT_SOCK={socket_path}; export DEVICE_LOGIN_AGENT_SOCK;\n", (
            line + self.process.stderr.read())
        assert self.process.stdout.readline() == (
            f"DEVICE_LOGIN_AGENT_PID={self.process.pid}; export DEVICE_LOGIN_AGENT_PID;\n")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)


@pytest.fixture
def hosts(tmp_path):
    """The laptop's home (signed in by the test), the remote's (empty), and the agents started, stopped at the end."""
    laptop = make_home(tmp_path / "laptop")
    remote = make_home(tmp_path / "remote")
    agents = []

    def start(*options, environment=None):
        agent = Agent(laptop, tmp_path / "run" / f"agent{len(agents)}.sock", *options, environment=environment)
        agents.append(agent)
        return agent

    yield laptop, remote, start
    for agent in agents:
        agent.stop()


def remote_run(remote, agent_socket, *arguments, input=None, **environment):
    return run_cli(remote, *arguments, input=input, DEVICE_LOGIN_AGENT_SOCK=str(agent_socket), **environment)


def expire_stored_token(home, profile="default"):
    path = home / f"{profile}.json"
    record = json.loads(path.read_text())
    record["tokens"]["expires_at"] = time.time() - 10
    path.write_text(json.dumps(record))


def test_remote_helpers_get_tokens_through_the_agent_and_write_nothing(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop, bindings=[GIT_URL])
    agent = start()
    assert (agent.socket_path.stat().st_mode & 0o777) == 0o600
    assert (agent.socket_path.parent.stat().st_mode & 0o777) == 0o700

    token = remote_run(remote, agent.socket_path, "token")
    assert token.returncode == 0, token.stderr
    access_token = token.stdout.decode().strip()
    assert token_is_accepted(server, access_token)

    git = remote_run(remote, agent.socket_path, "git-credential", "get",
                     input=b"protocol=https\nhost=git.example.test\npath=team/repo.git\n\n")
    assert git.returncode == 0, git.stderr
    answer = dict(line.split("=", 1) for line in git.stdout.decode().splitlines())
    assert answer["username"] == "oauth2" and token_is_accepted(server, answer["password"])
    assert int(answer["password_expiry_utc"]) > time.time() + 60

    elsewhere = remote_run(remote, agent.socket_path, "git-credential", "get",
                           input=b"protocol=https\nhost=other.example.test\n\n")
    assert (elsewhere.returncode, elsewhere.stdout) == (0, b"")

    curl = remote_run(remote, agent.socket_path, "curl-config")
    assert curl.returncode == 0, curl.stderr
    assert curl.stdout.decode().startswith('header = "Authorization: Bearer ')

    kubectl = remote_run(remote, agent.socket_path, "kubectl-credential")
    assert kubectl.returncode == 0, kubectl.stderr
    assert token_is_accepted(server, json.loads(kubectl.stdout)["status"]["token"])

    child = "import os, sys; sys.stdout.write(os.environ['DEVICE_LOGIN_ACCESS_TOKEN'])"
    exec_run = remote_run(remote, agent.socket_path, "exec", "--", sys.executable, "-c", child)
    assert exec_run.returncode == 0, exec_run.stderr
    assert token_is_accepted(server, exec_run.stdout.decode())

    # An option the agent cannot serve is refused, not answered from the remote's own (empty) store.
    refused = remote_run(remote, agent.socket_path, "token", "--json")
    assert refused.returncode == 64
    assert b"not served through the agent" in refused.stderr

    assert list(remote.iterdir()) == [], "the remote host's home must stay empty"
    assert b"refresh_token" not in token.stdout + git.stdout + curl.stdout + kubectl.stdout

    agent.stop()  # SIGTERM: the socket goes with it
    assert not agent.socket_path.exists()


def home_contents(home):
    return {path.name: path.read_bytes() for path in sorted(home.iterdir())}


def test_the_full_path_answers_through_the_agent_too(server, hosts, tmp_path):
    """Stdout closed (the fast lane is skipped) or --verbose: the agent's token, never the local home's, which
    holds another sign-in whose expired token the local path would refresh (and write)."""
    laptop, remote, start = hosts
    sign_in(server, laptop)
    sign_in(server, remote)
    expire_stored_token(remote)
    before = home_contents(remote)
    agent = start()
    agent_token = json.loads((laptop / "default.json").read_text())["tokens"]["access_token"]
    local_token = json.loads(before["default.json"])["tokens"]["access_token"]
    assert agent_token != local_token

    out = tmp_path / "child-token"
    child = f"import os; open({str(out)!r}, 'w').write(os.environ['DEVICE_LOGIN_ACCESS_TOKEN'])"
    closed = subprocess.run(
        ["/bin/sh", "-c", 'exec "$0" "$@" >&-', str(binary_path()), "exec", "--", sys.executable, "-c", child],
        capture_output=True, timeout=30,
        env=cli_environment(remote, DEVICE_LOGIN_AGENT_SOCK=str(agent.socket_path)))
    assert closed.returncode == 0, closed.stderr
    assert out.read_text() == agent_token

    unwritten = subprocess.run(["/bin/sh", "-c", 'exec "$0" "$@" >&-', str(binary_path()), "token"],
                               capture_output=True, timeout=30,
                               env=cli_environment(remote, DEVICE_LOGIN_AGENT_SOCK=str(agent.socket_path)))
    assert unwritten.returncode == 74, unwritten.stderr

    verbose = remote_run(remote, agent.socket_path, "token", "--verbose")
    assert verbose.returncode == 0, verbose.stderr
    assert verbose.stdout.decode() == agent_token + "\n"
    assert b"device-login: agent: asking " in verbose.stderr and agent_token.encode() not in verbose.stderr

    assert home_contents(remote) == before, "the local home must not be read for a token, nor written"
    assert "refresh -> 200" not in server.log()


def test_a_missing_profile_at_the_agent_names_the_login_command(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    agent = start()
    run = remote_run(remote, agent.socket_path, "token", "--profile", "work")
    assert run.returncode == 77
    assert run.stderr.decode() == (
        "device-login: the agent: the agent holds no profile 'work'; sign in on the agent's host with: "
        "device-login login --profile work --issuer URL --client-id ID\n")
    assert list(remote.iterdir()) == []


def test_status_shows_what_the_agent_holds(server, hosts, tmp_path):
    """In a session whose home is empty, token answers through the agent: status says so, and what the agent holds
    (names, user names and bindings, never a token); with the agent gone, status says it cannot reach it."""
    laptop, remote, start = hosts
    sign_in(server, laptop, bindings=["https://git.example.test/team"])
    agent = start()
    shown = remote_run(remote, agent.socket_path, "status")
    assert shown.returncode == 0, shown.stderr
    text = shown.stdout.decode()
    assert "Signed in through the agent: no profile 'default' in this home; the agent holds it." in text, text
    assert f"Through the agent at {agent.socket_path} (token and the helpers ask it, not this home): it holds" in text
    assert "  default, for https://git.example.test/team" in text, text
    token = json.loads((laptop / "default.json").read_text())["tokens"]["access_token"]
    assert token not in text
    document = json.loads(remote_run(remote, agent.socket_path, "status", "--json").stdout)
    assert document["signed_in"] is True
    assert document["agent"] == {"socket": str(agent.socket_path), "profiles": [
        {"name": "default", "bindings": ["https://git.example.test/team"]}]}, document
    other = remote_run(remote, agent.socket_path, "status", "--profile", "work")
    assert other.returncode == 77 and "Not signed in: no profile 'work'." in other.stdout.decode()
    assert list(remote.iterdir()) == []

    gone = remote_run(remote, tmp_path / "no-agent.sock", "status", "--json")
    assert gone.returncode == 77, gone.stderr
    assert json.loads(gone.stdout)["agent"]["problem"].startswith("cannot reach the agent: ")


def context_switches(pid):
    """Every context switch of every thread of process `pid` so far: a thread that wakes, for anything, adds one."""
    total = 0
    for task in Path(f"/proc/{pid}/task").iterdir():
        for line in (task / "status").read_text().splitlines():
            if line.startswith(("voluntary_ctxt_switches:", "nonvoluntary_ctxt_switches:")):
                total += int(line.split()[1])
    return total


def test_an_idle_agent_makes_no_wake_ups(server, hosts):
    """After it has served a token (a refresh, the store read and written), an agent with nothing to do sleeps: no
    thread of it wakes in 3 seconds, as ssh-agent's does not. It woke twice a second: its socket loop's 1-second poll,
    and libdispatch's worker-pool monitor, which the first blocking file call on a Dispatch queue started."""
    laptop, remote, start = hosts
    sign_in(server, laptop)
    expire_stored_token(laptop)
    agent = start()
    answer = remote_run(remote, agent.socket_path, "token")
    assert answer.returncode == 0, answer.stderr
    time.sleep(1.5)  # the connection closed, the reply sent
    before = context_switches(agent.process.pid)
    time.sleep(3)
    after = context_switches(agent.process.pid)
    assert after == before, f"the idle agent woke {after - before} times in 3 s"
    # Still serving: the sleep is not a hang.
    again = remote_run(remote, agent.socket_path, "token")
    assert again.returncode == 0 and again.stdout == answer.stdout, again.stderr


def test_no_agent_at_the_socket_fails_at_once_with_exit_77(tmp_path):
    remote = make_home(tmp_path / "remote")
    started = time.monotonic()
    run = remote_run(remote, tmp_path / "nothing.sock", "token")
    assert time.monotonic() - started < 5
    assert run.returncode == 77
    lines = run.stderr.decode().splitlines()
    assert len(lines) == 1 and "cannot reach the agent" in lines[0] and "start one with: device-login agent" in lines[0], lines
    assert run.stdout == b"" and list(remote.iterdir()) == []


def test_an_agent_killed_mid_request_fails_the_helper_cleanly(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    agent = start()
    os.kill(agent.process.pid, signal.SIGSTOP)  # it accepts nothing more and answers nothing
    try:
        helper = subprocess.Popen([str(binary_path()), "token"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                  env=cli_environment(remote, DEVICE_LOGIN_AGENT_SOCK=str(agent.socket_path)))
        time.sleep(0.5)
        assert helper.poll() is None, "the helper should be waiting for the agent's reply"
    finally:
        os.kill(agent.process.pid, signal.SIGKILL)
    started = time.monotonic()
    stdout, stderr = helper.communicate(timeout=10)
    assert time.monotonic() - started < 5
    assert helper.returncode == 77 and stdout == b""
    assert "the agent closed the connection without answering" in stderr.decode()


def test_64_concurrent_helpers_on_an_expired_token_make_one_refresh(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    expire_stored_token(laptop)
    agent = start()
    results = [None] * 64

    def call(index):
        results[index] = remote_run(remote, agent.socket_path, "token")

    threads = [threading.Thread(target=call, args=(index,)) for index in range(64)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=60)
    assert all(result is not None and result.returncode == 0 for result in results), [
        result and result.stderr for result in results]
    tokens = {result.stdout for result in results}
    assert len(tokens) == 1
    assert token_is_accepted(server, tokens.pop().decode().strip())
    assert server.log().count("refresh -> 200") == 1
    assert list(remote.iterdir()) == []


def test_a_malformed_or_oversized_request_closes_only_its_connection(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    agent = start()
    waiting = socket.socket(socket.AF_UNIX)
    waiting.connect(str(agent.socket_path))
    waiting.settimeout(10)
    for bad in (b"not json\n", b'{"v":2,"op":"token"}\n', b"x" * 9000):
        connection = socket.socket(socket.AF_UNIX)
        connection.settimeout(10)
        connection.connect(str(agent.socket_path))
        try:
            connection.sendall(bad)
        except BrokenPipeError:
            pass
        try:
            assert connection.recv(100) == b"", bad[:20]
        except ConnectionResetError:
            pass  # closed with the oversized request unread
        connection.close()
    waiting.sendall(b'{"v":1,"op":"token","min_ttl":60}\n')
    reply = json.loads(waiting.makefile("rb").readline())
    assert reply["ok"] is True and reply["profile"] == "default" and "refresh_token" not in reply
    assert token_is_accepted(server, reply["access_token"])
    assert agent.process.poll() is None


def test_lifetime_over_the_agent_forgets_its_tokens(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    agent = start("--lifetime", "2s")
    assert remote_run(remote, agent.socket_path, "token").returncode == 0
    time.sleep(2.5)
    run = remote_run(remote, agent.socket_path, "token")
    assert run.returncode == 77
    assert "the agent's lifetime ended: it forgot its tokens" in run.stderr.decode()


def test_device_login_ssh_forwards_the_agent_into_the_session(server, hosts, tmp_path):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    agent = start()
    key = tmp_path / "client_key"
    subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(key)], check=True)
    sshd = SSHServer(tmp_path / "sshd", f"""\
        UsePAM no
        PubkeyAuthentication yes
        PasswordAuthentication no
        KbdInteractiveAuthentication no
        AuthenticationMethods publickey
        PermitRootLogin prohibit-password
        AuthorizedKeysFile {key}.pub
        AllowStreamLocalForwarding yes
        """)
    remote_socket = None
    try:
        script = (f'stat -c "%a %n" "$DEVICE_LOGIN_AGENT_SOCK"; '
                  f"DEVICE_LOGIN_HOME={remote} {binary_path()} token")
        run = subprocess.run(
            [str(binary_path()), "ssh", *sshd.client_options(), "-i", str(key), "-o", "BatchMode=yes",
             "root@127.0.0.1", script],
            capture_output=True, timeout=60, stdin=subprocess.DEVNULL,
            env=cli_environment(laptop, DEVICE_LOGIN_AGENT_SOCK=str(agent.socket_path)))
        assert run.returncode == 0, run.stderr.decode() + sshd.log_path.read_text(errors="replace")
        mode, remote_socket, token = run.stdout.decode().split()
        assert mode == "600" and remote_socket.startswith("/tmp/device-login-agent-")
        assert token_is_accepted(server, token)
        assert list(remote.iterdir()) == []
    finally:
        sshd.stop()
        if remote_socket:  # sshd leaves it (StreamLocalBindUnlink is for the next bind, not the end)
            Path(remote_socket).unlink(missing_ok=True)


def test_device_login_ssh_without_an_agent_fails_at_once(tmp_path):
    run = subprocess.run([str(binary_path()), "ssh", "host.example.test"], capture_output=True, timeout=10,
                         env=cli_environment(make_home(tmp_path / "home")))
    assert run.returncode == 77
    assert b"DEVICE_LOGIN_AGENT_SOCK is not set" in run.stderr


def test_confirm_command_approves_or_refuses_each_use(server, hosts, tmp_path):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    asked = tmp_path / "asked.jsonl"
    verdict = tmp_path / "verdict"
    verdict.write_text("0")
    agent = start("--confirm-command", f'cat >> {asked}; exit "$(cat {verdict})"')
    given = remote_run(remote, agent.socket_path, "token")
    assert given.returncode == 0 and token_is_accepted(server, given.stdout.decode().strip())
    verdict.write_text("1")
    refused = remote_run(remote, agent.socket_path, "token")
    assert refused.returncode == 77 and refused.stdout == b""
    assert "did not approve" in refused.stderr.decode()
    questions = [json.loads(line) for line in asked.read_text().splitlines()]
    assert [(q["v"], q["event"], q["profile"]) for q in questions] == [(1, "agent_request", "default")] * 2
    assert all(isinstance(q["pid"], int) and q["pid"] > 0 for q in questions)


def test_confirm_without_a_terminal_asks_the_askpass_program(server, hosts, tmp_path):
    """As ssh-agent confirms a key added with `ssh-add -c`: SSH_ASKPASS with the question as its argument and
    SSH_ASKPASS_PROMPT=confirm; exit 0 gives the token, another refuses it."""
    laptop, remote, start = hosts
    sign_in(server, laptop)
    asked = tmp_path / "asked.txt"
    verdict = tmp_path / "verdict"
    verdict.write_text("0")
    askpass = tmp_path / "askpass"
    askpass.write_text(f'#!/bin/sh\nprintf "%s|%s\\n" "$SSH_ASKPASS_PROMPT" "$1" >> {asked}\nexit "$(cat {verdict})"\n')
    askpass.chmod(0o755)
    agent = start("--confirm", environment={"SSH_ASKPASS": str(askpass)})
    given = remote_run(remote, agent.socket_path, "token")
    assert given.returncode == 0 and token_is_accepted(server, given.stdout.decode().strip())
    verdict.write_text("1")
    refused = remote_run(remote, agent.socket_path, "token")
    assert refused.returncode == 77 and refused.stdout == b""
    questions = asked.read_text().splitlines()
    assert len(questions) == 2
    for question in questions:
        prompt, text = question.split("|", 1)
        assert prompt == "confirm"
        assert text.startswith("device-login agent: give an access token of profile 'default' to process ")


def test_confirm_with_nobody_to_ask_refuses(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop)
    agent = start("--confirm")
    started = time.monotonic()
    run = remote_run(remote, agent.socket_path, "token")
    assert time.monotonic() - started < 5
    assert run.returncode == 77 and "did not approve" in run.stderr.decode()


def test_without_foreground_the_agent_goes_on_in_the_background(server, tmp_path):
    laptop = make_home(tmp_path / "laptop")
    remote = make_home(tmp_path / "remote")
    sign_in(server, laptop)
    socket_path = tmp_path / "run" / "agent.sock"
    # -a, as ssh-agent's: the bind address comes from the command line only, never from the helpers' variable
    # (set here as in a session that already uses an agent) nor from an automatic DEVICE_LOGIN_SOCKET.
    started = subprocess.run([str(binary_path()), "agent", "-a", str(socket_path)], capture_output=True,
                             timeout=30, text=True,
                             env=cli_environment(laptop, DEVICE_LOGIN_AGENT_SOCK=str(tmp_path / "other.sock"),
                                                 DEVICE_LOGIN_SOCKET=str(tmp_path / "another.sock")))
    assert started.returncode == 0, started.stderr
    lines = started.stdout.splitlines()
    assert lines[0] == f"DEVICE_LOGIN_AGENT_SOCK={socket_path}; export DEVICE_LOGIN_AGENT_SOCK;"
    pid = int(lines[1].split(";")[0].split("=")[1])
    try:
        run = remote_run(remote, socket_path, "token")
        assert run.returncode == 0 and token_is_accepted(server, run.stdout.decode().strip())
    finally:
        os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 10
    while socket_path.exists() and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not socket_path.exists()


def test_confirm_in_the_background_without_askpass_warns_at_start(tmp_path):
    """A background agent has no terminal: with --confirm and no askpass program every token would be refused, so
    it says so when it starts, not at the first refusal."""
    home = make_home(tmp_path / "laptop")
    socket_path = tmp_path / "run" / "agent.sock"
    env = {k: v for k, v in cli_environment(home).items() if k not in ("SSH_ASKPASS", "DEVICE_LOGIN_ASKPASS")}
    started = subprocess.run([str(binary_path()), "agent", "--confirm", "-a", str(socket_path)], capture_output=True,
                             timeout=30, text=True, env=env)
    assert started.returncode == 0, started.stderr
    pid = int(started.stdout.splitlines()[1].split(";")[0].split("=")[1])
    os.kill(pid, signal.SIGTERM)
    assert "--confirm in the background has no terminal to ask on and no askpass program" in started.stderr


def claims(jwt):
    payload = jwt.split(".")[1]
    return json.loads(base64.urlsafe_b64decode(payload + "=" * (-len(payload) % 4)))


def test_dpop_profiles_get_proofs_the_agent_makes(dpop_demo, hosts):
    laptop, remote, start = hosts
    login = run_cli(laptop, "login", "--dpop", "--issuer", dpop_demo, "--client-id", "test-client", "--qr",
                    "never")
    assert login.returncode == 0, login.stderr
    agent = start()
    resource = dpop_demo + "/resource"

    config = remote_run(remote, agent.socket_path, "curl-config", "--url", resource)
    assert config.returncode == 0, config.stderr
    assert config.stdout.startswith(b'header = "Authorization: DPoP ')
    fetched = subprocess.run(["curl", "-sS", "-K", "-", resource], input=config.stdout, capture_output=True,
                             timeout=10)
    assert b'"jkt"' in fetched.stdout, fetched.stdout + fetched.stderr

    script = 'exec curl -sS -H "Authorization: DPoP $DEVICE_LOGIN_ACCESS_TOKEN" -H "DPoP: $DEVICE_LOGIN_DPOP_PROOF" "$0"'
    exec_run = remote_run(remote, agent.socket_path, "exec", "--dpop-url", resource, "--", "sh", "-c", script,
                          resource)
    assert exec_run.returncode == 0 and b'"jkt"' in exec_run.stdout, exec_run.stdout + exec_run.stderr

    proof = remote_run(remote, agent.socket_path, "dpop-proof", "--method", "post", "--url", resource + "?q=1",
                       "--nonce", "n-123")
    assert proof.returncode == 0, proof.stderr
    token = remote_run(remote, agent.socket_path, "token").stdout.decode().strip()
    made = claims(proof.stdout.decode().strip())
    assert (made["htm"], made["htu"], made["nonce"]) == ("POST", resource, "n-123")
    ath = base64.urlsafe_b64encode(hashlib.sha256(token.encode()).digest()).rstrip(b"=").decode()
    assert made["ath"] == ath and abs(made["iat"] - time.time()) < 60 and len(made["jti"]) >= 16

    # Without --url, curl-config cannot prove a DPoP token (usage, as without an agent); nothing of the key left.
    assert remote_run(remote, agent.socket_path, "curl-config").returncode == 64
    private = json.loads((laptop / "default.dpop.jwk").read_text())["d"].encode()
    assert all(private not in out for out in (config.stdout, exec_run.stdout, proof.stdout))
    assert list(remote.iterdir()) == []


def git_answer(run):
    return dict(line.split("=", 1) for line in run.stdout.decode().splitlines())


def test_git_erase_through_the_agent_makes_the_next_get_refresh(server, hosts):
    laptop, remote, start = hosts
    sign_in(server, laptop, bindings=[GIT_URL])
    agent = start()
    request = b"protocol=https\nhost=git.example.test\npath=team/repo.git\n"
    first = git_answer(remote_run(remote, agent.socket_path, "git-credential", "get", input=request + b"\n"))
    other = remote_run(remote, agent.socket_path, "git-credential", "erase",
                       input=request + b"username=oauth2\npassword=not-the-token\n\n")
    assert (other.returncode, other.stdout) == (0, b"")
    assert git_answer(remote_run(remote, agent.socket_path, "git-credential", "get",
                                 input=request + b"\n"))["password"] == first["password"]
    assert "refresh -> 200" not in server.log()

    erase = remote_run(remote, agent.socket_path, "git-credential", "erase",
                       input=request + b"username=oauth2\npassword=" + first["password"].encode() + b"\n\n")
    assert (erase.returncode, erase.stdout) == (0, b""), erase.stderr
    second = git_answer(remote_run(remote, agent.socket_path, "git-credential", "get", input=request + b"\n"))
    assert second["password"] != first["password"] and token_is_accepted(server, second["password"])
    assert server.log().count("refresh -> 200") == 1
    assert list(remote.iterdir()) == []


def test_docker_list_store_and_erase_through_the_agent(server, hosts):
    laptop, remote, start = hosts
    registry = "https://registry.example.test"
    sign_in(server, laptop, bindings=[registry, GIT_URL])
    agent = start()

    listed = remote_run(remote, agent.socket_path, "docker-credential", "list", input=b"unused")
    assert listed.returncode == 0, listed.stderr
    local = run_cli(laptop, "docker-credential", "list", input=b"unused")
    assert json.loads(listed.stdout) == json.loads(local.stdout) and registry in json.loads(listed.stdout)

    served = json.dumps({"ServerURL": registry, "Username": "u", "Secret": "typed"}).encode()
    store = remote_run(remote, agent.socket_path, "docker-credential", "store", input=served)
    assert (store.returncode, store.stdout) == (0, b""), store.stderr
    elsewhere = json.dumps({"ServerURL": "https://other.example.test", "Username": "u", "Secret": "s"}).encode()
    refused = remote_run(remote, agent.socket_path, "docker-credential", "store", input=elsewhere)
    assert refused.returncode == 78 and b"no profile serves that ServerURL" in refused.stderr

    erase = remote_run(remote, agent.socket_path, "docker-credential", "erase", input=registry.encode())
    assert erase.returncode == 0 and b"docker logout does not sign out of profile 'default'" in erase.stderr
    assert b"typed" not in store.stderr + erase.stderr
    assert list(remote.iterdir()) == []
