import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// `iapcontent download` killed with SIGKILL at each phase, then run again: the install must be
/// byte-identical, `staging/` empty and the transaction finished exactly once.
@Suite("Content queue: kill -9 at each phase, then restart", .serialized)
struct QueueCrashTests {
    static let productID = "com.example.crash"

    /// What a run killed by the crash hook left: whether SIGKILL ended it, its status, and everything it printed.
    struct CrashedRun {
        let killed: Bool
        let status: Int32
        let output: String
    }

    /// Runs `iapcontent arguments` with the crash hook set to `phase` (`IAPCONTENT_TEST_CRASH_AT`) until it ends
    /// (at most 120 s), and returns how it ended and its output (its file removed).
    static func runKilled(_ arguments: [String], at phase: String) async throws -> CrashedRun {
        let (child, output) = try spawn(arguments, environment: ["IAPCONTENT_TEST_CRASH_AT": phase])
        defer { try? FileManager.default.removeItem(at: output) }
        try await offPool { wait(child, timeout: 120) }
        return CrashedRun(
            killed: child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL,
            status: child.terminationStatus, output: (try? String(contentsOf: output, encoding: .utf8)) ?? "")
    }

    /// Starts `iapcontent` with extra environment; output goes to a file.
    static func spawn(_ arguments: [String], environment: [String: String] = [:]) throws -> (Process, URL) {
        let output = FileManager.default.temporaryDirectory.appendingPathComponent("crash-\(UUID().uuidString).txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let handle = try FileHandle(forWritingTo: output)
        let process = Process()
        process.executableURL = try CommandRunner.builtExecutable()
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
        return (process, output)
    }

    /// Waits up to `timeout` seconds; SIGKILLs a child still running then.
    static func wait(_ process: Process, timeout: Double) {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
    }

    /// Fails at once, naming the row, when the kill left a journal row that says installed or finished while the
    /// version is not installed: recovery passes such a row by, so a rerun would wait for an install nobody makes
    /// until its timeout.
    static func requireRecoverable(_ store: Store, productID: String = productID, phase: String, output: String) throws {
        guard let row = try store.ledger().record(productID) else { return }
        let installed = store.installedVersion(forProductID: productID)?.description == row.contentVersion
        try #require(
            installed || (row.phase != TransferPhase.installed.rawValue && row.downloadState != .finished),
            """
            killed at \(phase), the journal says \(row.contentVersion) is \(row.downloadState) (phase \(row.phase)) but it is not \
            installed: a rerun would never install it
            \(output)
            """)
    }

    /// `--verify-first`: the first extracted file is written only after the archive is whole and
    /// verified. A self-kill at that point then finds the verified archive in `transfers/`; without
    /// the flag extraction follows the (rate-limited) download, so the kill finds a partial file.
    @Test("--verify-first extracts nothing before the archive is verified", arguments: [true, false])
    func verifyFirstExtractsOnlyAVerifiedArchive(verifyFirst: Bool) async throws {
        let fixture = try QueueFixture(locationConfig: "limit_rate 256k;")  // 4 s: the follower starts long before the end
        let source = try fixture.source(Self.productID, version: "1.0", size: 1 << 20)
        try fixture.publish([source])
        var arguments = ["download", Self.productID, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path]
        if verifyFirst { arguments.append("--verify-first") }
        let (child, output) = try Self.spawn(arguments, environment: ["IAPCONTENT_TEST_CRASH_AT": "extract"])
        defer { try? FileManager.default.removeItem(at: output) }
        Self.wait(child, timeout: 120)
        let firstRun = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL, "\(firstRun)")
        let partial = fixture.store.partialFile(productID: Self.productID).path
        let archive = fixture.store.archiveFile(productID: Self.productID, version: "1.0").path
        let length = try #require(try fixture.catalog().catalog.product(Self.productID)?.length)
        if verifyFirst {
            #expect(!FileManager.default.fileExists(atPath: partial))
            #expect((try? FileManager.default.attributesOfItem(atPath: archive)[.size] as? Int64) == length)
        } else {
            #expect(FileManager.default.fileExists(atPath: partial), "extraction should have started mid-download")
            #expect(!FileManager.default.fileExists(atPath: archive))
        }
        let rerun = try iapcontent(arguments, timeout: 120)
        #expect(rerun.status == 0, "\(rerun.output)")
        let installed = try #require(Store(root: fixture.store.root).contentURL(forProductID: Self.productID))
        #expect(try diffTrees(source, installed).status == 0)
    }

    @Test("killed while transferring, after verify, while extracting, after the swap; whole or chunk-indexed archive",
          arguments: ["transfer", "verify", "extract", "swap"], [false, true])
    func killAndRestart(phase: String, chunked: Bool) async throws {
        let fixture = try QueueFixture(locationConfig: phase == "transfer" ? "limit_rate 512k;" : "")
        // In place, a file grows a whole chunk (about 1 MiB) at a time: a larger file leaves time to see it grow.
        let source = try fixture.source(Self.productID, version: "1.0", size: chunked && phase == "transfer" ? 6 << 20 : 2 << 20)
        try fixture.publish([source], chunked: chunked)
        let arguments = ["download", Self.productID, "--catalog", fixture.catalogURL, "--store", fixture.store.root.path,
                         "--retry-delay", "0.1"]

        let (child, output) = try Self.spawn(arguments, environment: phase == "transfer" ? [:] : ["IAPCONTENT_TEST_CRASH_AT": phase])
        defer { try? FileManager.default.removeItem(at: output) }
        if phase == "transfer" {
            // Kill once some bytes are durable (the partial file, or the file written in place, is past its first checkpoint).
            // In place: the log of placed chunks (12 bytes a record) grows as chunks are written.
            let partial = chunked
                ? fixture.store.updateTreeDirectory(productID: Self.productID, version: "1.0").path + ".placed"
                : fixture.store.partialFile(productID: Self.productID).path
            let deadline = Date().addingTimeInterval(30)
            while Date() < deadline {
                let size = (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0
                if size > (chunked ? 12 * 4 : 256 << 10) { break }
                usleep(50_000)
            }
            kill(child.processIdentifier, SIGKILL)
        }
        Self.wait(child, timeout: 120)
        let firstRun = (try? String(contentsOf: output, encoding: .utf8)) ?? ""
        #expect(child.terminationReason == .uncaughtSignal && child.terminationStatus == SIGKILL,
                "the first run should have been killed at \(phase): status \(child.terminationStatus)\n\(firstRun)")
        if phase != "transfer" {
            // Killed at or after verification: the transaction is still unfinished.
            #expect(try StoreOverview(store: fixture.store).transactions.map(\.productID) == [Self.productID])
            try Self.requireRecoverable(fixture.store, phase: phase, output: firstRun)
        }

        let rerun = try iapcontent(arguments, timeout: 120)
        #expect(rerun.status == 0, "rerun after a kill at \(phase):\n\(rerun.output)")
        let installed = try #require(Store(root: fixture.store.root).contentURL(forProductID: Self.productID))
        #expect(rerun.output.contains("\(Self.productID): \(installed.path)"))
        #expect(try diffTrees(source, installed).status == 0)
        #expect(fixture.stagingLeftovers().isEmpty, "staging leftovers after \(phase): \(fixture.stagingLeftovers())")
        let overview = try StoreOverview(store: fixture.store)
        #expect(overview.transactions.isEmpty)
        #expect(overview.history.filter { $0.productID == Self.productID }.count == 1)
        let gets = fixture.nginx.requests().filter { $0.request.contains(".tar.zst") }
        let archiveLength = try #require(try fixture.catalog().catalog.product(Self.productID)?.length)
        let fetched = gets.map(\.bodyBytesSent).reduce(0, +)
        if phase == "verify" {
            // Installed from the verified archive or tree: every archive byte was fetched only once.
            if chunked {
                #expect(fetched == Int(archiveLength), "archive requests: \(gets.map(\.request))")
            } else {
                #expect(gets.count == 1, "archive requests: \(gets.map(\.request))")
            }
        }
        if phase == "transfer", chunked {
            // Checkpoints are 32 MiB apart, so none was made: the rerun continues with the chunks the killed run had
            // placed (this boot's log), re-fetching only the frames its connections were receiving.
            // Eight connections, frames of about 1 MiB in this package: at most one frame each.
            #expect(fetched - Int(archiveLength) < 8 << 20, "re-fetched \(fetched - Int(archiveLength)) bytes: \(gets)")
        }
        if phase == "extract" {
            // Extraction overlaps the download, so the kill may land before the last byte: then the
            // rerun resumes from the last checkpoint (every 1 MiB) and re-fetches at most that plus what sat
            // in socket buffers (nginx counts bytes it sent, not bytes the client wrote).
            if !chunked { #expect(gets.count <= 2, "archive requests: \(gets.map(\.request))") }
            let refetched = fetched - Int(archiveLength)
            #expect(refetched <= 3 << 20, "re-fetched \(refetched) bytes: \(gets)")
        }

        // A third run finds it installed and finishes nothing twice.
        let again = try iapcontent(arguments, timeout: 120)
        #expect(again.status == 0, "\(again.output)")
        #expect(try StoreOverview(store: fixture.store).history.filter { $0.productID == Self.productID }.count == 1)
    }
}
