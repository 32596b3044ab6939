"""The Secret Service store (issue 21) with the built binary against Authlib: gnome-keyring for real.

Each test session of the service is a private D-Bus session bus (`dbus-run-session`) with `gnome-keyring-daemon --unlock --components=secrets` on it, fed its password on stdin: the
user's keyring is never touched. The session lives behind a shell that waits on a pipe the test holds; closing the
pipe ends the shell, the bus and the daemon. The kernel keyring copy of the access token goes to this module's own
session keyring (`DEVICE_LOGIN_KEYRING=session`), as in test_stores_e2e.py.
"""

import contextlib
import ctypes
import json
import os
import pty
import re
import select
import shutil
import subprocess
import time

import pytest

from approve import approve
from integration_support import binary_path, cli_environment, make_home, run_cli, token_is_accepted
from test_device_login_e2e import PUBLIC
from test_stores_e2e import key_of, key_serial, keyctl, login, read_key, tokens_of_processes, write_key
from test_stores_e2e import own_session_keyring  # noqa: F401 (autouse: this module's own session keyring)

PASSWORD = "device-login-e2e"
TOOLS = ("dbus-run-session", "dbus-send", "gnome-keyring-daemon", "secret-tool")


class SecretService:
    """One private bus with gnome-keyring's secrets on it."""

    def __init__(self, root, display=None):
        missing = [tool for tool in TOOLS if shutil.which(tool) is None]
        if missing:
            if os.environ.get("CI"):
                pytest.fail(f"CI must install {', '.join(missing)} (.ci/run)")
            pytest.skip(f"no {', '.join(missing)} here")
        root.mkdir(parents=True, exist_ok=True)
        (root / "run").mkdir(exist_ok=True)
        environment = dict(os.environ, HOME=str(root), XDG_DATA_HOME=str(root / "data"),
                           XDG_RUNTIME_DIR=str(root / "run"))
        # The bus starts gcr-prompter, the service's own unlock prompt, on this display; no display, no prompter.
        environment.pop("DISPLAY", None)
        if display:
            environment["DISPLAY"] = display
        script = ('echo "$DBUS_SESSION_BUS_ADDRESS"; '
                  f"printf %s '{PASSWORD}' | gnome-keyring-daemon --foreground --unlock --components=secrets "
                  ">/dev/null 2>&1 & cat >/dev/null")
        self.process = subprocess.Popen(
            ["dbus-run-session", "--", "sh", "-c", script],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, env=environment)
        self.address = self.process.stdout.readline().decode().strip()
        assert self.address.startswith("unix:"), self.address
        deadline = time.monotonic() + 10
        while not self.answers():
            assert time.monotonic() < deadline, "gnome-keyring did not come up on the test bus"
            time.sleep(0.05)

    def dbus(self, *arguments):
        return subprocess.run(["dbus-send", f"--bus={self.address}", "--print-reply", *arguments],
                              capture_output=True, timeout=10)

    def answers(self):
        reply = self.dbus("--dest=org.freedesktop.DBus", "/", "org.freedesktop.DBus.NameHasOwner",
                          "string:org.freedesktop.secrets")
        return b"boolean true" in reply.stdout

    def lock(self):
        reply = self.dbus("--dest=org.freedesktop.secrets", "/org/freedesktop/secrets",
                          "org.freedesktop.Secret.Service.Lock",
                          "array:objpath:/org/freedesktop/secrets/collection/login")
        assert reply.returncode == 0, reply.stderr

    def search(self, *attributes):
        """`secret-tool search --all application device-login ...`: the items' lines."""
        found = subprocess.run(["secret-tool", "search", "--all", "application", "device-login", *attributes],
                               capture_output=True, timeout=10, env=dict(os.environ,
                                                                         DBUS_SESSION_BUS_ADDRESS=self.address))
        return found.stdout.decode() + found.stderr.decode()

    def tool(self, *arguments, input=None):
        return subprocess.run(["secret-tool", *arguments], input=input, capture_output=True, timeout=10,
                              env=dict(os.environ, DBUS_SESSION_BUS_ADDRESS=self.address))

    def record(self, home, profile="default"):
        """The record in the profile's item, as `secret-tool lookup` reads it."""
        found = self.tool("lookup", "application", "device-login", "profile", profile, "home", str(home), "kind",
                          "record")
        assert found.returncode == 0, found.stderr
        return json.loads(found.stdout)

    def replace_record(self, home, record, profile="default"):
        """Replaces the item's secret with `record`, as another program of the user could."""
        stored = self.tool("store", "--label", f"DeviceLogin tokens for profile {profile}", "xdg:schema",
                           "io.github.device-login.Tokens", "application", "device-login", "profile", profile,
                           "home", str(home), "kind", "record", input=json.dumps(record).encode())
        assert stored.returncode == 0, stored.stderr

    def stop(self):
        self.process.stdin.close()
        self.process.wait(timeout=10)


@contextlib.contextmanager
def secret_service_session(root, display=None):
    service = SecretService(root, display)
    previous = os.environ.get("DBUS_SESSION_BUS_ADDRESS")
    os.environ["DBUS_SESSION_BUS_ADDRESS"] = service.address
    try:
        yield service
    finally:
        if previous is None:
            del os.environ["DBUS_SESSION_BUS_ADDRESS"]
        else:
            os.environ["DBUS_SESSION_BUS_ADDRESS"] = previous
        service.stop()


@pytest.fixture()
def service(tmp_path):
    with secret_service_session(tmp_path / "secret-service") as running:
        yield running


KEYCTL_INVALIDATE = 21


def invalidate_key(description):
    """Deletes the kernel keyring key, as a reboot or another session would leave it: gone."""
    keyctl(ctypes.c_long(KEYCTL_INVALIDATE), ctypes.c_long(key_serial(description)))


def cli(home, *arguments, **environment):
    return run_cli(home, *arguments, DEVICE_LOGIN_KEYRING="session", **environment)


def test_sign_in_token_status_and_logout(server, service, tmp_path):
    home = tmp_path / "home"
    run = login(server, home, "--store", "secret-service")
    assert "Secret Service" in run.stderr

    # The file keeps the settings; the item the tokens; the kernel keyring the access token alone.
    record = json.loads((home / "default.json").read_text())
    assert record["profile"]["store"] == "secret-service" and record.get("tokens") is None
    found = service.search("profile", "default")
    assert "label = DeviceLogin tokens for profile default" in found
    assert f"attribute.home = {home}" in found and "attribute.kind = record" in found
    copy = json.loads(read_key(key_of(home)))
    assert copy["tokens"]["access_token"] and "refresh_token" not in copy["tokens"]

    token = cli(home, "token")
    assert token.returncode == 0, token.stderr
    assert token.stdout.decode().strip() == copy["tokens"]["access_token"]
    assert token_is_accepted(server, copy["tokens"]["access_token"])

    status = cli(home, "status")
    assert status.returncode == 0, status.stderr
    assert b"Secret Service" in status.stdout
    assert json.loads(cli(home, "status", "--json").stdout)["profiles"][0]["token_store"] == "secret-service"

    logout = cli(home, "logout")
    assert logout.returncode == 0, logout.stderr
    assert "attribute.profile" not in service.search("home", str(home))
    assert read_key(key_of(home)) is None


def test_auto_takes_an_unlocked_secret_service(server, service, tmp_path):
    home = tmp_path / "home"
    run = login(server, home)
    assert "rest in that file" not in run.stderr
    assert json.loads(cli(home, "status", "--json").stdout)["profiles"][0]["token_store"] == "secret-service"


def test_full_path_reads_the_item_without_the_copy(server, service, tmp_path):
    """With no kernel keyring copy (another session, a reboot of the keyring), `token` asks the Secret Service."""
    home = tmp_path / "home"
    login(server, home, "--store", "secret-service")
    copy = json.loads(read_key(key_of(home)))
    invalidate_key(key_of(home))
    token = cli(home, "token")
    assert token.returncode == 0, token.stderr
    assert token.stdout.decode().strip() == copy["tokens"]["access_token"]


def test_locked_collection_is_not_signed_in(server, service, tmp_path):
    home = tmp_path / "home"
    login(server, home, "--store", "secret-service")
    # The fast path's copy is what a locked collection would still serve: without it, the item must be read.
    invalidate_key(key_of(home))
    service.lock()
    token = cli(home, "token", CI="true")
    assert token.returncode == 77, token.stderr
    assert b"locked" in token.stderr and b"device-login login --profile default" in token.stderr
    assert b"Fatal error" not in token.stderr
    # Status still shows the profile and where its tokens rest, and says why it cannot read them.
    status = cli(home, "status", CI="true")
    assert status.returncode == 77, status.stderr
    shown = status.stdout.decode()
    assert "Not signed in: profile 'default' keeps its tokens in the Secret Service" in shown
    assert "locked" in shown and "tokens rest in: Secret Service" in shown
    entry = json.loads(cli(home, "status", "--json", CI="true").stdout)["profiles"][0]
    assert entry["signed_in"] is False and entry["token_store"] == "secret-service"
    assert "locked" in entry["problem"]
    # Nobody at the terminal: login refuses the locked collection before asking anyone to approve anything.
    again = cli(home, "login", "--issuer", server.base_url, "--client-id", PUBLIC, "--store", "secret-service",
                CI="true")
    assert again.returncode != 0
    assert b"locked" in again.stderr


def test_locked_collection_with_a_valid_copy_is_signed_in(server, service, tmp_path):
    # The kernel keyring's copy of the access token still answers token and the helpers; status says so, as they do.
    home = tmp_path / "home"
    login(server, home, "--store", "secret-service")
    service.lock()
    token = cli(home, "token", CI="true")
    assert token.returncode == 0, token.stderr
    status = cli(home, "status", CI="true")
    assert status.returncode == 0, status.stderr
    shown = status.stdout.decode()
    assert "Signed in, but the Secret Service collection is locked" in shown, shown
    assert "access token:   valid until" in shown and "refresh:        not possible" in shown, shown
    assert token.stdout.decode().strip() not in shown
    entry = json.loads(cli(home, "status", "--json", CI="true").stdout)["profiles"][0]
    assert entry["signed_in"] is True and entry["token_store"] == "secret-service", entry
    assert "locked" in entry["problem"] and entry["expires_at"], entry
    assert "has_refresh_token" not in entry, entry


def test_no_bus_at_all(server, tmp_path):
    home = tmp_path / "home"
    no_bus = dict(DBUS_SESSION_BUS_ADDRESS="", XDG_RUNTIME_DIR=str(tmp_path))
    make_home(home)
    explicit = cli(home, "login", "--issuer", server.base_url, "--client-id", PUBLIC, "--store", "secret-service",
                   **no_bus)
    assert explicit.returncode != 0
    assert b"Secret Service" in explicit.stderr and b"no D-Bus session bus" in explicit.stderr
    previous = {name: os.environ.get(name) for name in no_bus}
    os.environ.update(no_bus)
    try:
        run = login(server, home)
    finally:
        for name, value in previous.items():
            if value is None:
                os.environ.pop(name, None)
            else:
                os.environ[name] = value
    assert "rest in that file, readable by this user" in run.stderr
    assert "no D-Bus session bus" in run.stderr
    assert json.loads((home / "default.json").read_text())["tokens"]["refresh_token"]


def test_sixteen_processes_on_an_expired_token_refresh_once(server, service, tmp_path):
    home = tmp_path / "home"
    login(server, home, "--store", "secret-service")
    # The access token expired, in the item and in the fast path's copy: every process takes the full path, and the
    # lock lets one of them refresh.
    stored = service.record(home)
    stored["tokens"]["expires_at"] = time.time() - 60
    service.replace_record(home, stored)
    copy = json.loads(read_key(key_of(home)))
    copy["tokens"]["expires_at"] = time.time() - 60
    write_key(key_of(home), json.dumps(copy).encode())
    before = server.log().count("refresh -> 200")
    tokens = tokens_of_processes(home, 16)
    assert len(tokens) == 1
    assert stored["tokens"]["access_token"] not in tokens
    assert server.log().count("refresh -> 200") - before == 1
    assert service.record(home)["tokens"]["access_token"] in tokens
    assert json.loads(read_key(key_of(home)))["tokens"]["access_token"] in tokens


def test_store_moves_leave_one_copy(server, service, tmp_path):
    home = tmp_path / "home"
    login(server, home, "--store", "file")
    assert "attribute.profile" not in service.search("home", str(home))

    to_service = cli(home, "store", "--to", "secret-service")
    assert to_service.returncode == 0, to_service.stderr
    assert json.loads((home / "default.json").read_text()).get("tokens") is None
    assert "attribute.kind = record" in service.search("home", str(home))
    assert "refresh_token" not in json.loads(read_key(key_of(home)))["tokens"]

    to_keyring = cli(home, "store", "--to", "keyring")
    assert to_keyring.returncode == 0, to_keyring.stderr
    assert "attribute.profile" not in service.search("home", str(home))
    assert json.loads(read_key(key_of(home)))["tokens"]["refresh_token"]

    back = cli(home, "store", "--to", "secret-service")
    assert back.returncode == 0, back.stderr
    assert "refresh_token" not in json.loads(read_key(key_of(home)))["tokens"]

    to_file = cli(home, "store", "--to", "file")
    assert to_file.returncode == 0, to_file.stderr
    assert "attribute.profile" not in service.search("home", str(home))
    assert read_key(key_of(home)) is None
    assert json.loads((home / "default.json").read_text())["tokens"]["refresh_token"]
    assert cli(home, "token").returncode == 0


def test_detach_carries_secret_service_to_resume(server, service, tmp_path):
    from approve import approve
    from test_detach_e2e import detach

    home = tmp_path / "home"
    code = detach(server, home, "--store", "secret-service", "--scope", "openid offline_access")
    approve(server.base_url, code)
    resumed = cli(home, "login", "--resume")
    assert resumed.returncode == 0, resumed.stderr
    assert json.loads((home / "default.json").read_text())["profile"]["store"] == "secret-service"
    assert service.record(home)["tokens"]["refresh_token"]


@pytest.fixture()
def dpop_demo(tmp_path):
    """The binary's own demo server speaking DPoP (Authlib has no DPoP): its issuer."""
    from test_device_login_e2e import binary_path

    demo = subprocess.Popen([str(binary_path()), "demo", "--serve", "--dpop", "--approve-after", "0", "--interval",
                             "1"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL)
    try:
        issuer = demo.stdout.readline().decode().strip()
        assert issuer.startswith("http://127.0.0.1:"), issuer
        yield issuer
    finally:
        demo.terminate()
        demo.wait(timeout=10)


def test_dpop_key_rests_with_the_tokens_and_moves_with_them(dpop_demo, service, tmp_path):
    home = make_home(tmp_path / "home")
    login = cli(home, "login", "--dpop", "--issuer", dpop_demo, "--client-id", "test-client", "--qr", "never",
                "--store", "secret-service")
    assert login.returncode == 0, login.stderr
    assert not (home / "default.dpop.jwk").exists()
    assert "attribute.kind = dpop-key" in service.search("home", str(home))
    status = cli(home, "status")
    assert b"bound to the key in the Secret Service item" in status.stdout

    def proof_accepted():
        config = cli(home, "curl-config", "--url", dpop_demo + "/resource")
        assert config.returncode == 0, config.stderr
        fetched = subprocess.run(["curl", "-sS", "-K", "-", dpop_demo + "/resource"], input=config.stdout,
                                 capture_output=True, timeout=10)
        return b'"jkt"' in fetched.stdout

    assert proof_accepted()
    moved = cli(home, "store", "--to", "keyring")
    assert moved.returncode == 0, moved.stderr
    assert "attribute.profile" not in service.search("home", str(home))
    assert read_key(key_of(home) + ":dpop-key") is not None and not (home / "default.dpop.jwk").exists()
    assert proof_accepted()
    to_file = cli(home, "store", "--to", "file")
    assert to_file.returncode == 0, to_file.stderr
    assert (home / "default.dpop.jwk").exists() and read_key(key_of(home) + ":dpop-key") is None
    back = cli(home, "store", "--to", "secret-service")
    assert back.returncode == 0, back.stderr
    assert not (home / "default.dpop.jwk").exists()
    assert proof_accepted()

    logout = cli(home, "logout")
    assert logout.returncode == 0, logout.stderr
    assert "attribute.profile" not in service.search("home", str(home))
    assert read_key(key_of(home)) is None and read_key(key_of(home) + ":dpop-key") is None
    assert list(home.iterdir()) == []


@contextlib.contextmanager
def virtual_display():
    """An Xvfb display of its own (its number chosen by the server), for the service's unlock prompt."""
    missing = [tool for tool in ("Xvfb", "xdotool") if shutil.which(tool) is None]
    if missing:
        if os.environ.get("CI"):
            pytest.fail(f"CI must install {', '.join(missing)} (.ci/run)")
        pytest.skip(f"no {', '.join(missing)} here")
    read, write = os.pipe()
    server = subprocess.Popen(["Xvfb", "-displayfd", str(write), "-nolisten", "tcp", "-screen", "0", "800x600x24"],
                              pass_fds=(write,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    os.close(write)
    try:
        with os.fdopen(read) as numbers:
            number = numbers.readline().strip()
        assert number.isdigit(), "Xvfb gave no display number"
        yield f":{number}"
    finally:
        server.terminate()
        server.wait(timeout=10)


class TerminalLogin:
    """`device-login login --store secret-service` with stdin and stderr on a pseudo-terminal: a person is there, so
    the CLI may let the service prompt for the collection's password."""

    def __init__(self, server, home):
        make_home(home)
        environment = cli_environment(home, DEVICE_LOGIN_KEYRING="session")
        for name in ("CI", "DISPLAY", "WAYLAND_DISPLAY"):
            environment.pop(name, None)
        self.master, slave = pty.openpty()
        self.process = subprocess.Popen(
            [str(binary_path()), "login", "--issuer", server.base_url, "--client-id", PUBLIC, "--qr", "never",
             "--scope", "openid offline_access", "--store", "secret-service"],
            stdin=slave, stdout=subprocess.DEVNULL, stderr=slave, env=environment)
        os.close(slave)
        self.shown = b""

    def read_until(self, pattern, seconds=20):
        deadline = time.monotonic() + seconds
        while time.monotonic() < deadline:
            found = re.search(pattern, self.shown)
            if found:
                return found
            if select.select([self.master], [], [], 0.1)[0]:
                try:
                    self.shown += os.read(self.master, 4096)
                except OSError:  # the terminal's other side closed: the process ended
                    break
        pytest.fail(f"{pattern!r} never shown; the terminal showed:\n{self.shown.decode(errors='replace')}")

    def finish(self):
        try:
            status = self.process.wait(timeout=30)
        finally:
            if self.process.poll() is None:
                self.process.kill()
        while select.select([self.master], [], [], 0)[0]:
            try:
                chunk = os.read(self.master, 4096)
            except OSError:
                break
            if not chunk:
                break
            self.shown += chunk
        os.close(self.master)
        return status


def answer_prompt(display, keys):
    """Waits for the service's prompt window on `display`, then types into it as a person would."""
    environment = dict(os.environ, DISPLAY=display)
    found = subprocess.run(["xdotool", "search", "--sync", "--onlyvisible", "--class", "gcr-prompter"],
                           capture_output=True, timeout=20, env=environment)
    window = found.stdout.split()[-1].decode()
    subprocess.run(["xdotool", "windowfocus", "--sync", window], check=True, timeout=10, env=environment)
    subprocess.run(["xdotool", *keys], check=True, timeout=10, env=environment)


def test_login_at_a_terminal_unlocks_a_locked_collection_through_its_prompt(server, tmp_path):
    """The one prompt the CLI lets the service show: gcr-prompter (on Xvfb) asks for the collection's password before
    the sign-in starts; typed, the sign-in goes on and its tokens land in the unlocked collection."""
    with virtual_display() as display, secret_service_session(tmp_path / "secret-service", display) as service:
        service.lock()
        home = tmp_path / "home"
        run = TerminalLogin(server, home)
        answer_prompt(display, ["type", "--delay", "20", PASSWORD])
        answer_prompt(display, ["key", "Return"])
        code = run.read_until(rb"Code: (\S+)").group(1).decode()
        approve(server.base_url, code)
        status = run.finish()
        assert status == 0, run.shown.decode(errors="replace")
        assert "attribute.kind = record" in service.search("home", str(home))


def test_login_at_a_terminal_stops_when_the_prompt_is_dismissed(server, tmp_path):
    """Dismissed (Escape), the prompt leaves the collection locked: login stops before any sign-in starts, and says
    what to do."""
    with virtual_display() as display, secret_service_session(tmp_path / "secret-service", display) as service:
        service.lock()
        run = TerminalLogin(server, tmp_path / "home")
        answer_prompt(display, ["key", "Escape"])
        status = run.finish()
        shown = run.shown.decode(errors="replace")
        assert status != 0 and "stayed locked (the service's unlock prompt was dismissed" in shown, shown
        assert "Code:" not in shown, "a sign-in started on a store that cannot keep its tokens"
        assert "attribute.profile" not in service.search()
