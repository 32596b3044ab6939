"""What the integration suites (git, kubectl, Docker, curl, exec) share: a profile signed in against the Authlib
server through the real `device-login login`, and a check of a bearer token that asks the authorization server
itself (its userinfo endpoint), so the stand-in resource servers accept exactly the tokens Authlib accepts.
"""

import os
import subprocess

import requests

from approve import approve
from test_device_login_e2e import CLIRun, PROXY_VARIABLES, PUBLIC, binary_path

HTTP_TIMEOUT = 10


def cli_environment(home, keep_ci=True, **extra):
    """The environment a tool (git, kubectl, docker-py, curl) runs `device-login` in: this test's home, no proxy,
    no DEVICE_LOGIN_* of the caller's; `CI` only when `keep_ci`; then `extra`."""
    environment = {k: v for k, v in os.environ.items()
                   if k not in PROXY_VARIABLES and not k.startswith("DEVICE_LOGIN_") and (keep_ci or k != "CI")}
    environment.update(DEVICE_LOGIN_HOME=str(home), NO_PROXY="127.0.0.1,localhost", NO_COLOR="1")
    environment.update(extra)
    return environment


def sign_in(server, home, profile="default", bindings=(), scopes="openid offline_access", extra=()):
    """Runs `device-login login` (stored, `--for` each binding), approves it as a person would, and returns the
    finished run. Fails the test when the sign-in does not succeed."""
    home.mkdir(mode=0o700, parents=True, exist_ok=True)  # device-login refuses a home others can read
    arguments = ["login", "--issuer", server.base_url, "--client-id", PUBLIC, "--qr", "never",
                 "--scope", scopes, "--profile", profile]
    for binding in bindings:
        arguments += ["--for", binding]
    run = CLIRun([*arguments, *extra], home)
    approve(server.base_url, run.user_code())
    status = run.finish()
    assert status == 0, run.stderr
    return run


def run_cli(home, *arguments, input=None, timeout=30, **environment):
    """Runs `device-login` to completion with bytes on stdin; returns the CompletedProcess (bytes)."""
    return subprocess.run([str(binary_path()), *arguments], input=input, capture_output=True, timeout=timeout,
                          env=cli_environment(home, **environment))


def token_is_accepted(server, token):
    """Whether the authorization server accepts `token` as a bearer token (its userinfo endpoint answers 200)."""
    response = requests.get(server.url("/userinfo"), headers={"Authorization": f"Bearer {token}"},
                            timeout=HTTP_TIMEOUT)
    return response.status_code == 200
