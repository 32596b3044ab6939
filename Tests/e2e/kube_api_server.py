"""A stand-in Kubernetes API server for the kubectl suite: HTTPS on a free loopback port, with a self-signed certificate
made when it starts, answering `GET /version` only to a bearer token that a given check accepts (the Authlib server's,
through `token_is_accepted`), and 401 with a Kubernetes `Status` to anything else — as kube-apiserver does.

    api = KubeAPIServer(tmp_path, accepts=lambda token: token_is_accepted(server, token))
    api.start()
    ...  # a kubeconfig with server: api.url and certificate-authority-data: api.ca_data
    api.stop()
"""

import base64
import datetime
import ipaddress
import json
import ssl
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from cryptography import x509
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.x509.oid import NameOID

# What kube-apiserver answers at /version (the fields kubectl reads).
VERSION = {
    "major": "1", "minor": "32", "gitVersion": "v1.32.0-device-login-e2e", "gitCommit": "0" * 40,
    "gitTreeState": "clean", "buildDate": "2026-01-01T00:00:00Z", "goVersion": "go1.23.0", "compiler": "gc",
    "platform": "linux/amd64",
}


def status(code, reason, message):
    """A Kubernetes `Status` object, the body kube-apiserver sends with an error."""
    return {"kind": "Status", "apiVersion": "v1", "metadata": {}, "status": "Failure", "message": message,
            "reason": reason, "code": code}


def make_certificate(directory):
    """Writes a self-signed certificate for 127.0.0.1 and localhost, valid for a day, and its key; returns their
    paths. It is its own CA: the kubeconfig trusts exactly it (certificate-authority-data)."""
    key = ec.generate_private_key(ec.SECP256R1())
    name = x509.Name([x509.NameAttribute(NameOID.COMMON_NAME, "device-login e2e kube-apiserver")])
    now = datetime.datetime.now(datetime.timezone.utc)
    certificate = (
        x509.CertificateBuilder()
        .subject_name(name).issuer_name(name).public_key(key.public_key())
        .serial_number(x509.random_serial_number())
        .not_valid_before(now - datetime.timedelta(minutes=5)).not_valid_after(now + datetime.timedelta(days=1))
        .add_extension(x509.SubjectAlternativeName(
            [x509.IPAddress(ipaddress.ip_address("127.0.0.1")), x509.DNSName("localhost")]), critical=False)
        .add_extension(x509.BasicConstraints(ca=True, path_length=None), critical=True)
        .sign(key, hashes.SHA256())
    )
    certificate_path = directory / "kube-apiserver.crt"
    key_path = directory / "kube-apiserver.key"
    certificate_path.write_bytes(certificate.public_bytes(serialization.Encoding.PEM))
    key_path.write_bytes(key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, serialization.NoEncryption()))
    key_path.chmod(0o600)
    return certificate_path, key_path


class KubeAPIServer:
    """The running stand-in: its URL, the CA data for a kubeconfig, and every request it saw."""

    def __init__(self, directory, accepts):
        self.accepts = accepts
        self.requests = []  # (path, bearer token or None, accepted) of each request, in order
        self._lock = threading.Lock()
        certificate_path, key_path = make_certificate(directory)
        self.ca_data = base64.b64encode(certificate_path.read_bytes()).decode()
        self._context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        self._context.load_cert_chain(certificate_path, key_path)
        self._httpd = ThreadingHTTPServer(("127.0.0.1", 0), self._handler())
        self._httpd.daemon_threads = True
        self._httpd.socket = self._context.wrap_socket(self._httpd.socket, server_side=True)
        self.url = f"https://127.0.0.1:{self._httpd.server_address[1]}"
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    def start(self):
        self._thread.start()
        return self

    def stop(self):
        self._httpd.shutdown()
        self._httpd.server_close()
        self._thread.join(timeout=5)

    def accepted_tokens(self):
        with self._lock:
            return [token for _, token, accepted in self.requests if accepted]

    def _record(self, path, token, accepted):
        with self._lock:
            self.requests.append((path, token, accepted))

    def _handler(self):
        server = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, format, *args):  # quiet: pytest shows the test's own output
                pass

            def _answer(self, code, body):
                data = json.dumps(body).encode()
                self.send_response(code)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                if code == 401:
                    self.send_header("WWW-Authenticate", 'Bearer realm="kubernetes"')
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                header = self.headers.get("Authorization", "")
                token = header[len("Bearer "):] if header.startswith("Bearer ") else None
                accepted = token is not None and server.accepts(token)
                server._record(self.path, token, accepted)
                if not accepted:
                    self._answer(401, status(401, "Unauthorized", "Unauthorized"))
                elif self.path == "/version":
                    self._answer(200, VERSION)
                else:
                    self._answer(404, status(404, "NotFound", "the server could not find the requested resource"))

        return Handler
