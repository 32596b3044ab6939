"""`device-login docker-credential`, run as `docker-credential-device-login` (a link on PATH, as Docker finds its
helpers), driven by the Docker SDK for Python's credential client (`docker.credentials.Store`) against profiles
signed in at the Authlib server.
"""

import json
import os
import subprocess

import pytest
from docker.credentials import Store
from docker.credentials.errors import CredentialsNotFound, StoreError

from integration_support import cli_environment, sign_in, token_is_accepted
from test_device_login_e2e import binary_path

REGISTRY = "registry.example.test"
LOCAL_REGISTRY = "http://127.0.0.1:5000"
HELPER = "docker-credential-device-login"


@pytest.fixture(autouse=True)
def require_binary():
    binary_path()


@pytest.fixture
def home(tmp_path):
    return tmp_path / "device-login"


@pytest.fixture
def helper(tmp_path, monkeypatch):
    """The link Docker runs, first on PATH (docker-py looks it up with the test process's own PATH)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    link = bin_dir / HELPER
    link.symlink_to(binary_path())
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ['PATH']}")
    for name in list(os.environ):
        if name.startswith("DEVICE_LOGIN_"):
            monkeypatch.delenv(name)
    return link


@pytest.fixture
def store(home, helper):
    """docker-py's client of the helper named `device-login`, as `credsStore`/`credHelpers` name it."""
    return Store("device-login", environment=cli_environment(home))


def stored_token(home, profile="default"):
    return json.loads((home / f"{profile}.json").read_text())["tokens"]["access_token"]


def test_get_answers_a_token_the_server_accepts(server, home, store):
    sign_in(server, home, bindings=[f"https://{REGISTRY}", LOCAL_REGISTRY])
    token = stored_token(home)
    for url in (REGISTRY, f"https://{REGISTRY}/v2/", LOCAL_REGISTRY):
        answer = store.get(url)
        assert answer == {"ServerURL": url, "Username": "oauth2", "Secret": token}
    assert token_is_accepted(server, token)


def test_get_of_a_url_no_profile_serves_is_credentials_not_found(server, home, store):
    sign_in(server, home, bindings=[f"https://{REGISTRY}"])
    for url in ("other.example.test", f"{REGISTRY}:5000", f"http://{REGISTRY}"):
        with pytest.raises(CredentialsNotFound):
            store.get(url)


def test_get_with_no_profile_at_all_is_credentials_not_found(home, store):
    with pytest.raises(CredentialsNotFound):
        store.get(REGISTRY)


def test_list_names_every_binding_with_its_user(server, home, store):
    sign_in(server, home, profile="registry", bindings=[f"https://{REGISTRY}", LOCAL_REGISTRY])
    sign_in(server, home, profile="git", bindings=["https://git.example.test"], extra=["--username", "ada"])
    assert store.list() == {
        f"https://{REGISTRY}": "oauth2", LOCAL_REGISTRY: "oauth2", "https://git.example.test": "ada",
    }


def test_store_and_erase_keep_the_sign_in(server, home, store):
    sign_in(server, home, bindings=[f"https://{REGISTRY}"])
    token = stored_token(home)
    store.store(REGISTRY, "ada", "a-typed-password")  # docker login: accepted, kept nowhere
    store.erase(REGISTRY)  # docker logout: signs nothing out
    assert store.get(REGISTRY)["Secret"] == token
    with pytest.raises(StoreError) as refused:
        store.store("other.example.test", "ada", "a-typed-password")
    assert not isinstance(refused.value, CredentialsNotFound)
    assert "a-typed-password" not in str(refused.value)


def test_a_needed_sign_in_is_an_error_not_credentials_not_found(server, home, store):
    sign_in(server, home, bindings=[f"https://{REGISTRY}"])
    path = home / "default.json"
    record = json.loads(path.read_text())
    record["tokens"].update(expires_at=0, refresh_token="revoked-refresh-token")
    path.write_text(json.dumps(record))
    with pytest.raises(StoreError) as failed:
        store.get(REGISTRY)
    assert not isinstance(failed.value, CredentialsNotFound)


@pytest.mark.parametrize("operation, data", [
    ("get", b"not a url at all\n"),
    ("get", b"\x00\x01\x02"),
    ("get", b"x" * 1_000_000),
    ("erase", b""),
    ("store", b"{\"ServerURL\": "),
    ("store", b"garbage"),
], ids=["get-garbage", "get-NUL", "get-1MB-line", "erase-nothing", "store-invalid-JSON", "store-garbage"])
def test_malformed_input_is_one_line_on_stderr_and_nothing_on_stdout(server, home, helper, operation, data):
    sign_in(server, home, bindings=[f"https://{REGISTRY}"])
    result = subprocess.run([str(helper), operation], input=data, capture_output=True, timeout=30,
                            env=cli_environment(home))
    assert result.returncode == 64
    assert result.stdout == b""
    lines = result.stderr.decode().splitlines()
    assert len(lines) == 1 and lines[0].startswith(f"device-login: docker-credential {operation}: ")
    assert stored_token(home).encode() not in result.stderr
