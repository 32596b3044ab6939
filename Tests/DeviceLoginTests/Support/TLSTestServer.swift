import Foundation

/// An HTTPS server on 127.0.0.1 with a throwaway CA, for testing certificate verification against a real TLS stack.
///
/// A python3 script (written to a temporary directory) makes a CA and a server certificate for `IP:127.0.0.1`
/// with the `openssl` CLI, serves `GET` with `http.server` wrapped in `ssl`, and writes its port to a file once it
/// listens. The script exits by itself after 60 s; ``stop()`` ends it sooner and removes the directory.
final class TLSTestServer {
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The body every `GET` gets.
    static let body = #"{"tls":true}"#

    /// The port the server listens on.
    let port: UInt16
    /// The PEM file of the CA that signed the server's certificate.
    let caFile: String
    private let process: Process
    private let directory: URL

    private init(port: UInt16, caFile: String, process: Process, directory: URL) {
        self.port = port
        self.caFile = caFile
        self.process = process
        self.directory = directory
    }

    /// `https://127.0.0.1:<port><path>`.
    func url(_ path: String = "/") -> URL {
        URL(string: "https://127.0.0.1:\(port)\(path)")!
    }

    /// Generates the certificates, starts the server and waits (at most 120 s, a failsafe spent only when it cannot
    /// start: on a loaded machine python and three openssl runs took over 20 s) until it listens.
    static func start() async throws -> TLSTestServer {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("device-login-tls-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        let script = directory.appendingPathComponent("server.py")
        try Self.script.write(to: script, atomically: true, encoding: .utf8)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path, directory.path]
        let errors = Pipe()
        process.standardError = errors
        process.standardOutput = FileHandle.nullDevice
        do {
            try process.run()
        } catch {
            try? FileManager.default.removeItem(at: directory)
            throw error
        }
        let portFile = directory.appendingPathComponent("port")
        let deadline = ContinuousClock.now + .seconds(120)
        while ContinuousClock.now < deadline, process.isRunning {
            if let text = try? String(contentsOf: portFile, encoding: .utf8), let port = UInt16(text) {
                let caFile = directory.appendingPathComponent("ca.pem").path
                return TLSTestServer(port: port, caFile: caFile, process: process, directory: directory)
            }
            try? await Task.sleep(for: .milliseconds(20))
        }
        let server = TLSTestServer(port: 0, caFile: "", process: process, directory: directory)
        server.stop()
        let stderr = String(decoding: errors.fileHandleForReading.availableData.prefix(2000), as: UTF8.self)
        throw Failure(description: "the TLS test server did not start: \(stderr)")
    }

    /// Ends the server and removes its files.
    func stop() {
        if process.isRunning {
            // SIGKILL, not terminate(): the child may inherit a mask that blocks SIGTERM from the test's thread.
            kill(process.processIdentifier, SIGKILL)
            process.waitUntilExit()
        }
        try? FileManager.default.removeItem(at: directory)
    }

    private static let script = #"""
        import http.server, os, ssl, subprocess, sys, threading

        work = sys.argv[1]
        threading.Timer(300, os._exit, [0]).start()

        def openssl(*args):
            subprocess.run(["openssl", *args], cwd=work, check=True, capture_output=True, timeout=30)

        ec = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
        openssl("req", "-x509", *ec, "-keyout", "ca.key", "-out", "ca.pem", "-days", "2",
                "-subj", "/CN=DeviceLogin Test CA",
                "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign,cRLSign")
        openssl("req", *ec, "-keyout", "server.key", "-out", "server.csr", "-subj", "/CN=127.0.0.1")
        with open(os.path.join(work, "server.ext"), "w") as ext:
            ext.write("subjectAltName=IP:127.0.0.1\nbasicConstraints=CA:FALSE\nextendedKeyUsage=serverAuth\n")
        openssl("x509", "-req", "-in", "server.csr", "-CA", "ca.pem", "-CAkey", "ca.key", "-CAcreateserial",
                "-out", "server.pem", "-days", "2", "-extfile", "server.ext")

        class Handler(http.server.BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self):
                body = b'{"tls":true}'
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(body)))
                self.end_headers()
                self.wfile.write(body)

            def log_message(self, *args):
                pass

        server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
        context.load_cert_chain(os.path.join(work, "server.pem"), os.path.join(work, "server.key"))
        server.socket = context.wrap_socket(server.socket, server_side=True)
        with open(os.path.join(work, "port.tmp"), "w") as port:
            port.write(str(server.server_address[1]))
        os.rename(os.path.join(work, "port.tmp"), os.path.join(work, "port"))
        server.serve_forever()
        """#
}
