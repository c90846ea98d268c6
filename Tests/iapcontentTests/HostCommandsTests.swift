import Foundation
import Testing
import TestSupport

/// The publisher's CLI path end to end, through the built binary:
/// keygen → catalog (signed) → serve --port 0 --token-key → sign-url → curl → SIGTERM.
@Suite struct HostCommandsTests {
    /// Runs a program; returns exit status and stdout (stderr is discarded).
    static func run(_ executable: URL, _ arguments: [String], in directory: URL) async throws -> (Int32, String) {
        let output = directory.appendingPathComponent("stdout-\(UUID().uuidString)")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.standardOutput = try FileHandle(forWritingTo: output)
        process.standardError = FileHandle.nullDevice
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, try String(contentsOf: output, encoding: .utf8))
    }

    /// Run from a folder holding the program alone: one file is the client and the host.
    @Test func publishServeAndSignURL() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-cli-\(UUID().uuidString)")
        let input = root.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let binary = try Self.alone(in: root)

        let (bytes, sha) = try await Self.writeStandInArchive(in: input, root: root)
        try await Self.makeKeysAndSignedCatalog(binary, sha: sha, in: root)

        // serve --port 0: the first stdout line is the listening URL.
        let serveOut = root.appendingPathComponent("serve.out")
        let (server, exited) = try Self.startServe(binary, output: serveOut, in: root)
        defer { if server.isRunning { server.terminate() } }
        var base = ""
        for _ in 0..<200 where base.isEmpty {  // ≤ 20 s
            try await Task.sleep(for: .milliseconds(100))
            base = (try String(contentsOf: serveOut, encoding: .utf8)).split(separator: "\n").first.map(String.init) ?? ""
        }
        #expect(base.hasPrefix("http://127.0.0.1:"))
        #expect(base.hasSuffix("/"))

        let archiveURL = base + "archives/\(sha).tar.zst"
        let (signStatus, signed) = try await Self.run(
            binary,
            ["sign-url", archiveURL, "--token-key", "token.key", "--product", "com.example.maps", "--expires-in", "60"],
            in: root)
        #expect(signStatus == 0)
        let signedURL = signed.trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(signedURL.hasPrefix(archiveURL + "?product=com.example.maps&expires="))

        let curl = URL(fileURLWithPath: "/usr/bin/curl")
        let (_, unsignedCode) = try await Self.run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", archiveURL], in: root)
        #expect(unsignedCode == "403")
        let fetched = root.appendingPathComponent("fetched")
        let (_, signedCode) = try await Self.run(
            curl, ["-s", "-o", fetched.path, "-w", "%{http_code}", signedURL], in: root)
        #expect(signedCode == "200")
        #expect(try Data(contentsOf: fetched) == bytes)
        let (_, catalogCode) = try await Self.run(curl, ["-s", "-o", "/dev/null", "-w", "%{http_code}", base + "catalog.json"], in: root)
        #expect(catalogCode == "200")

        // SIGTERM: graceful shutdown, exit status 0.
        server.terminate()
        var iterator = exited.makeAsyncIterator()
        let status = await iterator.next()
        #expect(status == 0)
    }

    /// A stand-in archive (catalog only hashes it) and its manifest, as `pack` would write them; returns the
    /// archive's bytes and SHA-256.
    static func writeStandInArchive(in input: URL, root: URL) async throws -> (bytes: Data, sha: String) {
        let bytes = Data((0..<50_000).map { UInt8(truncatingIfNeeded: $0 &* 7) })
        try bytes.write(to: input.appendingPathComponent("com.example.maps-2.1.tar.zst"))
        let (_, shaLine) = try await Self.run(
            URL(fileURLWithPath: "/usr/bin/sha256sum"), [input.appendingPathComponent("com.example.maps-2.1.tar.zst").path],
            in: root)
        let sha = String(shaLine.prefix(64))
        let manifest = """
            {"schema":1,"productID":"com.example.maps","contentVersion":"2.1","archiveName":"com.example.maps-2.1.tar.zst",
             "archiveSize":\(bytes.count),"archiveSHA256":"\(sha)","uncompressedSize":1,"entryCount":2,"files":[]}
            """
        try Data(manifest.utf8).write(to: input.appendingPathComponent("com.example.maps-2.1.manifest.json"))
        return (bytes, sha)
    }

    /// `keygen` (signing key and URL-token key), then a signed `catalog` of `in/` into `site/`.
    static func makeKeysAndSignedCatalog(_ binary: URL, sha: String, in root: URL) async throws {
        let (keygen, publicKey) = try await Self.run(binary, ["keygen", "--output", "sign.key"], in: root)
        #expect(keygen == 0)
        #expect(Data(base64Encoded: publicKey.trimmingCharacters(in: .whitespacesAndNewlines))?.count == 32)
        let (tokenKeygen, _) = try await Self.run(binary, ["keygen", "--token-key", "--output", "token.key"], in: root)
        #expect(tokenKeygen == 0)
        let mode = try FileManager.default.attributesOfItem(atPath: root.appendingPathComponent("token.key").path)[
            .posixPermissions] as? Int
        #expect(mode == 0o600)

        let (catalog, report) = try await Self.run(
            binary, ["catalog", "in", "--output", "site", "--signing-key", "sign.key", "--expires-in", "600"], in: root)
        #expect(catalog == 0)
        #expect(report.contains("com.example.maps 2.1 archives/\(sha).tar.zst"))
        #expect(FileManager.default.fileExists(atPath: root.appendingPathComponent("site/catalog.json.sig").path))
    }

    /// Starts `serve site --port 0 --token-key token.key` with stdout in `output`; returns the process and a
    /// stream that yields its exit status.
    static func startServe(_ binary: URL, output: URL, in root: URL) throws -> (Process, AsyncStream<Int32>) {
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        let server = Process()
        server.executableURL = binary
        server.arguments = ["serve", "site", "--port", "0", "--token-key", "token.key"]
        server.currentDirectoryURL = root
        server.standardOutput = try FileHandle(forWritingTo: output)
        server.standardError = FileHandle.nullDevice
        let (exited, exitContinuation) = AsyncStream.makeStream(of: Int32.self)
        server.terminationHandler = { exitContinuation.yield($0.terminationStatus); exitContinuation.finish() }
        try server.run()
        return (server, exited)
    }

    /// The built program, hard-linked alone into `root/bin` (a copy where a link is impossible).
    static func alone(in root: URL) throws -> URL {
        let bin = root.appendingPathComponent("bin")
        try FileManager.default.createDirectory(at: bin, withIntermediateDirectories: true)
        let lonely = bin.appendingPathComponent("iapcontent")
        // A hard link, not a copy: a copy is a file open for writing, and a child that another test
        // forks meanwhile inherits that descriptor, so exec fails with ETXTBSY ("Text file busy").
        do { try FileManager.default.linkItem(at: try CommandRunner.builtExecutable(), to: lonely) } catch {
            try FileManager.default.copyItem(at: try CommandRunner.builtExecutable(), to: lonely)  // another file system
        }
        return lonely
    }

    /// `serve`'s help and usage errors come from the same parser as every other command.
    @Test func serveHelpAndUsageErrors() throws {
        let binary = try CommandRunner.builtExecutable()
        let help = try CommandRunner.run(binary.path, ["serve", "--help"])
        #expect(help.status == 0)
        #expect(help.stdout.contains("USAGE: iapcontent serve <directory>"))
        let usage = try CommandRunner.run(binary.path, ["serve", "site", "--bogus"])
        #expect(usage.status == 2)
        #expect(usage.stderr.contains("Unknown option '--bogus'"))
    }
}
