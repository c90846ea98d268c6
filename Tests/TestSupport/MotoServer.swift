public import Foundation
public import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real moto server (`moto_server`, the S3 engine under LocalStack) on a free 127.0.0.1 port, with one
/// bucket readable anonymously (created with `x-amz-acl: public-read`), started by a test and stopped by it: a
/// second S3 implementation, next to ``SeaweedFS``, that the publish and prune tests run against.
///
/// It runs under `timeout --signal=KILL`, so it stops by itself after `lifetime` seconds even when the test
/// process dies first. moto checks no signature; it serves `GET <endpoint>/<bucket>/<key>` without credentials
/// for a public-read bucket, which is how clients in the tests download.
///
/// `moto_server` comes from PyPI (`pip install 'moto[server]'`; `tools/setup` installs it as
/// `/usr/local/bin/moto_server`).
public final class MotoServer: @unchecked Sendable {
    /// The access key requests are signed with (moto accepts any).
    public static let accessKey = "iapcontent-test"
    /// Its secret.
    public static let secretKey = "iapcontent-test-secret"
    /// The bucket created at start.
    public let bucket = "iap"
    /// The port.
    public let port: Int
    /// Its log folder.
    public let directory: URL
    private let process: Process

    /// `http://127.0.0.1:<port>`: the S3 endpoint.
    public var endpoint: String { "http://127.0.0.1:\(port)" }
    /// The environment a publisher signs with (this identity's keys, region us-east-1).
    public var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey, "AWS_REGION": "us-east-1",
         "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": "", "AWS_CA_BUNDLE": ""]
    }
    /// The anonymous read URL of `key` in the bucket.
    public func publicURL(_ key: String) -> String { "\(endpoint)/\(bucket)/\(key)" }

    /// The `moto_server` program: `$IAPCONTENT_MOTO_SERVER`, else the first `moto_server` on `PATH`, else
    /// `/usr/local/bin/moto_server`.
    public static var executable: String? {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["IAPCONTENT_MOTO_SERVER"], FileManager.default.isExecutableFile(atPath: given) { return given }
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/local/bin"]
        return path.map { $0 + "/moto_server" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether the tests that need it run: `moto_server` is installed, or `CI` is set (they run and fail).
    public static var testsRun: Bool { executable != nil || Tmpfs.isCI }

    /// Starts moto and creates the bucket; it kills itself after `lifetime` seconds at the latest.
    public init(lifetime: Int = 600) throws {
        guard let moto = Self.executable else {
            throw TestSupportError("moto_server is not installed: run tools/setup (pip install 'moto[server]'), or set IAPCONTENT_MOTO_SERVER")
        }
        directory = try TemporaryDirectory.make(prefix: "moto")
        let log = directory.appendingPathComponent("moto.log")
        var lastError = ""
        for _ in 0..<3 {
            let port = try FreePort.find()
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = ["--signal=KILL", String(lifetime), moto, "-H", "127.0.0.1", "-p", String(port)]
            process.standardOutput = handle
            process.standardError = handle
            process.currentDirectoryURL = directory
            try process.run()
            if FreePort.waitUntilListening(port: port, timeout: 30), process.isRunning,
               Self.createBucket(endpoint: "http://127.0.0.1:\(port)", bucket: bucket)
            {
                self.process = process
                self.port = port
                return
            }
            Self.kill(process)
            lastError = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(at: directory)
        throw TestSupportError("moto did not start on 127.0.0.1: \(lastError.suffix(2000))")
    }

    deinit { stop() }

    /// Stops moto (idempotent) and removes its folder.
    public func stop() {
        Self.kill(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// Creates `bucket`, readable by anyone (`x-amz-acl: public-read`), signed as a publisher signs.
    private static func createBucket(endpoint: String, bucket: String) -> Bool {
        for _ in 0..<50 {
            let result = try? CommandRunner.run("/usr/bin/curl", [
                "-s", "-o", "/dev/null", "-w", "%{http_code}", "-X", "PUT", "--aws-sigv4", "aws:amz:us-east-1:s3",
                "-u", "\(accessKey):\(secretKey)", "-H", "x-amz-content-sha256: UNSIGNED-PAYLOAD", "-H", "x-amz-acl: public-read",
                "\(endpoint)/\(bucket)",
            ])
            if result?.stdout == "200" { return true }
            usleep(100_000)
        }
        return false
    }

    /// SIGKILL to `moto_server` (the child of `timeout`) and to `timeout`; waits for both.
    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { Glibc.kill(child, SIGKILL) }
        Glibc.kill(pid, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        for child in children.split(separator: " ").compactMap({ Int32($0) }) {
            while Glibc.kill(child, 0) == 0, Date() < deadline { usleep(10_000) }
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where `moto_server` is installed, otherwise reports it as skipped; with `CI` set it
    /// always runs, so a missing moto fails it instead.
    public static var needsMoto: Self {
        .enabled("needs moto_server (tools/setup, or pip install 'moto[server]'); with CI set it runs, and fails, anyway") {
            MotoServer.testsRun
        }
    }
}
