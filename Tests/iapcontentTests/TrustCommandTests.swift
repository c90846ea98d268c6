import Foundation
import Testing
import TestSupport

/// `download --public-key/--token-key` through the built binary against `serve --token-key`:
/// a signed catalog downloads; a rolled-back one is refused before a single archive byte is fetched.
@Suite struct TrustCommandTests {
    /// Runs the binary; returns status, stdout and stderr.
    static func run(
        _ arguments: [String], in directory: URL, environment: [String: String] = [:]
    ) async throws -> (status: Int32, out: String, err: String) {
        let out = directory.appendingPathComponent("out-\(UUID().uuidString)")
        let err = directory.appendingPathComponent("err-\(UUID().uuidString)")
        for file in [out, err] { _ = FileManager.default.createFile(atPath: file.path, contents: nil) }
        defer { for file in [out, err] { try? FileManager.default.removeItem(at: file) } }
        let process = Process()
        process.executableURL = try CommandRunner.builtExecutable()
        process.arguments = arguments
        process.currentDirectoryURL = directory
        process.environment = ProcessInfo.processInfo.environment.filter { !$0.key.hasPrefix("IAPCONTENT_") }
            .merging(environment) { $1 }
        process.standardOutput = try FileHandle(forWritingTo: out)
        process.standardError = try FileHandle(forWritingTo: err)
        let status: Int32 = try await withCheckedThrowingContinuation { continuation in
            process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
            do { try process.run() } catch { continuation.resume(throwing: error) }
        }
        return (status, try String(contentsOf: out, encoding: .utf8), try String(contentsOf: err, encoding: .utf8))
    }

    /// A stand-in archive and its manifest in `folder` (the catalog builder only hashes archives).
    static func addArchive(_ productID: String, seed: UInt8, to folder: URL) throws {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let bytes = Data((0..<80_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ Int(seed)) })
        try bytes.write(to: folder.appendingPathComponent("\(productID)-1.0.tar.zst"))
        let sha = sha256(bytes)
        let manifest = """
            {"schema":1,"productID":"\(productID)","contentVersion":"1.0","archiveName":"\(productID)-1.0.tar.zst",
             "archiveSize":\(bytes.count),"archiveSHA256":"\(sha)","uncompressedSize":1,"entryCount":2,"files":[]}
            """
        try Data(manifest.utf8).write(to: folder.appendingPathComponent("\(productID)-1.0.manifest.json"))
    }

    static func sha256(_ data: Data) -> String {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("sha-\(UUID().uuidString)")
        try? data.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/sha256sum")
        process.arguments = [file.path]
        let pipe = Pipe()
        process.standardOutput = pipe
        try? process.run()
        let text = String(decoding: pipe.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        return String(text.prefix(64))
    }

    /// Keys (`sign.key`, `token.key`), then two signed catalogs of the same key: version 5 in `site/` and,
    /// built aside in `site4/`, version 4 (an older, still validly signed catalog) with one more product.
    /// Returns the public key.
    static func makeSignedCatalogs(in root: URL) async throws -> String {
        let publicKey = try await Self.run(["keygen", "--output", "sign.key"], in: root).out
            .trimmingCharacters(in: .whitespacesAndNewlines)
        #expect(try await Self.run(["keygen", "--token-key", "--output", "token.key"], in: root).status == 0)
        try Self.addArchive("com.example.maps", seed: 1, to: root.appendingPathComponent("in5"))
        let built5 = try await Self.run(
            ["catalog", "in5", "--output", "site", "--signing-key", "sign.key", "--catalog-version", "5", "--expires-in", "600"],
            in: root)
        #expect(built5.status == 0, "\(built5.err)")
        try Self.addArchive("com.example.maps", seed: 1, to: root.appendingPathComponent("in4"))
        try Self.addArchive("com.example.extra", seed: 2, to: root.appendingPathComponent("in4"))
        let built4 = try await Self.run(
            ["catalog", "in4", "--output", "site4", "--signing-key", "sign.key", "--catalog-version", "4", "--expires-in", "600"],
            in: root)
        #expect(built4.status == 0, "\(built4.err)")
        return publicKey
    }

    /// Puts version 4's catalog, signature and missing archives into the served `site/`.
    static func serveVersion4(in root: URL) throws {
        let fm = FileManager.default
        for name in ["catalog.json", "catalog.json.sig"] {
            try fm.removeItem(at: root.appendingPathComponent("site/\(name)"))
            try fm.copyItem(at: root.appendingPathComponent("site4/\(name)"), to: root.appendingPathComponent("site/\(name)"))
        }
        for name in try fm.contentsOfDirectory(atPath: root.appendingPathComponent("site4/archives").path)
        where !fm.fileExists(atPath: root.appendingPathComponent("site/archives/\(name)").path) {
            try fm.copyItem(at: root.appendingPathComponent("site4/archives/\(name)"), to: root.appendingPathComponent("site/archives/\(name)"))
        }
    }

    @Test func signedCatalogDownloadsAndARollbackIsRefused() async throws {
        let root = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-trust-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: root, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: root) }
        let publicKey = try await Self.makeSignedCatalogs(in: root)

        let serveOut = root.appendingPathComponent("serve.out")
        let (server, _) = try HostCommandsTests.startServe(try CommandRunner.builtExecutable(), output: serveOut, in: root)
        defer { if server.isRunning { kill(server.processIdentifier, SIGKILL) } }
        var base = ""
        for _ in 0..<200 where !base.hasPrefix("http") {
            base = (try String(contentsOf: serveOut, encoding: .utf8)).split(separator: "\n").first.map(String.init) ?? ""
            try await Task.sleep(for: .milliseconds(50))
        }
        try #require(base.hasPrefix("http"))
        let catalogURL = (base.hasSuffix("/") ? base : base + "/") + "catalog.json"

        // Without --token-key the archive is refused (403) and the message says so.
        let noToken = try await Self.run(
            ["download", "com.example.maps", "--catalog", catalogURL, "--store", "store0", "--public-key", publicKey,
             "--max-attempts", "1", "--no-install"], in: root)
        #expect(noToken.status == 1)
        #expect(noToken.err.contains("403"))

        let ok = try await Self.run(
            ["download", "com.example.maps", "--catalog", catalogURL, "--store", "store", "--public-key", publicKey,
             "--token-key", "token.key", "--no-install"], in: root)
        #expect(ok.status == 0, "\(ok.err)")
        #expect(ok.out.contains("finished and verified"))
        #expect(!ok.err.contains("warning"))

        // The server now serves version 4 (signed, fresh, but older): refused, nothing fetched.
        try Self.serveVersion4(in: root)
        let fm = FileManager.default
        let transfersBefore = try fm.contentsOfDirectory(atPath: root.appendingPathComponent("store/transfers").path).sorted()
        let rollback = try await Self.run(
            ["download", "com.example.extra", "--store", "store", "--token-key", "token.key", "--no-install"], in: root,
            environment: ["IAPCONTENT_CATALOG": catalogURL, "IAPCONTENT_PUBLIC_KEY": "\(publicKey)"])
        #expect(rollback.status == 1)
        #expect(rollback.err.contains("rollback"))
        #expect(rollback.err.contains("version 4") && rollback.err.contains("5"))
        #expect(try fm.contentsOfDirectory(atPath: root.appendingPathComponent("store/transfers").path).sorted() == transfersBefore)

        // A fresh store has seen nothing: version 4 is fine there, but unsigned mode warns.
        let fresh = try await Self.run(
            ["download", "com.example.extra", "--catalog", catalogURL, "--store", "store2", "--token-key", "token.key",
             "--no-install"], in: root)
        #expect(fresh.status == 0, "\(fresh.err)")
        #expect(fresh.err.contains("warning: no --public-key"))
        server.terminate()
    }
}
