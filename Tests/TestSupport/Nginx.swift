public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// A real nginx on 127.0.0.1 serving a temp folder, started by a test and stopped by it.
///
/// `daemon off; master_process off`, logs and temp files in its own temp folder, `etag on`.
/// The access log records `$status $bytes_sent $body_bytes_sent "$http_range" "$http_if_range" "$request"`
/// so tests can check server-side facts (ranges asked for, bytes actually sent).
public final class Nginx: @unchecked Sendable {
    /// The folder served at `/`.
    public let root: URL
    /// nginx's own folder (config, logs, temp files).
    public let directory: URL
    /// The port it listens on.
    public let port: Int
    /// The certificates it serves https with (`nil`: plain http).
    public let tls: TestCertificates?
    private let process: Process

    /// `http://127.0.0.1:<port>`, or `https://` when it serves TLS.
    public var baseURL: String { "\(tls == nil ? "http" : "https")://127.0.0.1:\(port)" }
    /// The access log.
    public var accessLogURL: URL { directory.appendingPathComponent("access.log") }

    /// Starts nginx serving `root` (a new temp folder if nil); `locationConfig` goes inside `location /`, `httpConfig`
    /// inside `http` (an `upstream` block for a balancer).
    /// With `tls` it serves https with its server certificate and, when `clientCertificates`, accepts only clients
    /// presenting a certificate its authority signed. With `http2` it speaks HTTP/2 (over plain http: only HTTP/2,
    /// with prior knowledge, as nginx's `listen … http2` does).
    public init(
        root: URL? = nil, locationConfig: String = "", httpConfig: String = "", tls: TestCertificates? = nil, http2: Bool = false,
        clientCertificates: Bool = true
    ) throws {
        self.tls = tls
        directory = try TemporaryDirectory.make(prefix: "nginx")
        let served = root ?? directory.appendingPathComponent("root")
        try FileManager.default.createDirectory(at: served, withIntermediateDirectories: true)
        self.root = served
        var lastError = ""
        for _ in 0..<5 {
            let port = try FreePort.find()
            let config = directory.appendingPathComponent("nginx.conf")
            try Nginx.config(
                directory: directory, root: served, port: port, location: locationConfig, http: httpConfig, tls: tls, http2: http2,
                clientCertificates: clientCertificates)
                .write(to: config, atomically: true, encoding: .utf8)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/sbin/nginx")
            process.arguments = ["-p", directory.path, "-e", directory.appendingPathComponent("error.log").path,
                                 "-c", config.path]
            process.standardOutput = FileHandle.nullDevice
            process.standardError = FileHandle.nullDevice
            try process.run()
            if FreePort.waitUntilListening(port: port, timeout: 5), process.isRunning {
                self.process = process
                self.port = port
                return
            }
            if process.isRunning { kill(process.processIdentifier, SIGKILL) }
            lastError = (try? String(contentsOf: directory.appendingPathComponent("error.log"), encoding: .utf8)) ?? ""
        }
        throw TestSupportError("nginx did not start on 127.0.0.1: \(lastError)")
    }

    deinit { stop() }

    /// Stops nginx (idempotent) and removes its folder (and the served root when it created it there).
    public func stop() {
        // SIGKILL, not SIGTERM: a child spawned from a test's worker thread inherits a mask that
        // blocks SIGTERM, and nginx (master_process off) never unblocks it.
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        try? FileManager.default.removeItem(at: directory)
    }

    /// Access-log lines parsed: one per request, in order.
    public func requests() -> [LoggedRequest] {
        guard let text = try? String(contentsOf: accessLogURL, encoding: .utf8) else { return [] }
        return text.split(separator: "\n").compactMap(LoggedRequest.init)
    }

    /// One access-log line.
    public struct LoggedRequest: Sendable, Equatable {
        /// The status sent.
        public var status: Int
        /// Bytes sent including headers.
        public var bytesSent: Int
        /// Body bytes sent.
        public var bodyBytesSent: Int
        /// The Range header ("-" when none).
        public var range: String
        /// The If-Range header ("-" when none).
        public var ifRange: String
        /// The request line.
        public var request: String

        init?(_ line: Substring) {
            let quoted = line.split(separator: "\"", omittingEmptySubsequences: false)
            let fields = quoted[0].split(separator: " ")
            guard fields.count >= 3, quoted.count >= 6, let status = Int(fields[0]), let sent = Int(fields[1]),
                  let body = Int(fields[2])
            else { return nil }
            self.status = status
            bytesSent = sent
            bodyBytesSent = body
            range = String(quoted[1])
            ifRange = String(quoted[3])
            request = String(quoted[5])
        }
    }

    static func config(
        directory: URL, root: URL, port: Int, location: String, http: String, tls: TestCertificates?, http2: Bool,
        clientCertificates: Bool = true
    ) -> String {
        let d = directory.path
        let h2 = http2 ? " http2" : ""
        let clients = clientCertificates ? """

                    ssl_client_certificate \(tls?.authority ?? "");
                    ssl_verify_client on;
            """ : ""
        let listen = tls == nil ? "listen 127.0.0.1:\(port)\(h2);" : """
            listen 127.0.0.1:\(port) ssl\(h2);
                    ssl_certificate \(tls!.serverCertificate);
                    ssl_certificate_key \(tls!.serverKey);\(clients)
            """
        return """
            daemon off;
            master_process off;
            worker_processes 1;
            pid \(d)/nginx.pid;
            error_log \(d)/error.log info;
            events { worker_connections 128; }
            http {
                log_format iap '$status $bytes_sent $body_bytes_sent "$http_range" "$http_if_range" "$request"';
                access_log \(d)/access.log iap;
                client_body_temp_path \(d)/body;
                proxy_temp_path \(d)/proxy;
                fastcgi_temp_path \(d)/fastcgi;
                uwsgi_temp_path \(d)/uwsgi;
                scgi_temp_path \(d)/scgi;
                types { application/json json; }
                default_type application/octet-stream;
                sendfile on;
                \(http)
                server {
                    \(listen)
                    root \(root.path);
                    etag on;
                    location / {
                        \(location)
                    }
                }
            }
            """
    }
}
