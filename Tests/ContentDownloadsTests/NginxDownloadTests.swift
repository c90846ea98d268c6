import ContentDelivery
import ContentDownloads
import Foundation
import TestSupport
import Testing

@Suite("Downloads from a real nginx")
struct NginxDownloadTests {
    @Test func downloadsVerifiesAndRecordsFinished() async throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(3 << 20, seed: 1)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("a.bin"))
        let layout = try makeStore()
        defer { layout.remove() }
        let item = product("com.example.a", bytes: bytes)
        let result = try await download(item, url: nginx.baseURL + "/a.bin", store: layout, options: fastOptions())

        #expect(result.final?.state == .finished)
        #expect(result.final?.progress == 1)
        #expect(result.final?.downloadedBytes == Int64(bytes.count))
        let record = try #require(result.record)
        #expect(record.downloadState == .finished)
        #expect(record.phase == "verified")
        let archive = try #require(record.archivePath)
        #expect(sha256Hex(file: archive) == sha256Hex(bytes))
        #expect(!FileManager.default.fileExists(atPath: record.partialPath))
        #expect(record.etag != nil)  // nginx's strong ETag, for If-Range
        // States arrive in order: waiting → active → finished.
        let states = result.all.map(\.state).reduce(into: [DownloadState]()) { if $0.last != $1 { $0.append($1) } }
        #expect(states == [.waiting, .active, .finished])
        let requests = nginx.requests()
        #expect(requests.count == 1)
        #expect(requests.first?.status == 200)
        #expect(requests.first?.range == "-")
    }

    /// `--max-rate` must hold on loopback, where nginx fills the socket faster than any cap. A lower
    /// bound on the elapsed time (never an upper one): 2 MiB at 1 MiB/s cannot finish in under
    /// 1.2 s however fast the machine. With libcurl's 256 KiB buffer it took about 0.1 s.
    @Test func rateCapHoldsAgainstAFastServer() async throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(2 << 20, seed: 7)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("capped.bin"))
        let layout = try makeStore()
        defer { layout.remove() }
        var options = fastOptions()
        options.maxBytesPerSecond = 1 << 20
        let started = ContinuousClock.now
        let result = try await download(
            product("com.example.capped", bytes: bytes), url: nginx.baseURL + "/capped.bin", store: layout,
            options: options)
        let elapsed = ContinuousClock.now - started
        #expect(result.final?.state == .finished)
        #expect(elapsed >= .milliseconds(1200), "2 MiB at a 1 MiB/s cap finished in \(elapsed)")
    }

    @Test func receiveBufferShrinksWithTheCap() {
        #expect(TransferSettings.receiveBufferSize(forCap: 0) == 256 << 10)
        #expect(TransferSettings.receiveBufferSize(forCap: 1 << 20) == 16 << 10)
        #expect(TransferSettings.receiveBufferSize(forCap: 4 << 20) == 32 << 10)
        #expect(TransferSettings.receiveBufferSize(forCap: 1 << 40) == 256 << 10)
    }

    @Test func wrongCatalogHashFailsAfterOneRestart() async throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let bytes = TestData.randomBytes(300_000, seed: 3)
        try Data(bytes).write(to: nginx.root.appendingPathComponent("c.bin"))
        let layout = try makeStore()
        defer { layout.remove() }
        let item = product("com.example.c", bytes: bytes, sha: String(repeating: "ab", count: 32))
        let result = try await download(item, url: nginx.baseURL + "/c.bin", store: layout, options: fastOptions())

        #expect(result.final?.state == .failed)
        let message = try #require(result.final?.error?.message)
        #expect(message.contains("checksum mismatch"))
        #expect(message.contains(sha256Hex(bytes)))
        #expect(nginx.requests().count == 2)  // one automatic restart from zero
        #expect(result.record?.archivePath == nil)
    }

    @Test func missingArchiveFailsAtOnceWithAnActionableMessage() async throws {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let layout = try makeStore()
        defer { layout.remove() }
        let item = product("com.example.missing", bytes: [1, 2, 3])
        let result = try await download(item, url: nginx.baseURL + "/nope.bin", store: layout, options: fastOptions())
        #expect(result.final?.state == .failed)
        let message = try #require(result.final?.error?.message)
        #expect(message.contains("HTTP 404"))
        #expect(message.contains("/nope.bin"))
        #expect(message.contains("catalog may be stale"))
        #expect(nginx.requests().count == 1)
    }

    @Test func secondDriverIsRefusedWithThePID() async throws {
        let layout = try makeStore()
        defer { layout.remove() }
        let first = try DownloadManager(store: layout, options: fastOptions())
        try await first.start()
        let second = try DownloadManager(store: layout, options: fastOptions())
        do {
            try await second.start()
            Issue.record("a second driver started")
        } catch let error as DriverLockError {
            #expect(error.description.contains("is being driven by pid \(getpid())"))
        }
        await first.shutdown()
        await second.shutdown()
    }
}
