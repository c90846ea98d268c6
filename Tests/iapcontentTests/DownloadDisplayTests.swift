import Foundation
import Testing
import TestSupport

@testable import iapcontent

/// `download` with the progress display wired to a real download: a package packed by the binary,
/// a catalog built by it, served by nginx (paced with `limit_rate`) and fetched with `--max-rate`, so it
/// stays live for a few seconds.
@Suite("download: live display, JSON, plain lines and exit statuses on a real download", .serialized)
struct DownloadDisplayTests {
    /// A served catalog with one product of `size` incompressible bytes, and a store folder.
    final class World: @unchecked Sendable {
        let root: URL
        let nginx: Nginx
        let productID: String
        var store: String { root.appendingPathComponent("store").path }
        var catalogURL: String { nginx.baseURL + "/catalog.json" }
        var installed: String { root.appendingPathComponent("store/content/\(productID)").path }

        /// `serverRate` is nginx's `limit_rate` (bytes/s): the client's `--max-rate` alone lets the first
        /// burst through (libcurl 7.88 reads what the loopback socket holds before it throttles), so the
        /// server paces too and the download stays live for a few seconds.
        /// `packOptions` go to `pack` (e.g. `--single-frame` for the whole-archive path).
        init(productID: String, size: Int, serverRate: Int? = nil, packOptions: [String] = []) async throws {
            root = try TerminalBinaryTests.scratch()
            nginx = try Nginx(locationConfig: serverRate.map { "limit_rate \($0);" } ?? "")
            self.productID = productID
            let folder = root.appendingPathComponent("source")
            try PackageFixture.make(at: folder, productID: productID, version: "1.0", files: [
                "Contents/readme.txt": Data("\(productID)\n".utf8),
                "Contents/blob.bin": PackageFixture.bytes(count: size, seed: UInt64(size)),
            ])
            let dist = root.appendingPathComponent("dist").path
            let pack = try await TerminalBinaryTests.run(["pack", folder.path, "--output", dist] + packOptions, in: root)
            #expect(pack.status == 0, "\(pack.err)")
            let catalog = try await TerminalBinaryTests.run(["catalog", dist, "--output", nginx.root.path], in: root)
            #expect(catalog.status == 0, "\(catalog.err)")
        }

        deinit {
            nginx.stop()
            try? FileManager.default.removeItem(at: root)
        }

        /// `download <id> --catalog … --store …` plus `extra`.
        func download(_ extra: [String] = []) -> [String] {
            ["download", productID, "--catalog", catalogURL, "--store", store] + extra
        }

        /// Runs the binary to completion (stdout and stderr are files, not a terminal).
        func run(_ arguments: [String]) async throws -> (status: Int32, out: String, err: String) {
            try await TerminalBinaryTests.run(arguments, in: root)
        }

        /// `status --json` decoded, the entry of this product (nil before the journal exists).
        func status() async throws -> [String: Any]? {
            let result = try await run(["status", "--store", store, "--json"])
            guard result.status == 0 else { return nil }
            let entries = try #require(try JSONSerialization.jsonObject(with: Data(result.out.utf8)) as? [[String: Any]])
            return entries.first { $0["productID"] as? String == productID }
        }

        /// Polls `status --json` until the download is active with some bytes on disk (bounded).
        func waitUntilReceiving(timeout: Duration = .seconds(30)) async throws {
            let deadline = ContinuousClock.now + timeout
            while ContinuousClock.now < deadline {
                if let entry = try await status(), entry["state"] as? String == "active",
                   (entry["downloadedBytes"] as? Int ?? 0) > 0
                {
                    return
                }
                try await Task.sleep(for: .milliseconds(200))
            }
            Issue.record("the download never became active with bytes on disk")
        }
    }

    /// The keys of every `--json` progress line.
    static let keys: Set<String> = [
        "event", "productID", "contentIdentifier", "contentVersion", "state", "downloadedBytes", "expectedContentLength", "progress",
        "timeRemaining", "error",
    ]

    @Test(.enabled(if: TmuxSession.executable != nil, "needs tmux (tools/setup)"))
    func liveBarPauseResumeFromAnotherShellCtrlCAndRerun() async throws {
        // One frame: the whole-archive path keeps every checkpointed byte, so a Ctrl-C after a second or two
        // leaves bytes to resume with a range request (in place, a resume starts at a chunk, and a small package may
        // be a single chunk). 8 MiB at 256 KiB/s: 32 s, so a display slowed by a loaded machine still sees the
        // download active after the resume (with 3 MiB it could finish first).
        let world = try await World(
            productID: "com.example.live", size: 8 << 20, serverRate: 256 << 10, packOptions: ["--single-frame"])
        let binary = try CommandRunner.builtExecutable()
        let session = try TmuxSession(
            [binary.path] + world.download(["--max-rate", "262144"]), width: 110, height: 14, directory: world.root)
        defer { session.close() }
        let id = world.productID

        // The live line: product, active, a bar and an mm:ss time remaining at the end.
        let screen = try await session.waitForScreen(timeout: .seconds(40)) { screen in
            screen.contains {
                $0.hasPrefix(id) && $0.contains(" active ") && $0.contains("[█")
                    && $0.range(of: #"\d\d:\d\d$"#, options: .regularExpression) != nil
            }
        }
        #expect(screen.filter { $0.hasPrefix(id) }.count == 1)  // redrawn in place, not scrolled

        // pause / resume from another shell show up in the running display.
        let pause = try await world.run(["pause", id, "--store", world.store])
        #expect(pause.status == 0, "\(pause.err)")
        try await session.waitForScreen(timeout: .seconds(10)) { screen in
            screen.contains { $0.hasPrefix(id) && $0.contains(" paused ") }
                && screen.contains { $0.contains("is paused; run `iapcontent resume \(id)") }
        }
        let resume = try await world.run(["resume", id, "--store", world.store])
        #expect(resume.status == 0, "\(resume.err)")
        try await session.waitForScreen(timeout: .seconds(10)) { screen in
            screen.contains { $0.hasPrefix(id) && $0.contains(" active ") }
        }

        // Ctrl-C: exit 3, a final paused line, the resume hint, no escape codes left on the screen.
        try session.send("C-c")
        #expect(try await session.waitForExit(timeout: .seconds(30)) == 3)
        let final = try session.capture()
        #expect(final.filter { $0.hasPrefix(id) && $0.contains(" paused ") }.count == 1, "\(final)")
        #expect(final.contains("Paused. Run the same command again to resume."), "\(final)")
        #expect(!final.joined().contains("\u{1B}"))
        let paused = try #require(try await world.status())
        // Checkpointed: the journal keeps it waiting (or paused) for the next run, with its bytes.
        #expect(["waiting", "paused"].contains(paused["state"] as? String ?? ""), "\(paused)")
        let kept = paused["downloadedBytes"] as? Int ?? 0
        #expect(kept > 0)

        // The rerun resumes from the checkpoint (a range request) and installs.
        let rerun = try await world.run(world.download())
        #expect(rerun.status == 0, "\(rerun.out)\(rerun.err)")
        #expect(rerun.out.contains("\(id): \(world.installed)"))
        let archiveRequests = world.nginx.requests().filter { $0.request.contains(".tar.zst") }
        #expect(archiveRequests.last?.range.hasPrefix("bytes=") == true, "\(archiveRequests)")
    }

    @Test func jsonLinesOfARealDownload() async throws {
        let world = try await World(productID: "com.example.json", size: 1 << 20, serverRate: 512 << 10)
        let result = try await world.run(world.download(["--json", "--max-rate", "524288"]))
        #expect(result.status == 0, "\(result.err)")
        let lines = result.out.split(separator: "\n").map(String.init)
        var states: [String] = []
        var events: [String] = []
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any], "\(line)")
            #expect(Set(object.keys) == Self.keys, "\(line)")
            #expect(object["productID"] as? String == world.productID)
            let event = try #require(object["event"] as? String)
            events.append(event)
            if event == "state" { states.append(try #require(object["state"] as? String)) }
        }
        #expect(states.first == "waiting", "\(states)")
        #expect(states.last == "finished", "\(states)")
        #expect(states.contains("active"))
        #expect(Set(states).isSubset(of: ["waiting", "active", "finished"]), "\(states)")
        #expect(states.firstIndex(of: "active")! < states.lastIndex(of: "finished")!)
        #expect(events.contains("progress"))
        #expect(events.last == "finish")
        let last = try #require(try JSONSerialization.jsonObject(with: Data(lines.last!.utf8)) as? [String: Any])
        #expect(last["state"] as? String == "finished")
        #expect(last["progress"] as? Double == 1)
    }

    @Test func aReaderThatGoesAwayDoesNotCrashTheDownload() async throws {
        let world = try await World(productID: "com.example.pipe", size: 512 << 10, serverRate: 256 << 10)
        let binary = try CommandRunner.builtExecutable()
        // `head -1` exits after the first event; later writes hit EPIPE. The download must still install.
        let command = (["'\(binary.path)'"] + world.download(["--json"]).map { "'\($0)'" }).joined(separator: " ")
        let shell = try CommandRunner.run("/bin/bash", ["-c", "\(command) 2>/dev/null | head -1 >/dev/null; echo ${PIPESTATUS[0]}"])
        #expect(shell.stdout.trimmingCharacters(in: .whitespacesAndNewlines) == "0", "\(shell.stdout)")
        let content = try await world.run(["content", world.productID, "--store", world.store])
        #expect(content.status == 0)
        #expect(content.out.trimmingCharacters(in: .whitespacesAndNewlines) == world.installed)
    }

    @Test func plainOutputInAPipeAndStatusJSON() async throws {
        let world = try await World(productID: "com.example.plain", size: 256 << 10)
        let result = try await world.run(world.download(["--no-finish"]))
        #expect(result.status == 0, "\(result.err)")
        #expect(!result.out.contains("\u{1B}"))
        #expect(!result.out.contains("\r"))
        #expect(result.out.contains("\(world.productID) finished"), "\(result.out)")
        #expect(result.out.contains("1 file, "), "\(result.out)")
        #expect(result.out.contains("\(world.productID): \(world.installed)"))

        // Unfinished transaction: the download record keeps the StoreKit keys; the additions sit beside them.
        let unfinished = try #require(try await world.status())
        #expect(unfinished["state"] as? String == "finished")
        #expect(unfinished["contentVersion"] as? String == "1.0")
        #expect(unfinished["installedVersion"] as? String == "1.0")
        #expect(unfinished["updateAvailable"] is NSNull)
        let transactions = try #require(unfinished["transactions"] as? [[String: Any]])
        #expect(transactions.count == 1)
        #expect(transactions.first?["finished"] as? Bool == false)
        for key in ["productID", "contentIdentifier", "contentVersion", "state", "downloadedBytes", "expectedContentLength", "progress",
                    "timeRemaining", "error"] {
            #expect(unfinished[key] != nil, "status --json lacks \(key)")
        }

        // Finished: the record is gone, the installed product still listed with its history.
        let rerun = try await world.run(world.download())
        #expect(rerun.status == 0, "\(rerun.err)")
        let finished = try #require(try await world.status())
        #expect(finished["state"] as? String == "finished")
        #expect(finished["installedVersion"] as? String == "1.0")
        #expect((finished["transactions"] as? [[String: Any]])?.first?["finished"] as? Bool == true)
    }

    @Test func cancelFromAnotherProcessExits4() async throws {
        let world = try await World(productID: "com.example.cancel", size: 2 << 20, serverRate: 128 << 10)
        let binary = try CommandRunner.builtExecutable()
        let process = Process()
        process.executableURL = binary
        process.arguments = world.download(["--max-rate", "131072"])
        process.currentDirectoryURL = world.root
        let err = world.root.appendingPathComponent("download.err")
        _ = FileManager.default.createFile(atPath: err.path, contents: nil)
        process.standardOutput = FileHandle.nullDevice
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        try process.run()
        defer { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

        try await world.waitUntilReceiving()
        let cancel = try await world.run(["cancel", world.productID, "--store", world.store])
        #expect(cancel.status == 0, "\(cancel.err)")
        let deadline = ContinuousClock.now + .seconds(30)
        while process.isRunning, ContinuousClock.now < deadline { try await Task.sleep(for: .milliseconds(100)) }
        #expect(!process.isRunning)
        #expect(process.terminationStatus == 4)
        let message = try String(contentsOf: err, encoding: .utf8)
        #expect(message.contains("\(world.productID) cancelled"), "\(message)")
    }
}
