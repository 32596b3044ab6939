"""pam_device_login.so against a real Linux-PAM stack: `pamtester` drives the module through pam_wrapper
(PAM_WRAPPER=1 and a service folder of our own, so the system's /etc/pam.d is never touched), the module runs the real
`device-login pam-helper`, and the Authlib server signs the ID tokens; approve.py approves or denies as a person would.

A stand-in helper (a small Python script given as helper=) covers what a real server cannot be made to do: a hostile
prompt, a helper that says "allow" but fails, one that leaves a grandchild behind.
"""

import os
import re
import shutil
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from approve import approve, deny
from conftest import REPO_ROOT
from sshd_support import SSHServer, require
from test_device_login_e2e import PUBLIC, binary_path

CODE_LINE = re.compile(r"Code: (\S+)")
WRAPPER = "libpam_wrapper.so"
TIMEOUT = 30


@pytest.fixture(scope="module")
def module_path(tmp_path_factory):
    """pam_device_login.so, built by Scripts/build-pam.sh with -Wall -Wextra -Werror."""
    require(shutil.which("gcc") and Path("/usr/include/security/pam_modules.h").exists(),
            "gcc or libpam0g-dev is missing")
    out = tmp_path_factory.mktemp("pam")
    built = subprocess.run(["bash", str(REPO_ROOT / "Scripts" / "build-pam.sh"), str(out)], capture_output=True,
                           text=True, timeout=120)
    assert built.returncode == 0, built.stderr
    return out / "pam_device_login.so"


@pytest.fixture(autouse=True)
def require_pam_tools():
    require(shutil.which("pamtester"), "pamtester is missing (Debian: pamtester)")
    require(any(Path(d, WRAPPER).exists() for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                                                    "/usr/lib")), "pam_wrapper is missing (Debian: libpam-wrapper)")
    binary_path()


def write_private(path, text):
    path.write_text(text)
    path.chmod(0o600)
    return path


class PAMRun:
    """One `pamtester SERVICE USER authenticate` through pam_wrapper; its output read on a thread."""

    def __init__(self, tmp_path, module, config, user="alice", helper=None, deadline=None,
                 operations=("authenticate",), items=(), term=None):
        services = tmp_path / "services"
        services.mkdir(exist_ok=True)
        arguments = [str(module), f"config={config}", f"helper={helper or binary_path()}"]
        if deadline:
            arguments.append(f"deadline={deadline}")
        (services / "device-login-test").write_text(f"auth required {' '.join(arguments)}\n"
                                                   f"account required {' '.join(arguments)} debug\n")
        (services / "other").write_text("auth required pam_deny.so\n")
        environment = dict(os.environ, LD_PRELOAD=WRAPPER, PAM_WRAPPER="1", PAM_WRAPPER_SERVICE_DIR=str(services),
                           PAM_WRAPPER_DEBUGLEVEL="2")
        environment.pop("TERM", None)
        environment.update({"TERM": term} if term else {})
        options = [word for item in items for word in ("-I", item)]
        self.process = subprocess.Popen(
            ["pamtester", "-v", *options, "device-login-test", user, *operations], stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=environment)
        self.config = str(config)
        self._output = []
        self._prompted = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self):
        while True:
            chunk = os.read(self.process.stdout.fileno(), 4096)
            if not chunk:
                break
            self._output.append(chunk)
            if b"Press Enter once you have approved" in b"".join(self._output):
                self._prompted.set()

    @property
    def output(self):
        return b"".join(self._output).decode(errors="replace")

    @property
    def raw(self):
        return b"".join(self._output)

    def user_code(self):
        if not self._prompted.wait(TIMEOUT):
            self.process.kill()
            pytest.fail(f"no prompt within {TIMEOUT} s; output:\n{self.output}")
        return CODE_LINE.search(self.output).group(1)

    def press_enter(self):
        self.process.stdin.write(b"\n")
        self.process.stdin.flush()

    def finish(self):
        try:
            self.process.wait(timeout=TIMEOUT)
        except subprocess.TimeoutExpired:
            self.process.kill()
            pytest.fail(f"pamtester still running after {TIMEOUT} s; output:\n{self.output}")
        self._reader.join(timeout=5)
        return self.process.returncode


def helpers_running(marker):
    """The processes whose command line holds `marker` (this test's config path): orphans, if any are left."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            command = (entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
        except OSError:
            continue
        if marker in command and "pamtester" not in command:
            found.append((entry.name, command))
    return found


@pytest.fixture
def config(server, tmp_path):
    def make(**keys):
        lines = {"issuer": server.base_url, "client_id": PUBLIC, "scope": "openid profile", "deadline": "30"}
        lines.update(keys)
        text = "".join(f"{key} = {value}\n" for key, value in lines.items())
        return write_private(tmp_path / "pam.conf", text)

    return make


def test_approved_sign_in_lets_the_user_in(server, config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config())
    code = run.user_code()
    assert f"You will be sent to {server.base_url.split('//')[1]}." in run.output
    assert "Only continue if you started this sign-in on " in run.output
    approve(server.base_url, code)
    run.press_enter()
    assert run.finish() == 0, run.output
    assert "successfully authenticated" in run.output
    assert helpers_running(run.config) == []
    # pam_wrapper shows the module's pam_syslog lines: the decision, never the code.
    logged = [line for line in run.output.splitlines() if "SYSLOG" in line]
    assert any("device sign-in of alice allowed" in line for line in logged), run.output
    assert not any(code in line for line in logged)


def test_qr_auto_draws_a_qr_code_on_a_local_terminal_only(server, config, module_path, tmp_path):
    blocks = ("\u2580", "\u2584", "\u2588")
    for items, term, shown in ((("tty=/dev/tty1",), "xterm-256color", True),
                               (("tty=ssh", "rhost=192.0.2.7"), "xterm-256color", False)):
        run = PAMRun(tmp_path, module_path, config(), items=items, term=term)
        approve(server.base_url, run.user_code())
        run.press_enter()
        assert run.finish() == 0, run.output
        assert any(block in run.output for block in blocks) == shown, run.output


def test_denied_sign_in_is_refused(server, config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config())
    deny(server.base_url, run.user_code())
    run.press_enter()
    assert run.finish() != 0
    assert "The sign-in was refused." in run.output
    assert "Authentication failure" in run.output
    assert helpers_running(run.config) == []


def test_another_users_id_token_is_refused(server, config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config(), user="bob")
    approve(server.base_url, run.user_code())  # alice approves a sign-in for bob
    run.press_enter()
    assert run.finish() != 0
    assert "The sign-in was refused." in run.output
    assert "successfully" not in run.output


def test_a_mapping_file_lets_a_claim_in_as_another_local_user(server, config, module_path, tmp_path):
    users = write_private(tmp_path / "users.map", "# alice's sign-in opens the account bob\nalice = bob\n")
    run = PAMRun(tmp_path, module_path, config(username_map=str(users)), user="bob")
    approve(server.base_url, run.user_code())
    run.press_enter()
    assert run.finish() == 0, run.output
    assert "successfully authenticated" in run.output


def test_a_required_group_the_token_lacks_is_refused(server, config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config(allowed_groups="admins"))
    approve(server.base_url, run.user_code())
    run.press_enter()
    assert run.finish() != 0
    assert "The sign-in was refused." in run.output


def test_the_deadline_refuses_and_kills_the_helper(server, config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config(), deadline=5)
    run.user_code()
    started = time.monotonic()
    run.press_enter()  # without approving: the module waits for the helper until its deadline
    assert run.finish() != 0
    assert time.monotonic() - started < 15
    assert "The sign-in was not approved within 5 seconds." in run.output
    assert helpers_running(run.config) == []


def test_the_configured_deadline_ends_the_helper_with_a_clear_message(server, config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config(deadline="10"))  # the helper's own deadline, before the module's
    run.user_code()
    run.press_enter()
    assert run.finish() != 0
    assert "The sign-in was not approved within 10 seconds." in run.output
    assert helpers_running(run.config) == []


def test_an_unreachable_server_is_authinfo_unavailable(config, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, config(issuer="http://127.0.0.1:9"))
    assert run.finish() != 0
    assert "Authentication service cannot retrieve authentication info" in run.output, run.output
    assert "The sign-in service is unavailable." in run.output


def test_a_loose_config_is_refused_before_any_request(config, module_path, tmp_path):
    path = config()
    path.chmod(0o666)
    run = PAMRun(tmp_path, module_path, path)
    assert run.finish() != 0
    assert "Authentication service cannot retrieve authentication info" in run.output


FAKE_HELPER = """\
#!{python}
import json, os, subprocess, sys, time
mode = open({mode!r}).read().strip()
def line(event, **fields):
    sys.stdout.write(json.dumps(dict(v=1, event=event, **fields), separators=(",", ":")) + "\\n")
    sys.stdout.flush()
if mode == "hostile":
    line("pam_prompt", text="Open \\x1b]0;owned\\x07\\x1b[2Jhttp://evil\\u202e/\\u009b31m\\nCode: AB-CD\\n")
    line("pam_decision", decision="deny", reason="no\\x1b[31m")
elif mode == "allow":
    line("pam_prompt", text="Code: AB-CD\\n")
    line("pam_decision", decision="allow", reason="x")
elif mode == "allow-then-fail":
    line("pam_prompt", text="Code: AB-CD\\n")
    line("pam_decision", decision="allow", reason="x")
    sys.exit(3)
elif mode == "grandchild":
    subprocess.Popen(["sleep", "300", {marker!r}])
    line("pam_prompt", text="Code: AB-CD\\n")
    time.sleep(300)
"""


@pytest.fixture
def fake_helper(tmp_path):
    def make(mode):
        (tmp_path / "mode").write_text(mode)
        path = tmp_path / "fake-helper"
        marker = str(tmp_path / "pam.conf")
        path.write_text(FAKE_HELPER.format(python=sys.executable, mode=str(tmp_path / "mode"), marker=marker))
        path.chmod(0o755)
        write_private(tmp_path / "pam.conf", "issuer = https://unused.example\nclient_id = x\n")
        return path

    return make


def test_hostile_prompt_text_never_reaches_the_client_raw(fake_helper, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, tmp_path / "pam.conf", helper=fake_helper("hostile"))
    run.user_code()
    run.press_enter()
    assert run.finish() != 0
    raw = run.raw
    assert b"\x1b" not in raw and b"\x07" not in raw and b"\xc2\x9b" not in raw
    assert "\u202e".encode() not in raw
    assert "Open ]0;owned[2Jhttp://evil/31m" in run.output


def test_allow_from_a_helper_that_then_fails_is_refused(fake_helper, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, tmp_path / "pam.conf", helper=fake_helper("allow-then-fail"))
    run.user_code()
    run.press_enter()
    assert run.finish() != 0
    assert "successfully" not in run.output


def test_acct_mgmt_vouches_only_for_the_user_it_authenticated(fake_helper, module_path, tmp_path):
    helper = fake_helper("allow")
    run = PAMRun(tmp_path, module_path, tmp_path / "pam.conf", helper=helper, operations=("authenticate", "acct_mgmt"))
    run.user_code()
    run.press_enter()
    assert run.finish() == 0, run.output
    assert "account management done" in run.output and "pam_sm_acct_mgmt returns 0" in run.output
    # No sign-in of ours in this handle: PAM_IGNORE (25), so the stack (nothing else in it) refuses.
    alone = PAMRun(tmp_path, module_path, tmp_path / "pam.conf", helper=helper, operations=("acct_mgmt",))
    assert alone.finish() != 0
    assert "pam_sm_acct_mgmt returns 25" in alone.output and "account management done" not in alone.output


def test_the_helpers_whole_process_group_is_killed(fake_helper, module_path, tmp_path):
    run = PAMRun(tmp_path, module_path, tmp_path / "pam.conf", helper=fake_helper("grandchild"), deadline=5)
    run.user_code()
    run.press_enter()
    assert run.finish() != 0
    deadline = time.monotonic() + 5
    while helpers_running(str(tmp_path / "pam.conf")) and time.monotonic() < deadline:
        time.sleep(0.1)
    assert helpers_running(str(tmp_path / "pam.conf")) == []


def test_install_pam_puts_the_module_beside_its_helper(config, tmp_path):
    """Scripts/install.sh --pam: DIR/lib/security/pam_device_login.so, which finds DIR/bin/device-login by itself
    (no helper=): the helper runs, and says the server is down."""
    prefix = tmp_path / "prefix"
    installed = subprocess.run(["bash", str(REPO_ROOT / "Scripts" / "install.sh"), "--prefix", str(prefix), "--bin",
                                str(binary_path()), "--pam"], capture_output=True, text=True, timeout=120)
    assert installed.returncode == 0, installed.stderr
    module = prefix / "lib" / "security" / "pam_device_login.so"
    assert module.is_file()
    services = tmp_path / "services"
    services.mkdir()
    (services / "device-login-test").write_text(f"auth required {module} config={config(issuer='http://127.0.0.1:9')}\n")
    environment = dict(os.environ, LD_PRELOAD=WRAPPER, PAM_WRAPPER="1", PAM_WRAPPER_SERVICE_DIR=str(services),
                       PAM_WRAPPER_DEBUGLEVEL="2", PATH="/usr/bin:/bin")
    run = subprocess.run(["pamtester", "device-login-test", "alice", "authenticate"], capture_output=True, text=True,
                         env=environment, stdin=subprocess.DEVNULL, timeout=TIMEOUT)
    assert run.returncode != 0
    assert "could not fetch the server's metadata" in run.stderr + run.stdout
    removed = subprocess.run(["bash", str(REPO_ROOT / "Scripts" / "install.sh"), "--prefix", str(prefix),
                              "--uninstall"], capture_output=True, text=True, timeout=60)
    assert removed.returncode == 0 and not module.exists()


# --- A real OpenSSH server ---------------------------------------------------------------------------------------
# sshd (sshd_support.py) runs under pam_wrapper (its PAM service `sshd` is our file) and nss_wrapper (the user alice
# exists only in our passwd file). The client is the real ssh, on a pseudo-terminal.

NSS_WRAPPER = "libnss_wrapper.so"


def pam_sshd(tmp_path, module, config, deadline=None, helper=None):
    """sshd whose only way in is keyboard-interactive through our module, for users alice and bob."""
    require(any(Path(d, NSS_WRAPPER).exists() for d in ("/usr/lib/x86_64-linux-gnu", "/usr/lib/aarch64-linux-gnu",
                                                        "/usr/lib")), "nss_wrapper is missing (libnss-wrapper)")
    folder = tmp_path / "sshd"
    folder.mkdir()
    home = "/"  # a folder nobody (alice's uid) may enter
    (folder / "passwd").write_text(Path("/etc/passwd").read_text()
                                   + f"alice:x:65534:65534:Alice:{home}:/bin/sh\n"
                                   + f"bob:x:65534:65534:Bob:{home}:/bin/sh\n")
    (folder / "group").write_text(Path("/etc/group").read_text())
    services = folder / "services"
    services.mkdir()
    arguments = [str(module), f"config={config}", f"helper={helper or binary_path()}"]
    if deadline:
        arguments.append(f"deadline={deadline}")
    (services / "sshd").write_text(f"auth required {' '.join(arguments)}\n"
                                   "account required pam_permit.so\nsession required pam_permit.so\n")
    return SSHServer(folder, """\
        UsePAM yes
        KbdInteractiveAuthentication yes
        PasswordAuthentication no
        PubkeyAuthentication no
        AuthenticationMethods keyboard-interactive
        PermitRootLogin no
        """, environment=dict(LD_PRELOAD=f"{WRAPPER} {NSS_WRAPPER}", PAM_WRAPPER="1",
                              PAM_WRAPPER_SERVICE_DIR=str(services), NSS_WRAPPER_PASSWD=str(folder / "passwd"),
                              NSS_WRAPPER_GROUP=str(folder / "group")))


class SSHClient:
    """The real ssh client on a pseudo-terminal, as a person at a terminal runs it."""

    def __init__(self, server, command="echo signed-in-as-$(id -un)-$((6*7))", user="alice"):
        import pty
        arguments = ["ssh", *server.client_options(), "-o", "PreferredAuthentications=keyboard-interactive",
                     "-o", "NumberOfPasswordPrompts=1", f"{user}@127.0.0.1", command]
        self.pid, self.fd = pty.fork()
        if self.pid == 0:
            os.execvp("ssh", arguments)
        self._output = []
        self._prompted = threading.Event()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    @property
    def raw(self):
        return b"".join(self._output)

    def _read(self):
        while True:
            try:
                chunk = os.read(self.fd, 4096)
            except OSError:
                break
            if not chunk:
                break
            self._output.append(chunk)
            if b"Press Enter once you have approved" in b"".join(self._output):
                self._prompted.set()

    @property
    def output(self):
        return b"".join(self._output).decode(errors="replace")

    def user_code(self):
        if not self._prompted.wait(TIMEOUT):
            pytest.fail(f"no prompt within {TIMEOUT} s; the client shows:\n{self.output}")
        return CODE_LINE.search(self.output).group(1)

    def press_enter(self):
        os.write(self.fd, b"\r")

    def finish(self):
        deadline_at = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline_at:
            done, status = os.waitpid(self.pid, os.WNOHANG)
            if done:
                self._reader.join(timeout=5)
                os.close(self.fd)
                return os.waitstatus_to_exitcode(status)
            time.sleep(0.05)
        self.kill()
        pytest.fail(f"ssh still running after {TIMEOUT} s; it shows:\n{self.output}")

    def kill(self):
        try:
            os.kill(self.pid, 9)
            os.waitpid(self.pid, 0)
        except ProcessLookupError:
            pass


@pytest.fixture
def sshd_factory(tmp_path, module_path):
    servers = []

    def start(config, deadline=None, helper=None):
        servers.append(pam_sshd(tmp_path, module_path, config, deadline, helper))
        return servers[-1]

    yield start
    for server in servers:
        server.stop()


def test_ssh_approved_sign_in_opens_a_shell(server, config, sshd_factory):
    sshd = sshd_factory(config())
    client = SSHClient(sshd)
    code = client.user_code()
    assert "Only continue if you started this sign-in on " in client.output
    approve(server.base_url, code)
    client.press_enter()
    assert client.finish() == 0, client.output + sshd.log_path.read_text(errors="replace")
    assert "signed-in-as-nobody-42" in client.output
    print("--- the SSH session as the client saw it ---\n" + client.output)


def test_ssh_denied_sign_in_is_refused(server, config, sshd_factory):
    sshd = sshd_factory(config())
    client = SSHClient(sshd)
    deny(server.base_url, client.user_code())
    client.press_enter()
    assert client.finish() == 255
    assert "Permission denied" in client.output
    assert "signed-in-as" not in client.output


def test_ssh_deadline_refuses_and_sshd_stays_healthy(config, sshd_factory):
    sshd = sshd_factory(config(), deadline=5)
    client = SSHClient(sshd)
    client.user_code()
    client.press_enter()
    assert client.finish() == 255
    assert "signed-in-as" not in client.output
    assert sshd.healthy()
    assert helpers_running(str(config().parent / "pam.conf")) == []


def test_ssh_disconnect_mid_sign_in_leaves_no_helper(config, sshd_factory):
    path = config()
    sshd = sshd_factory(path)
    client = SSHClient(sshd)
    client.user_code()
    assert helpers_running(str(path)) != []  # the helper is polling
    client.kill()
    deadline_at = time.monotonic() + 10
    while helpers_running(str(path)) and time.monotonic() < deadline_at:
        time.sleep(0.1)
    assert helpers_running(str(path)) == [], sshd.log_path.read_text(errors="replace")
    assert sshd.healthy()


def test_ssh_another_users_id_token_is_refused(server, config, sshd_factory):
    sshd = sshd_factory(config())
    client = SSHClient(sshd, user="bob")
    approve(server.base_url, client.user_code())  # alice approves the sign-in bob's session shows
    client.press_enter()
    assert client.finish() == 255
    assert "Permission denied" in client.output
    assert "signed-in-as" not in client.output


def test_ssh_hostile_prompt_never_reaches_the_clients_terminal_raw(fake_helper, sshd_factory, tmp_path):
    sshd = sshd_factory(tmp_path / "pam.conf", helper=fake_helper("hostile"))
    client = SSHClient(sshd)
    client.user_code()
    client.press_enter()
    assert client.finish() == 255
    shown = client.raw.split(b"Open ", 1)[1].split(b"Press Enter", 1)[0]
    assert b"\x1b" not in shown and b"\x07" not in shown and b"\xc2\x9b" not in shown
    assert "\u202e".encode() not in shown
