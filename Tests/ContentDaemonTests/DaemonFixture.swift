import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Glibc
import TestSupport

/// nginx on loopback publishing packed content, a store, and `iapcontent daemon` processes on a socket in a
/// temporary folder: the daemon's end-to-end world. Everything is stopped and removed when it goes.
final class DaemonFixture: @unchecked Sendable {
    let root: URL
    let nginx: Nginx
    let storeURL: URL
    let socketPath: String
    private var catalogVersion: UInt64 = 1
    /// Signs every catalog ``publish(_:version:size:)`` writes (and the daemon then needs `--public-key`).
    var signingKey: SigningKey?
    /// Mirror base URLs every catalog ``publish(_:version:size:)`` writes lists before nginx (`baseURLs`).
    var mirrors: [String] = []
    private var daemons: [DaemonProcess] = []

    /// `locationConfig` goes into nginx's `location /` (e.g. `limit_rate 1m;`).
    init(locationConfig: String = "") throws {
        root = try TemporaryDirectory.make(prefix: "daemon")
        nginx = try Nginx(locationConfig: locationConfig)
        storeURL = root.appendingPathComponent("store", isDirectory: true)
        socketPath = root.appendingPathComponent("run/daemon.sock").path
    }

    deinit {
        for daemon in daemons { daemon.kill(SIGKILL) }
        nginx.stop()
        try? FileManager.default.removeItem(at: root)
    }

    var catalogURL: String { nginx.baseURL + "/catalog.json" }

    /// A content folder with one file of `size` incompressible bytes, packed chunk-indexed and published.
    @discardableResult
    func publish(_ productID: String, version: String = "1.0", size: Int) throws -> URL {
        let folder = root.appendingPathComponent("sources/\(productID)-\(version)", isDirectory: true)
        try PackageFixture.make(at: folder, productID: productID, version: version, files: [
            "Contents/readme.txt": Data("\(productID) \(version)\n".utf8),
            "Contents/data.bin": PackageFixture.bytes(count: size, seed: UInt64(size)),
        ])
        try publish(folder: folder)
        return folder
    }

    /// Packs `folder` chunk-indexed and publishes it, with every archive published before, as the catalog.
    func publish(folder: URL) throws {
        let packed = root.appendingPathComponent("packed", isDirectory: true)
        _ = try Packer(chunked: true).pack(folder: folder, outputDirectory: packed)
        catalogVersion += 1
        _ = try CatalogBuilder(
            inputDirectory: packed, outputDirectory: nginx.root, mirrors: mirrors, catalogVersion: catalogVersion,
            signingKey: signingKey
        ).build()
    }

    /// Starts `iapcontent daemon` on this store and socket (and `catalog`, by default ``catalogURL``).
    func startDaemon(
        _ extra: [String] = [], socket: String? = nil, catalog: String? = nil, environment: [String: String] = [:]
    ) throws -> DaemonProcess {
        let daemon = try DaemonProcess.spawn(
            ["daemon", "--store", storeURL.path, "--socket", socket ?? socketPath, "--catalog", catalog ?? catalogURL, "--retry-delay", "0.1"] + extra,
            environment: environment, log: root.appendingPathComponent("daemon-\(daemons.count).log"))
        daemons.append(daemon)
        return daemon
    }

    /// Starts a daemon, subscribes a client and adds a purchase of `productID`; returns once the client saw
    /// `bytes` downloaded (`reached` false after 60 s without). `extra` goes to the daemon's command line.
    func startPurchase(
        _ productID: String, transactionID: String, untilBytes bytes: Int, daemonArguments extra: [String] = []
    ) throws -> (daemon: DaemonProcess, client: RPCTestClient, reached: Bool) {
        let daemon = try startDaemon(extra)
        let client = try RPCTestClient(path: socketPath)
        _ = try client.result("subscribe")
        _ = try client.result("add", ["transactionID": transactionID, "productID": productID])
        let reached = client.waitForNotification(timeout: 60) { message in
            let download = (message["params"] as? [String: Any])?["download"] as? [String: Any]
            return (download?["downloadedBytes"] as? Int ?? 0) >= bytes
        } != nil
        return (daemon, client, reached)
    }

    /// Bytes of archives nginx sent so far.
    func archiveBytesSent() -> Int {
        nginx.requests().filter { $0.request.contains(".tar.zst") }.map(\.bodyBytesSent).reduce(0, +)
    }
}

/// One `iapcontent` child process with its output in a file.
final class DaemonProcess: @unchecked Sendable {
    let process: Process
    let log: URL

    /// Starts `executable` (the built `iapcontent` unless given) with `arguments`.
    static func spawn(
        _ arguments: [String], environment: [String: String] = [:], log: URL, executable: String? = nil
    ) throws -> DaemonProcess {
        _ = FileManager.default.createFile(atPath: log.path, contents: nil)
        let handle = try FileHandle(forWritingTo: log)
        let process = Process()
        process.executableURL = try executable.map { URL(fileURLWithPath: $0) } ?? CommandRunner.builtExecutable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return DaemonProcess(process: process, log: log)
    }

    private init(process: Process, log: URL) {
        self.process = process
        self.log = log
    }

    /// What it printed so far.
    var output: String { (try? String(contentsOf: log, encoding: .utf8)) ?? "" }

    /// Sends `signal` if it still runs.
    func kill(_ signal: Int32) {
        if process.isRunning { Glibc.kill(process.processIdentifier, signal) }
    }

    /// SIGTERM, then its exit status (30 s at most).
    func stop() -> Int32 {
        kill(SIGTERM)
        return wait(timeout: 30)
    }

    /// Waits up to `timeout` s for it to end (SIGKILL then); its exit status, or 128 + signal.
    @discardableResult
    func wait(timeout: Double) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(20_000) }
        if process.isRunning { Glibc.kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
    }
}

/// Whether two folders hold the same tree (`diff -r`).
func sameTree(_ a: String, _ b: String) throws -> Bool {
    try CommandRunner.run("/usr/bin/diff", ["-r", a, b]).status == 0
}
