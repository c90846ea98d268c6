import ContentDelivery
import ContentDownloads
import Foundation
import TestSupport
import Testing

/// One test per fault the fault server can make: final state, message, SHA-256, and what the server saw.
@Suite("Faults")
final class FaultServerTests {
    private var stores: [Store] = []
    deinit { stores.forEach { $0.remove() } }

    let bytes = TestData.randomBytes(2 << 20, seed: 42)
    let mib = 1 << 20

    func run(
        _ faults: [FaultServer.Fault], options: DownloadOptions = fastOptions(), id: String = "com.example.fault",
        timeout: Double = 60
    ) async throws -> (server: FaultServer, final: DownloadSnapshot?, record: TransferRecord?, store: Store) {
        let server = try FaultServer(body: bytes, faults: faults, lifetime: 240)
        defer { server.stop() }
        let layout = try makeStore()
        stores.append(layout)
        let result = try await download(
            product(id, bytes: bytes), url: server.url(), store: layout, options: options, timeout: timeout)
        return (server, result.final, result.record, layout)
    }

    func expectVerified(_ record: TransferRecord?) throws {
        let archive = try #require(record?.archivePath)
        #expect(sha256Hex(file: archive) == sha256Hex(bytes))
    }

    @Test func droppedConnectionResumesFromTheBytesOnDisk() async throws {
        let r = try await run([.dropConnection(at: mib)])
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        let records = r.server.records
        #expect(records.count == 2)
        #expect(records[0].bodyBytesSent == mib)
        #expect(records[1].range == "bytes=\(mib)-")
        #expect(records[1].ifRange == "\"v1\"")
        #expect(records[1].status == 206)
        #expect(r.server.totalBodyBytesSent == bytes.count)  // nothing fetched twice
    }

    @Test func serviceUnavailableIsRetriedHonouringRetryAfter() async throws {
        let started = Date()
        let r = try await run([.status(503, retryAfter: 1), .status(429, retryAfter: nil)])
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        #expect(r.server.records.map(\.status) == [503, 429, 200])
        #expect(Date().timeIntervalSince(started) >= 1)  // waited the server's Retry-After
        #expect(r.record?.lastError == nil)
    }

    @Test func stalledTransferIsAbandonedAndResumed() async throws {
        // The server would stay silent for 40 s and then send the rest: a second request from the first MiB proves
        // the download noticed the stall (libcurl's low-speed check, 1 s here) and resumed before the server went on.
        // The watchdog is not that bound: the manager's retry runs on Swift's cooperative pool, which other suites'
        // blocking waits can hold for tens of seconds on two cores, so a watchdog near the retry's own time fails it.
        let r = try await run([.stall(at: mib, seconds: 40)], options: fastOptions(stall: 1), timeout: 120)
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        let records = r.server.records
        #expect(records.count == 2)
        #expect(records[1].range == "bytes=\(mib)-")
    }

    @Test func ignoredRangeRestartsFromZeroInsteadOfFailing() async throws {
        let r = try await run([.dropConnection(at: mib), .ignoreRange])
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        let records = r.server.records
        #expect(records.count == 2)
        #expect(records[1].range == "bytes=\(mib)-")
        #expect(records[1].status == 200)
        #expect(r.server.totalBodyBytesSent == mib + bytes.count)
    }

    @Test func changedETagMakesTheServerSendTheWholeFileAndWeRestart() async throws {
        let r = try await run([.dropConnection(at: mib), .changeETag("\"v2\"")])
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        let records = r.server.records
        #expect(records.count == 2)
        #expect(records[1].ifRange == "\"v1\"")
        #expect(records[1].status == 200)
        #expect(r.record?.etag == "\"v2\"")
    }

    @Test func wrongBytesOnceAreRefetchedFromZero() async throws {
        let r = try await run([.wrongByte(at: 12345)])
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        let records = r.server.records
        #expect(records.count == 2)
        #expect(records[1].range == nil)
    }

    @Test func wrongBytesTwiceFailWithAChecksumError() async throws {
        let r = try await run([.wrongByte(at: 12345), .wrongByte(at: 99)])
        #expect(r.final?.state == .failed)
        let message = try #require(r.final?.error?.message)
        #expect(message.contains("checksum mismatch"))
        #expect(message.contains(sha256Hex(bytes)))
        #expect(r.server.records.count == 2)
        #expect(r.record?.archivePath == nil)
    }

    @Test func bodyLongerThanPromisedIsAbortedAsEndlessData() async throws {
        let r = try await run([.longerBody(extra: 100_000)])
        #expect(r.final?.state == .failed)
        let message = try #require(r.final?.error?.message)
        #expect(message.contains("endless data"))
        #expect(message.contains("\(bytes.count) bytes"))
        #expect(r.server.records.count == 1)
        let partial = r.store.partialFile(productID: "com.example.fault").path
        let size = (try? FileManager.default.attributesOfItem(atPath: partial)[.size] as? Int) ?? 0
        #expect(size <= bytes.count)  // never a byte past the expected length
    }

    @Test(arguments: [false, true])
    func rangeNotSatisfiableWithTheExpectedLengthMeansComplete(crashedAfterRename: Bool) async throws {
        let server = try FaultServer(body: bytes, lifetime: 240)
        defer { server.stop() }
        let layout = try makeStore()
        defer { layout.remove() }
        let item = product("com.example.done", bytes: bytes)
        // A run that crashed after its last checkpoint: every byte durable, not yet verified.
        let journal = try layout.journal()
        let now = Date()
        try Ledger(journal: journal).save(TransferRecord(
            productID: item.productID, contentIdentifier: item.productID, contentVersion: "1.0", url: server.url(),
            expectedLength: item.length, expectedSHA256: item.sha256, etag: "\"v1\"", lastModified: nil,
            durableOffset: item.length, state: "active", phase: "downloading", attempts: 0, checksumFailures: 0,
            lastErrorCode: nil, lastError: nil, partialPath: layout.partialFile(productID: item.productID).path,
            archivePath: nil, transactionID: nil, requestedCommand: nil, maxBytesPerSecond: 0, timeRemaining: -1,
            createdAt: now, updatedAt: now))
        // Either the partial file is whole, or it was already renamed to the archive when the process died.
        let file = crashedAfterRename
            ? layout.archiveFile(productID: item.productID, version: "1.0")
            : layout.partialFile(productID: item.productID)
        try FileManager.default.createDirectory(at: layout.transfersDirectory, withIntermediateDirectories: true)
        try Data(bytes).write(to: file)
        let result = try await download(item, url: server.url(), store: layout, options: fastOptions())
        #expect(result.final?.state == .finished)
        try expectVerified(result.record)
        #expect(server.records.map(\.status) == [416])
        #expect(server.records.first?.range == "bytes=\(bytes.count)-")
        #expect(server.totalBodyBytesSent == 0)
    }

    @Test func unexpected416RestartsFromZero() async throws {
        let r = try await run([.dropConnection(at: mib), .rangeNotSatisfiable])
        #expect(r.final?.state == .finished)
        try expectVerified(r.record)
        #expect(r.server.records.map(\.status) == [200, 416, 200])
        #expect(r.server.records[2].range == nil)
    }

    @Test func notFoundFailsAtOnce() async throws {
        let r = try await run([.status(404, retryAfter: nil)])
        #expect(r.final?.state == .failed)
        let message = try #require(r.final?.error?.message)
        #expect(message.contains("HTTP 404"))
        #expect(message.contains(r.server.url()))
        #expect(r.server.records.count == 1)
    }

    @Test func persistentServerErrorsFailAfterMaxAttempts() async throws {
        let r = try await run(Array(repeating: .status(500, retryAfter: nil), count: 10), options: fastOptions(maxAttempts: 3))
        #expect(r.final?.state == .failed)
        #expect(r.final?.error?.message.contains("HTTP 500") == true)
        #expect(r.server.records.count == 3)
    }
}
