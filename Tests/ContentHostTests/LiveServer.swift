import ContentDelivery
import ContentHost
import ContentPackaging
import Foundation
import Logging

/// A real `ContentServer` on 127.0.0.1 with a free port, stopped when the body returns.
func withLiveServer<T: Sendable>(
    root: URL, tokenKey: URLTokenKey? = nil, _ body: @Sendable (URL) async throws -> T
) async throws -> T {
    var logger = Logger(label: "iapcontent.serve.test")
    logger.logLevel = .warning
    let server = ContentServer(configuration: .init(root: root, port: 0, tokenKey: tokenKey), logger: logger)
    let (ready, readyContinuation) = AsyncStream.makeStream(of: URL.self)
    let (stop, stopContinuation) = AsyncStream.makeStream(of: Void.self)
    let task = Task {
        try await server.run(until: { for await _ in stop {} }, onReady: { url in readyContinuation.yield(url) })
    }
    defer { task.cancel() }
    var iterator = ready.makeAsyncIterator()
    guard let url = await iterator.next() else { throw CurlFailure(message: "server never became ready") }
    let result: T
    do {
        result = try await body(url)
    } catch {
        stopContinuation.finish()
        _ = await task.result
        throw error
    }
    stopContinuation.finish()  // graceful shutdown, then wait for it
    try await task.value
    return result
}

/// A response as seen by the curl CLI (libcurl): status, lower-cased headers, body bytes.
struct CurlResponse {
    var status: Int
    var headers: [String: String]
    var body: Data
    /// Body bytes libcurl received (`%{size_download}`), 0 for a proper HEAD response.
    var bodyBytesReceived: Int
}

struct CurlFailure: Error, CustomStringConvertible {
    var message: String
    var description: String { message }
}

/// Runs `/usr/bin/curl -s -D <headers> -o <body> <arguments> <url>` without blocking a thread.
func curl(_ url: String, _ arguments: [String] = []) async throws -> CurlResponse {
    let directory = FileManager.default.temporaryDirectory.appendingPathComponent("curl-\(UUID().uuidString)")
    try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: directory) }
    let headerFile = directory.appendingPathComponent("headers")
    let bodyFile = directory.appendingPathComponent("body")
    let stdoutFile = directory.appendingPathComponent("stdout")
    let status = try await runProcess(
        "/usr/bin/curl",
        ["-s", "--max-time", "30", "-D", headerFile.path, "-o", bodyFile.path, "-w", "%{size_download}"]
            + arguments + [url],
        stdout: stdoutFile)
    guard status == 0 else { throw CurlFailure(message: "curl \(arguments) \(url) exited \(status)") }
    let headerText = try String(contentsOf: headerFile, encoding: .utf8)
    let lines = headerText.components(separatedBy: "\r\n")
    let statusLine = lines.first ?? ""
    guard let code = statusLine.split(separator: " ").dropFirst().first.flatMap({ Int($0) }) else {
        throw CurlFailure(message: "no status line in \(headerText)")
    }
    var headers: [String: String] = [:]
    for line in lines.dropFirst() {
        guard let colon = line.firstIndex(of: ":") else { continue }
        headers[line[..<colon].lowercased()] = line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces)
    }
    let body = (try? Data(contentsOf: bodyFile)) ?? Data()
    let downloaded = Int(try String(contentsOf: stdoutFile, encoding: .utf8)) ?? -1
    // With -I curl writes the headers into the -o file; the body proper is what curl counted.
    return CurlResponse(status: code, headers: headers, body: arguments.contains("-I") ? Data() : body,
                        bodyBytesReceived: downloaded)
}

/// Runs a program to completion, awaiting its exit status via the termination handler.
func runProcess(_ executable: String, _ arguments: [String], stdout: URL? = nil) async throws -> Int32 {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: executable)
    process.arguments = arguments
    if let stdout {
        _ = FileManager.default.createFile(atPath: stdout.path, contents: nil)
        process.standardOutput = try FileHandle(forWritingTo: stdout)
    } else {
        process.standardOutput = FileHandle.nullDevice
    }
    process.standardError = FileHandle.nullDevice
    return try await withCheckedThrowingContinuation { continuation in
        process.terminationHandler = { continuation.resume(returning: $0.terminationStatus) }
        do { try process.run() } catch { continuation.resume(throwing: error) }
    }
}

/// A catalog folder with one content-addressed archive of `size` patterned bytes.
struct HostedFolder {
    let root: URL
    let archiveBytes: Data
    let archivePath: String
    let sha256: String

    init(size: Int = 100_000) throws {
        root = FileManager.default.temporaryDirectory.appendingPathComponent("iapcontent-host-\(UUID().uuidString)")
        let input = root.appendingPathComponent("in")
        try FileManager.default.createDirectory(at: input, withIntermediateDirectories: true)
        var bytes = Data(count: size)
        for index in 0..<size { bytes[index] = UInt8(truncatingIfNeeded: index &* 31 &+ index >> 8) }
        archiveBytes = bytes
        let archive = input.appendingPathComponent("com.example.levels-1.tar.zst")
        try bytes.write(to: archive)
        let digest = try FileDigest.of(archive)
        try PackageManifest(
            productID: "com.example.levels", contentVersion: ContentVersion("1")!, archiveName: archive.lastPathComponent,
            archiveSize: digest.length, archiveSHA256: digest.sha256, uncompressedSize: Int64(size), entryCount: 2,
            files: []
        ).encoded().write(to: input.appendingPathComponent("com.example.levels-1.manifest.json"))
        let built = try CatalogBuilder(
            inputDirectory: input, outputDirectory: root.appendingPathComponent("site"), catalogVersion: 1
        ).build()
        sha256 = digest.sha256
        archivePath = try unwrap(built.catalog.products.first).path
    }

    var site: URL { root.appendingPathComponent("site") }

    func remove() {
        try? FileManager.default.removeItem(at: root)
    }
}

func unwrap<T>(_ value: T?) throws -> T {
    guard let value else { throw CurlFailure(message: "unexpected nil") }
    return value
}
