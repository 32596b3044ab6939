"""A smart-HTTP git server on a loopback port for the git-credential suite: `git http-backend` (git's own CGI
program) behind Python's HTTP server, with HTTP Basic authentication on every request.

A request is served only when its Basic password is a bearer token that `accepts(username, password)` approves —
the suites pass `integration_support.token_is_accepted`, so the server accepts exactly the tokens the Authlib
authorization server accepts — and the token is not one the test told it to refuse (`refuse`). Anything else gets
401 with `WWW-Authenticate: Basic realm="device-login e2e"`, which is what makes git ask its credential helper.
Every request is recorded (`requests`), with the user name and password it carried, so a test can say what git sent.

    server = GitHTTPServer(root, accepts=lambda user, token: token_is_accepted(auth, token))
    server.start()
    subprocess.run(["git", "clone", server.url + "/repo.git", "work"])
    server.stop()
"""

import base64
import os
import subprocess
import threading
from dataclasses import dataclass
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

REALM = "device-login e2e"
MAXIMUM_BODY = 64 * 1024 * 1024  # a push of the test's small repositories is a few KB
CGI_TIMEOUT = 60  # seconds for one run of git http-backend


def http_backend():
    """The path of `git http-backend`: in git's exec path (/usr/lib/git-core on Debian)."""
    exec_path = subprocess.run(["git", "--exec-path"], capture_output=True, text=True, check=True).stdout.strip()
    path = Path(exec_path) / "git-http-backend"
    if not path.is_file():
        raise FileNotFoundError(f"git http-backend not found at {path}")
    return path


@dataclass
class Request:
    """One request the server received: what git asked for, with which credentials, and the status answered."""
    method: str
    path: str
    username: str | None
    password: str | None
    status: int


class GitHTTPServer:
    """`git http-backend` for the repositories under `root`, on http://127.0.0.1:PORT, in a thread of its own."""

    def __init__(self, root, accepts):
        self.root = Path(root)
        self.accepts = accepts
        self.backend = http_backend()
        self.requests = []
        self._refused = set()
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._server.daemon_threads = True
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)

    @property
    def url(self):
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(timeout=5)

    def refuse(self, token):
        """Answers 401 to `token` from now on, as a server that revoked it would."""
        with self._lock:
            self._refused.add(token)

    def passwords(self):
        """The passwords of the requests that were served, in order."""
        with self._lock:
            return [r.password for r in self.requests if r.status != 401]

    def _record(self, request):
        with self._lock:
            self.requests.append(request)

    def _is_accepted(self, username, password):
        with self._lock:
            refused = password in self._refused
        return not refused and self.accepts(username, password)

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def do_GET(self):
                self._serve()

            def do_POST(self):
                self._serve()

            def log_message(self, format, *args):  # the suite reads `requests`, not a log
                pass

            def _serve(self):
                username, password = self._credentials()
                path, _, query = self.path.partition("?")
                if username is None or not server._is_accepted(username, password):
                    server._record(Request(self.command, path, username, password, 401))
                    body = b"authentication required\n"
                    self.send_response(401)
                    self.send_header("WWW-Authenticate", f'Basic realm="{REALM}"')
                    self.send_header("Content-Type", "text/plain")
                    self.send_header("Content-Length", str(len(body)))
                    self.end_headers()
                    self.wfile.write(body)
                    return
                status = self._run_backend(path, query, username, self._body())
                server._record(Request(self.command, path, username, password, status))

            def _credentials(self):
                header = self.headers.get("Authorization", "")
                scheme, _, encoded = header.partition(" ")
                if scheme.lower() != "basic":
                    return None, None
                try:
                    decoded = base64.b64decode(encoded.strip(), validate=True).decode("utf-8")
                except (ValueError, UnicodeDecodeError):
                    return None, None
                username, separator, password = decoded.partition(":")
                return (username, password) if separator else (None, None)

            def _body(self):
                if self.headers.get("Transfer-Encoding", "").lower() == "chunked":
                    return self._chunked_body()
                length = int(self.headers.get("Content-Length") or 0)
                if length > MAXIMUM_BODY:
                    raise ValueError("request body too large")
                return self.rfile.read(length)

            def _chunked_body(self):
                body = bytearray()
                while True:
                    size = int(self.rfile.readline().split(b";")[0].strip() or b"0", 16)
                    if size == 0:
                        while self.rfile.readline() not in (b"\r\n", b"\n", b""):
                            pass
                        return bytes(body)
                    if len(body) + size > MAXIMUM_BODY:
                        raise ValueError("request body too large")
                    body += self.rfile.read(size)
                    self.rfile.readline()

            def _run_backend(self, path, query, username, body):
                environment = {
                    "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
                    "GIT_PROJECT_ROOT": str(server.root),
                    "GIT_HTTP_EXPORT_ALL": "1",
                    "GATEWAY_INTERFACE": "CGI/1.1",
                    "REQUEST_METHOD": self.command,
                    "PATH_INFO": path,
                    "QUERY_STRING": query,
                    "CONTENT_TYPE": self.headers.get("Content-Type", ""),
                    "CONTENT_LENGTH": str(len(body)),
                    # git http-backend enables receive-pack (push) only for an authenticated user.
                    "REMOTE_USER": username,
                    "REMOTE_ADDR": self.client_address[0],
                    "GIT_CONFIG_NOSYSTEM": "1",
                    "HOME": str(server.root),
                }
                for header, variable in (("Git-Protocol", "GIT_PROTOCOL"),
                                         ("Content-Encoding", "HTTP_CONTENT_ENCODING")):
                    if self.headers.get(header):
                        environment[variable] = self.headers[header]
                result = subprocess.run([str(server.backend)], input=body, capture_output=True, env=environment,
                                        timeout=CGI_TIMEOUT)
                head, _, content = result.stdout.partition(b"\r\n\r\n")
                if not content and b"\r\n" not in head:
                    head, _, content = result.stdout.partition(b"\n\n")
                status = 200
                headers = []
                for line in head.decode("latin-1").splitlines():
                    name, _, value = line.partition(":")
                    if name.lower() == "status":
                        status = int(value.split()[0])
                    elif name:
                        headers.append((name, value.strip()))
                self.send_response(status)
                for name, value in headers:
                    self.send_header(name, value)
                self.send_header("Content-Length", str(len(content)))
                self.end_headers()
                self.wfile.write(content)
                return status

        return Handler
