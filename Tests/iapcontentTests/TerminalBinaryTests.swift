import ContentCommandLine
import Foundation
import Testing
import TestSupport

@testable import iapcontent

/// The built `iapcontent` binary as a person and a script meet it: exit statuses, messages, and a real
/// terminal (tmux) for the live display and Ctrl-C.
@Suite struct TerminalBinaryTests {
    static func scratch() throws -> URL {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-term-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        return root
    }

    /// Runs the binary; returns status, stdout and stderr.
    static func run(_ arguments: [String], in directory: URL, environment: [String: String] = [:]) async throws
        -> (status: Int32, out: String, err: String)
    {
        let binary = try CommandRunner.builtExecutable()
        let out = directory.appendingPathComponent("out-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("err-\(UUID().uuidString)")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        process.standardInput = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    @Test func usageErrorsExit2AndFailuresExit1WithoutStackTraces() async throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }

        let unknown = try await Self.run(["--no-such-option"], in: root)
        #expect(unknown.status == 2)
        #expect(unknown.err.contains("--no-such-option"))

        let missing = try await Self.run(["sign-url"], in: root)
        #expect(missing.status == 2)
        #expect(missing.err.contains("Usage:"))

        let failed = try await Self.run(["catalog", "no-such-folder", "--output", "site"], in: root)
        #expect(failed.status == 1)
        #expect(failed.err.hasPrefix("iapcontent: error: "))
        #expect(failed.err.contains("no-such-folder"))
        for text in ["Fatal error", "Stack dump", "0x0000", "Swift.", "Error Domain"] {
            #expect(!failed.err.contains(text), "stderr: \(failed.err)")
        }

        let help = try await Self.run(["--help"], in: root)
        #expect(help.status == 0)
        #expect(help.out.contains("EXIT STATUS:"))
        #expect(help.out.contains("IAPCONTENT_STORE"))
    }

    @Test func pipedProgressIsPlainAndJSONParses() async throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }

        let plain = try await Self.run(["display-demo", "--seconds", "0.5"], in: root, environment: ["TERM": "xterm-256color"])
        #expect(!plain.out.contains("\u{1B}"))
        #expect(plain.out.contains("com.example.maps.europe finished"))
        #expect(plain.out.contains("2 files, "))
        #expect(plain.status == 1)  // the stalled one never finishes

        let json = try await Self.run(["display-demo", "--seconds", "0.5", "--json"], in: root)
        let lines = json.out.split(separator: "\n").map(String.init)
        #expect(lines.count > 6)
        var finishes = 0
        for line in lines {
            let object = try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
            #expect(Set(object.keys) == TerminalWritersTests.keys, "\(line)")
            if object["event"] as? String == "finish" { finishes += 1 }
        }
        #expect(finishes == 3)
    }

    @Test(.enabled(if: TmuxSession.executable != nil, "needs tmux (tools/setup)"))
    func liveDisplayInATerminalAndCleanCtrlC() async throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = try CommandRunner.builtExecutable()
        let session = try TmuxSession([binary.path, "display-demo", "--seconds", "120"], width: 90, height: 12, directory: root)
        defer { session.close() }

        // One live line per download with a bar, percent, bytes and an mm:ss ETA. Up to 60 s: with the whole suite
        // running on 2 cores, tmux and the program can take that long to draw.
        let screen = try await session.waitForScreen(timeout: .seconds(60)) { screen in
            screen.contains { $0.hasPrefix("com.example.maps.europe") && $0.contains("[█") && $0.range(of: #"\d\d:\d\d$"#, options: .regularExpression) != nil }
        }
        let live = screen.filter { $0.hasPrefix("com.example.") }
        #expect(live.count == 3)  // redrawn in place, not scrolled
        for line in screen { #expect(line.count < 90) }
        #expect(live.allSatisfy { $0.contains(" active ") })

        try session.send("C-c")
        #expect(try await session.waitForExit() == 3)
        let final = try session.capture()
        let finalRows = final.filter { $0.hasPrefix("com.example.") }
        #expect(finalRows.count == 3)
        #expect(finalRows.allSatisfy { $0.contains(" paused ") })
        #expect(final.contains("Paused. Run the same command again to resume."))
        #expect(!final.joined().contains("\u{1B}"))
    }

    @Test(.enabled(if: TmuxSession.executable != nil, "needs tmux (tools/setup)"))
    func serveStopsCleanlyOnCtrlCInATerminal() async throws {
        let root = try Self.scratch()
        defer { try? FileManager.default.removeItem(at: root) }
        let site = root.appendingPathComponent("site")
        try FileManager.default.createDirectory(at: site, withIntermediateDirectories: true)
        let binary = try CommandRunner.builtExecutable()
        let session = try TmuxSession([binary.path, "serve", site.path, "--port", "0", "--quiet"], width: 100, height: 10, directory: root)
        defer { session.close() }
        try await session.waitForScreen { $0.contains { $0.hasPrefix("http://127.0.0.1:") } }
        try session.send("C-c")
        #expect(try await session.waitForExit() == 0)
        let screen = try session.capture().joined(separator: "\n")
        #expect(!screen.contains("Fatal error"))
        #expect(!screen.contains("Stack dump"))
    }

    @Test func readmeExitTableMatches() throws {
        let readme = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("README.md")
        let text = try String(contentsOf: readme, encoding: .utf8)
        for status in ExitStatus.allCases.map(\.rawValue) { #expect(text.contains("| \(status) |"), "README lacks exit status \(status)") }
    }

}
