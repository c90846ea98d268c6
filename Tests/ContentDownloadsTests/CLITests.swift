import ContentDelivery
import ContentDownloads
import Foundation
import TestSupport
import Testing

/// A child `iapcontent` process with captured output.
final class Child: @unchecked Sendable {
    let process = Process()
    let output: URL

    init(_ arguments: [String]) throws {
        output = try TemporaryDirectory.make(prefix: "child").appendingPathComponent("out.txt")
        _ = FileManager.default.createFile(atPath: output.path, contents: nil)
        process.executableURL = try CommandRunner.builtExecutable()
        process.arguments = arguments
        let handle = try FileHandle(forWritingTo: output)
        process.standardOutput = handle
        process.standardError = handle
        try process.run()
    }

    deinit { try? FileManager.default.removeItem(at: output.deletingLastPathComponent()) }

    /// Waits for exit up to `timeout` seconds (kills it after); returns the status.
    func wait(timeout: Double = 60) -> Int32 {
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(50_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        return process.terminationStatus
    }

    var text: String { (try? String(contentsOf: output, encoding: .utf8)) ?? "" }
}

/// Runs the binary to completion.
func iapcontent(_ arguments: [String], timeout: Double = 60) throws -> (status: Int32, output: String) {
    let child = try Child(arguments)
    let status = child.wait(timeout: timeout)
    return (status, child.text)
}

/// Runs the binary to completion on a thread of its own, so waiting for it holds no thread of Swift's cooperative
/// pool (other suites keep running meanwhile).
func iapcontentOffPool(_ arguments: [String], timeout: Double = 60) async throws -> (status: Int32, output: String) {
    try await offPool { try iapcontent(arguments, timeout: timeout) }
}

/// `status --json` of one product (the download's wire form: `error` as `{code, message}`).
struct StatusEntry: Decodable {
    var productID: String
    var contentVersion: String
    var state: String
    var downloadedBytes: Int64
    var expectedContentLength: Int64
    var progress: Double
    var timeRemaining: Double
    var error: DownloadError?
}

func status(_ store: Store, _ id: String) throws -> StatusEntry? {
    let result = try iapcontent(["status", "--store", store.root.path, "--json"], timeout: 20)
    guard result.status == 0 else { return nil }
    let entries = try JSONDecoder().decode([StatusEntry].self, from: Data(result.output.utf8))
    return entries.first { $0.productID == id }
}

/// Polls `status` until `condition` holds (at most `timeout` seconds).
func poll(_ store: Store, _ id: String, timeout: Double = 20, until condition: (StatusEntry) -> Bool) throws -> StatusEntry? {
    let deadline = Date().addingTimeInterval(timeout)
    var last: StatusEntry?
    while Date() < deadline {
        last = try status(store, id)
        if let last, condition(last) { return last }
        usleep(100_000)
    }
    return nil
}

/// Writes a catalog for `products` into nginx's root; returns its URL.
func writeCatalog(_ products: [CatalogProduct], to nginx: Nginx) throws -> String {
    let catalog = Catalog(products: products)
    try Catalog.encoder.encode(catalog).write(to: nginx.root.appendingPathComponent("catalog.json"))
    return nginx.baseURL + "/catalog.json"
}

@Suite("CLI across processes", .serialized)
struct CLITests {
    @Test func killMinusNineThenRerunResumesFromTheBytesOnDisk() async throws {
        let nginx = try Nginx(locationConfig: "limit_rate 2m;")
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(12 << 20, seed: 7)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("archive.bin"))
        let item = product("com.example.crash", bytes: bytes)
        let catalog = try writeCatalog([item], to: nginx)
        let store = try makeStore()
        defer { store.remove() }
        let arguments = ["download", item.productID, "--catalog", catalog, "--store", store.root.path, "--no-install"]

        let first = try Child(arguments)
        let midway = try poll(store, item.productID, timeout: 30) { $0.downloadedBytes >= 3 << 20 }
        try #require(midway?.state == "active", "the download never got going: \(first.text)")
        kill(first.process.processIdentifier, SIGKILL)
        _ = first.wait()
        let afterKill = try #require(try status(store, item.productID))
        #expect(afterKill.downloadedBytes > 0)
        #expect(afterKill.downloadedBytes < Int64(bytes.count))
        // What the killed process wrote (synced or not) and what it had fsynced and recorded.
        let writtenAtKill = try #require(
            try FileManager.default.attributesOfItem(atPath: store.partialFile(productID: item.productID).path)[.size] as? Int)
        let durableAtKill = try #require(try store.ledger().record(item.productID)).durableOffset
        #expect(Int64(writtenAtKill) >= durableAtKill)

        let second = try iapcontent(arguments)
        #expect(second.status == 0, "\(second.output)")
        let final = try #require(try status(store, item.productID))
        #expect(final.state == "finished")
        #expect(final.progress == 1)
        let archive = store.archiveFile(productID: item.productID, version: "1.0").path
        #expect(sha256Hex(file: archive) == sha256Hex(bytes))

        // Server side: same boot, so the rerun kept every byte the killed process had written (not just
        // the fsynced ones) and asked for the rest; only what sat in buffers was fetched twice.
        // Once finished, the same command reattaches, finds the verified archive and exits 0 at once.
        let third = try iapcontent(arguments, timeout: 20)
        #expect(third.status == 0, "\(third.output)")

        let requests = nginx.requests().filter { $0.request.contains("archive.bin") }
        #expect(requests.count == 2)
        let resumedAt = try #require(Int(requests[1].range.dropFirst("bytes=".count).dropLast()))
        #expect(resumedAt > 0)
        #expect(resumedAt == writtenAtKill, "durable at the kill: \(durableAtKill)")
        #expect(requests[1].status == 206)
        let refetched = requests[0].bodyBytesSent - resumedAt
        #expect(refetched <= 4 << 20, "re-fetched \(refetched) bytes")
    }

    @Test func pauseResumeCancelFromAnotherProcess() async throws {
        let nginx = try Nginx(locationConfig: "limit_rate 1m;")
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(16 << 20, seed: 8)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("archive.bin"))
        let item = product("com.example.prc", bytes: bytes)
        let catalog = try writeCatalog([item], to: nginx)
        let store = try makeStore()
        defer { store.remove() }
        let id = item.productID
        let driver = try Child(["download", id, "--catalog", catalog, "--store", store.root.path, "--no-install"])
        defer { if driver.process.isRunning { kill(driver.process.processIdentifier, SIGKILL) } }

        let running = try poll(store, id, timeout: 30) { $0.state == "active" && $0.downloadedBytes > 0 }
        try #require(running != nil, "the download never became active: \(driver.text)")
        let paused = try iapcontent(["pause", id, "--store", store.root.path])
        #expect(paused.status == 0)
        #expect(paused.output.contains("sent to the running download"))
        let pausedEntry = try #require(try poll(store, id, timeout: 3) { $0.state == "paused" })
        usleep(1_500_000)
        let stillPaused = try #require(try status(store, id))
        #expect(stillPaused.state == "paused")
        #expect(stillPaused.downloadedBytes == pausedEntry.downloadedBytes)  // nothing moves while paused
        #expect(stillPaused.timeRemaining == -1)
        #expect(try iapcontent(["pause", id, "--store", store.root.path]).status == 0)  // idempotent

        #expect(try iapcontent(["resume", id, "--store", store.root.path]).status == 0)
        #expect(try poll(store, id, timeout: 3) { $0.state == "active" && $0.downloadedBytes > pausedEntry.downloadedBytes } != nil)

        #expect(try iapcontent(["cancel", id, "--store", store.root.path]).status == 0)
        #expect(try poll(store, id, timeout: 3) { $0.state == "cancelled" } != nil)
        #expect(driver.wait(timeout: 10) == 4)  // exit status 4: cancelled
        #expect(!FileManager.default.fileExists(atPath: store.partialFile(productID: id).path))
        let resumed = nginx.requests().filter { $0.request.contains("archive.bin") }
        #expect(resumed.count == 2)
        #expect(resumed.last?.range.hasPrefix("bytes=") == true)
    }

    @Test func interruptPausesChecksPointsAndExitsThree() async throws {
        let nginx = try Nginx(locationConfig: "limit_rate 1m;")
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(6 << 20, seed: 9)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("archive.bin"))
        let item = product("com.example.int", bytes: bytes)
        let catalog = try writeCatalog([item], to: nginx)
        let store = try makeStore()
        defer { store.remove() }
        let arguments = ["download", item.productID, "--catalog", catalog, "--store", store.root.path, "--no-install"]
        let child = try Child(arguments)
        #expect(try poll(store, item.productID) { $0.downloadedBytes >= 1 << 20 } != nil)
        kill(child.process.processIdentifier, SIGINT)
        #expect(child.wait(timeout: 10) == 3)
        #expect(child.text.contains("Run the same command again to resume"))
        let entry = try #require(try status(store, item.productID))
        #expect(entry.state == "waiting")
        #expect(entry.downloadedBytes > 0)
        let size = try FileManager.default.attributesOfItem(atPath: store.partialFile(productID: item.productID).path)[.size] as? Int
        #expect(Int64(size ?? -1) == entry.downloadedBytes)  // checkpointed exactly what is on disk

        let again = try iapcontent(arguments)
        #expect(again.status == 0, "\(again.output)")
        #expect(sha256Hex(file: store.archiveFile(productID: item.productID, version: "1.0").path) == sha256Hex(bytes))
    }

    @Test func unknownProductExitsOneNamingTheCatalog() async throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let catalog = try writeCatalog([product("com.example.x", bytes: [1])], to: nginx)
        let store = try makeStore()
        defer { store.remove() }
        let result = try iapcontent(["download", "com.example.nope", "--catalog", catalog, "--store", store.root.path])
        #expect(result.status == 1)
        #expect(result.output.contains("com.example.nope is not in the catalog"))
        #expect(result.output.contains("com.example.x"))
    }
}
