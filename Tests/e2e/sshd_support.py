"""A real OpenSSH server for the e2e suites (the PAM module's and the agent's): sshd on a free loopback port with its
own sshd_config and host key, started in the foreground and stopped by the test. Nothing of the system's is changed
but the privilege separation folder sshd needs (/run/sshd). Each suite adds its own authentication lines and
environment (the PAM suite: pam_wrapper and nss_wrapper; the agent's: a public key for root).
"""

import os
import shutil
import socket
import subprocess
import textwrap
import time
from pathlib import Path

import pytest


def require(condition, message):
    """Skips the test when `condition` fails, unless CI is set: then it is a failure."""
    if condition:
        return
    if os.environ.get("CI"):
        pytest.fail(message + "; CI is set, so this is a failure, not a skip")
    pytest.skip(message)


def free_port():
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


class SSHServer:
    """sshd -D on 127.0.0.1:`port`, configured by the common lines below and `config` (sshd_config lines), with
    `environment` added to its own; its log at `log_path`."""

    def __init__(self, folder, config, environment=None):
        require(Path("/usr/sbin/sshd").exists() and shutil.which("ssh") and shutil.which("ssh-keygen"),
                "OpenSSH is missing (Debian: openssh-server, openssh-client)")
        require(os.geteuid() == 0, "sshd must start as root")
        Path("/run/sshd").mkdir(mode=0o755, exist_ok=True)
        self.folder = folder
        folder.mkdir(exist_ok=True)
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(folder / "host_key")], check=True)
        self.port = free_port()
        (folder / "sshd_config").write_text(textwrap.dedent(f"""\
            Port {self.port}
            ListenAddress 127.0.0.1
            HostKey {folder / 'host_key'}
            PidFile none
            StrictModes no
            LoginGraceTime 60
            UseDNS no
            PrintMotd no
            """) + textwrap.dedent(config))
        self.log_path = folder / "sshd.log"
        self.log = open(self.log_path, "wb")
        self.process = subprocess.Popen(["/usr/sbin/sshd", "-D", "-e", "-f", str(folder / "sshd_config")],
                                        stdin=subprocess.DEVNULL, stdout=self.log, stderr=self.log,
                                        env=dict(os.environ, **(environment or {})))
        deadline_at = time.monotonic() + 10
        while b"Server listening" not in self.log_path.read_bytes():
            if self.process.poll() is not None or time.monotonic() > deadline_at:
                pytest.fail(f"sshd did not start:\n{self.log_path.read_text(errors='replace')}")
            time.sleep(0.05)

    def client_options(self):
        """The ssh client options that reach this server and trust its key blindly (a test's loopback server)."""
        return ["-F", "/dev/null", "-p", str(self.port), "-o", "StrictHostKeyChecking=no",
                "-o", "UserKnownHostsFile=/dev/null", "-o", "LogLevel=ERROR"]

    def healthy(self):
        """Whether sshd still runs and greets a new connection with its version."""
        if self.process.poll() is not None:
            return False
        with socket.create_connection(("127.0.0.1", self.port), timeout=5) as connection:
            return connection.recv(64).startswith(b"SSH-2.0-")

    def stop(self):
        if self.process.poll() is None:
            self.process.terminate()
            self.process.wait(timeout=10)
        self.log.close()
