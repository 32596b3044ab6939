"""The real kubectl runs `device-login kubectl-credential` as its exec credential plugin, against a stand-in API server
(kube_api_server.py) that accepts only tokens the Authlib server accepts.

kubectl is /usr/bin/kubectl, else the one on PATH (.ci/run installs Debian's kubernetes-client when there is none).
Without kubectl these tests are skipped, unless $CI is set: then they fail. The v1 tests need kubectl 1.22 or later
(client.authentication.k8s.io/v1); an older kubectl runs the v1beta1 ones only.
"""

import json
import os
import pty
import re
import select
import shutil
import subprocess
import time
from pathlib import Path

import pytest

from approve import approve
from integration_support import cli_environment, run_cli, sign_in, token_is_accepted
from kube_api_server import KubeAPIServer
from test_device_login_e2e import binary_path

V1 = "client.authentication.k8s.io/v1"
V1BETA1 = "client.authentication.k8s.io/v1beta1"
PROFILE = "kube"
KUBECTL_TIMEOUT = 60  # seconds for one kubectl command that is expected to succeed
FAIL_FAST = 5  # seconds within which kubectl must give up when nobody is signed in (the plugin takes well under one)
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]|\r")


def kubectl_path():
    path = "/usr/bin/kubectl" if os.access("/usr/bin/kubectl", os.X_OK) else shutil.which("kubectl")
    if path:
        return path
    message = "kubectl not found (.ci/run installs Debian's kubernetes-client)"
    if os.environ.get("CI"):
        pytest.fail(message + "; CI is set, so this is a failure, not a skip")
    pytest.skip(message)


def kubectl_minor(kubectl):
    """The minor version of kubectl's client, e.g. 32 for v1.32.4."""
    output = subprocess.run([kubectl, "version", "--client", "-o", "json"], capture_output=True, timeout=30,
                            env={"PATH": os.environ.get("PATH", ""), "HOME": os.environ.get("HOME", "/tmp")})
    minor = json.loads(output.stdout)["clientVersion"]["minor"]
    return int(re.match(r"\d+", minor).group(0))


@pytest.fixture
def kubectl():
    return kubectl_path()


@pytest.fixture
def needs_v1(kubectl):
    if kubectl_minor(kubectl) < 22:
        pytest.skip("client.authentication.k8s.io/v1 needs kubectl 1.22 or later")


@pytest.fixture
def api(tmp_path, server):
    running = KubeAPIServer(tmp_path, accepts=lambda token: token_is_accepted(server, token)).start()
    yield running
    running.stop()


def write_kubeconfig(path, api, home, api_version=V1, interactive_mode="Never"):
    """A kubeconfig as a user writes it: the cluster with its CA, a user whose exec runs the plugin for PROFILE."""
    plugin = {
        "apiVersion": api_version, "command": str(binary_path()), "args": ["kubectl-credential", "--profile", PROFILE],
        "env": [{"name": "DEVICE_LOGIN_HOME", "value": str(home)}],
    }
    if interactive_mode:
        plugin["interactiveMode"] = interactive_mode
    config = {
        "apiVersion": "v1", "kind": "Config", "current-context": "e2e", "preferences": {},
        "clusters": [{"name": "e2e", "cluster": {"server": api.url, "certificate-authority-data": api.ca_data}}],
        "users": [{"name": "e2e", "user": {"exec": plugin}}],
        "contexts": [{"name": "e2e", "context": {"cluster": "e2e", "user": "e2e"}}],
    }
    path.write_text(json.dumps(config, indent=2))  # JSON is YAML: kubectl reads it as it is
    return path


def kubectl_environment(tmp_path, keep_ci=True):
    """kubectl's environment: its own HOME (its cache stays in the test's folder), no DEVICE_LOGIN_HOME of ours (the
    kubeconfig's env gives it to the plugin), no proxy."""
    environment = cli_environment(tmp_path / "unused-home", keep_ci=keep_ci, HOME=str(tmp_path / "kubectl-home"))
    del environment["DEVICE_LOGIN_HOME"]
    return environment


def run_kubectl(kubectl, kubeconfig, tmp_path, *arguments, timeout=KUBECTL_TIMEOUT):
    return subprocess.run([kubectl, "--kubeconfig", str(kubeconfig), *arguments], capture_output=True, text=True,
                          stdin=subprocess.DEVNULL, timeout=timeout, env=kubectl_environment(tmp_path))


def stored_access_token(home):
    return json.loads((home / f"{PROFILE}.json").read_text())["tokens"]["access_token"]


def assert_version(run):
    assert run.returncode == 0, run.stderr
    assert json.loads(run.stdout)["gitVersion"] == "v1.32.0-device-login-e2e"


@pytest.mark.parametrize("api_version,interactive_mode", [(V1, "Never"), (V1, "IfAvailable"), (V1BETA1, None)])
def test_get_version_after_sign_in(kubectl, server, api, tmp_path, api_version, interactive_mode, request):
    if api_version == V1:
        request.getfixturevalue("needs_v1")
    home = tmp_path / "home"
    sign_in(server, home, profile=PROFILE)
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api, home, api_version, interactive_mode)
    run = run_kubectl(kubectl, kubeconfig, tmp_path, "get", "--raw", "/version")
    assert_version(run)
    # The stored token, as it is (valid for an hour: no refresh), and nothing of device-login's on kubectl's stderr.
    assert api.accepted_tokens() and set(api.accepted_tokens()) == {stored_access_token(home)}
    assert "device-login" not in run.stderr


def test_never_without_sign_in_fails_fast(kubectl, needs_v1, api, tmp_path):
    home = tmp_path / "home"
    home.mkdir(mode=0o700)
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api, home, V1, "Never")
    started = time.monotonic()
    run = run_kubectl(kubectl, kubeconfig, tmp_path, "get", "--raw", "/version", timeout=30)
    elapsed = time.monotonic() - started
    assert run.returncode != 0
    assert elapsed < FAIL_FAST, f"kubectl took {elapsed:.1f} s to give up"
    assert (f"device-login: not signed in: there is no profile '{PROFILE}'; sign in with: device-login login "
            f"--profile {PROFILE} --issuer URL --client-id ID") in run.stderr
    assert run.stdout == ""
    assert not api.accepted_tokens()


def test_never_with_an_ended_session_fails_fast_naming_the_server(kubectl, needs_v1, server, api, tmp_path):
    home = tmp_path / "home"
    sign_in(server, home, profile=PROFILE)
    signed_out(home)
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api, home, V1, "Never")
    started = time.monotonic()
    run = run_kubectl(kubectl, kubeconfig, tmp_path, "get", "--raw", "/version", timeout=30)
    assert run.returncode != 0
    assert time.monotonic() - started < FAIL_FAST
    assert f"sign in with: device-login login --profile {PROFILE} --issuer {server.base_url}" in run.stderr
    assert not api.accepted_tokens()


def signed_out(home):
    """Leaves the profile saved without its tokens, as a session the server ended does."""
    path = home / f"{PROFILE}.json"
    record = json.loads(path.read_text())
    del record["tokens"]
    path.write_text(json.dumps(record))


def test_expired_token_is_refreshed(kubectl, server_factory, tmp_path):
    # Tokens that live 30 s: less than the 60 s the plugin requires, so kubectl's call refreshes first.
    server = server_factory(interval=1, token_expires_in=30)
    api = KubeAPIServer(tmp_path, accepts=lambda token: token_is_accepted(server, token)).start()
    try:
        home = tmp_path / "home"
        sign_in(server, home, profile=PROFILE)
        signed_in_token = stored_access_token(home)
        version = V1 if kubectl_minor(kubectl) >= 22 else V1BETA1
        kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api, home, version, "Never" if version == V1 else None)
        run = run_kubectl(kubectl, kubeconfig, tmp_path, "get", "--raw", "/version")
        assert_version(run)
        refreshed = stored_access_token(home)
        assert refreshed != signed_in_token
        assert set(api.accepted_tokens()) == {refreshed}
    finally:
        api.stop()


HUGE = '{"kind":"ExecCredential","apiVersion":"' + V1 + '","pad":"' + "x" * 100_000 + '"}'


@pytest.mark.parametrize("value,message", [
    ("garbage", "device-login: KUBERNETES_EXEC_INFO is not valid JSON"),
    ('{"kind":"Pod","apiVersion":"v1"}', "device-login: KUBERNETES_EXEC_INFO has a kind that is not ExecCredential"),
    ('{"kind":"ExecCredential","apiVersion":"client.authentication.k8s.io/v1alpha1","spec":{}}',
     "device-login: kubectl asks for apiVersion client.authentication.k8s.io/v1alpha1"),
    (HUGE, f"device-login: KUBERNETES_EXEC_INFO is {len(HUGE)} bytes long, more than the 65536 device-login reads"),
    ("[" * 5000 + "]" * 5000, "device-login: KUBERNETES_EXEC_INFO nests arrays or objects deeper than 32 levels"),
], ids=["garbage", "wrong-kind", "v1alpha1", "100-KB", "5000-deep"])
def test_bad_exec_info(server, tmp_path, value, message):
    home = tmp_path / "home"
    sign_in(server, home, profile=PROFILE)
    run = run_cli(home, "kubectl-credential", "--profile", PROFILE, KUBERNETES_EXEC_INFO=value)
    assert run.returncode == 78, run.stderr
    assert run.stdout == b""
    assert run.stderr.decode().startswith(message)
    assert len(run.stderr) < 1000


def test_answer_by_hand_is_v1beta1(server, tmp_path):
    home = tmp_path / "home"
    sign_in(server, home, profile=PROFILE)
    run = run_cli(home, "kubectl-credential", "--profile", PROFILE)
    assert run.returncode == 0, run.stderr
    answer = json.loads(run.stdout)
    assert answer["apiVersion"] == V1BETA1 and answer["kind"] == "ExecCredential"
    assert answer["status"]["token"] == stored_access_token(home)
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ", answer["status"]["expirationTimestamp"])
    assert run.stderr == b""


class PseudoTerminalRun:
    """kubectl on a pseudo-terminal, as a person at a terminal runs it: everything it and the plugin write is read
    from the terminal's primary side."""

    def __init__(self, arguments, environment):
        primary, secondary = pty.openpty()
        self.primary = primary
        self.output = b""
        self.process = subprocess.Popen(arguments, stdin=secondary, stdout=secondary, stderr=secondary,
                                        env=environment, start_new_session=True)
        os.close(secondary)

    def text(self):
        return ANSI.sub("", self.output.decode(errors="replace"))

    def read_until(self, pattern, timeout):
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            match = re.search(pattern, self.text())
            if match:
                return match
            self._read(0.2)
        self.process.kill()
        pytest.fail(f"no {pattern!r} on the terminal within {timeout} s:\n{self.text()}")

    def finish(self, timeout):
        deadline = time.monotonic() + timeout
        while self.process.poll() is None and time.monotonic() < deadline:
            self._read(0.2)
        if self.process.poll() is None:
            self.process.kill()
            pytest.fail(f"kubectl still running after {timeout} s:\n{self.text()}")
        while self._read(0.1):
            pass
        os.close(self.primary)
        return self.process.returncode

    def _read(self, wait):
        ready, _, _ = select.select([self.primary], [], [], wait)
        if not ready:
            return False
        try:
            chunk = os.read(self.primary, 65536)
        except OSError:  # EIO: every process on the terminal has closed it
            return False
        self.output += chunk
        return bool(chunk)


def test_interactive_sign_in_again_on_a_terminal(kubectl, needs_v1, server, api, tmp_path):
    home = tmp_path / "home"
    sign_in(server, home, profile=PROFILE)
    signed_out(home)
    kubeconfig = write_kubeconfig(tmp_path / "kubeconfig", api, home, V1, "IfAvailable")
    environment = kubectl_environment(tmp_path, keep_ci=False)
    run = PseudoTerminalRun([kubectl, "--kubeconfig", str(kubeconfig), "get", "--raw", "/version"], environment)
    code = run.read_until(r"Code: ([A-Z0-9-]+)", timeout=30).group(1)
    assert "signing in again for kubectl" in run.text()
    approve(server.base_url, code)
    assert run.finish(timeout=KUBECTL_TIMEOUT) == 0, run.text()
    assert '"gitVersion":"v1.32.0-device-login-e2e"' in run.text().replace(" ", "").replace("\n", "")
    assert set(api.accepted_tokens()) == {stored_access_token(home)}
