import ContentDelivery
import ContentDownloads
import Foundation
import TestSupport
import Testing

@Suite("Queue: concurrency limit and in-process commands")
struct QueueTests {
    @Test func neverRunsMoreThanTheConcurrencyLimitAndFinishesAll() async throws {
        let nginx = try Nginx(locationConfig: "limit_rate 4m;")
        defer { nginx.stop() }
        var items: [CatalogProduct] = []
        var payloads: [String: [UInt8]] = [:]
        for index in 0..<4 {
            let bytes = TestData.randomBytes(1 << 20, seed: UInt64(100 + index))
            try Data(bytes).write(to: nginx.root.appendingPathComponent("p\(index).bin"))
            let item = product("com.example.q\(index)", bytes: bytes)
            items.append(item)
            payloads[item.productID] = bytes
        }
        let layout = try makeStore()
        defer { layout.remove() }
        var options = fastOptions()
        options.concurrency = 2
        let manager = try DownloadManager(store: layout, options: options)
        let updates = manager.updates
        try await manager.start()
        for (index, item) in items.enumerated() { try await manager.enqueue(item, url: nginx.baseURL + "/p\(index).bin", plan: .wholeArchive) }

        let watchdog = Task {
            try await Task.sleep(for: .seconds(60))
            await manager.shutdown()
        }
        var states: [String: DownloadState] = [:]
        var transferring: Set<String> = []
        var mostActive = 0
        for await snapshot in updates {
            states[snapshot.productID] = snapshot.state
            // The limit is on transfers: a verified download that is still installing (state
            // `active`, every byte on disk) no longer holds a slot.
            if snapshot.state == .active, snapshot.downloadedBytes < snapshot.expectedContentLength {
                transferring.insert(snapshot.productID)
            } else {
                transferring.remove(snapshot.productID)
            }
            mostActive = max(mostActive, transferring.count)
            if states.count == items.count, states.values.allSatisfy({ !$0.isInFlight }) { break }
        }
        watchdog.cancel()
        await manager.shutdown()

        #expect(mostActive == 2)
        #expect(states.values.allSatisfy { $0 == .finished })
        for item in items {
            let record = try #require(try layout.ledger().record(item.productID))
            #expect(sha256Hex(file: try #require(record.archivePath)) == sha256Hex(payloads[item.productID]!))
        }
        #expect(nginx.requests().count == 4)
    }

    @Test func pauseResumeCancelAreIdempotentOnWaitingDownloads() async throws {
        let layout = try makeStore()
        defer { layout.remove() }
        var options = fastOptions()
        options.concurrency = 1
        let server = try FaultServer(body: TestData.randomBytes(4 << 20, seed: 5), chunkDelay: 0.05, lifetime: 240)
        defer { server.stop() }
        let manager = try DownloadManager(store: layout, options: options)
        try await manager.start()
        let first = product("com.example.first", bytes: server.body)
        let second = product("com.example.second", bytes: server.body)
        try await manager.enqueue(first, url: server.url(), plan: .wholeArchive)
        try await manager.enqueue(second, url: server.url(), plan: .wholeArchive)
        #expect(await manager.snapshot(of: second.productID)?.state == .waiting)  // limit 1: it waits

        await manager.pause(second.productID)
        await manager.pause(second.productID)
        #expect(await manager.snapshot(of: second.productID)?.state == .paused)
        await manager.resume(second.productID)
        await manager.resume(second.productID)
        #expect(await manager.snapshot(of: second.productID)?.state == .waiting)
        await manager.cancel(second.productID)
        await manager.cancel(second.productID)
        #expect(await manager.snapshot(of: second.productID)?.state == .cancelled)
        await manager.resume(second.productID)  // a cancelled download stays cancelled
        #expect(await manager.snapshot(of: second.productID)?.state == .cancelled)

        await manager.cancel(first.productID)  // active → cancelled, partial data deleted
        #expect(await manager.snapshot(of: first.productID)?.state == .cancelled)
        await manager.shutdown()
        #expect(!FileManager.default.fileExists(atPath: layout.partialFile(productID: first.productID).path))
        #expect(try layout.ledger().record(first.productID)?.state == "cancelled")
        #expect(try layout.ledger().record(second.productID)?.state == "cancelled")
    }
}

@Suite("Post-verify hook (installer seam)")
struct PostVerifyTests {
    actor Calls {
        var archives: [VerifiedArchive] = []
        func add(_ archive: VerifiedArchive) { archives.append(archive) }
    }

    @Test func finishedOnlyAfterTheStepReturnsAndFailedWhenItThrows() async throws {
        let bytes = TestData.randomBytes(200_000, seed: 11)
        let server = try FaultServer(body: bytes, lifetime: 240)
        defer { server.stop() }

        let layout = try makeStore()
        defer { layout.remove() }
        let calls = Calls()
        let manager = try DownloadManager(store: layout, options: fastOptions())
        await manager.setPostVerifyStep { archive in
            // The archive is complete and verified when the installer sees it.
            #expect(sha256Hex(file: archive.archivePath) == sha256Hex(bytes))
            await calls.add(archive)
        }
        try await manager.start()
        try await manager.enqueue(product("com.example.ok", bytes: bytes), url: server.url(), plan: .wholeArchive)
        let seen = await runToEnd(manager, "com.example.ok")
        #expect(seen.last?.state == .finished)
        #expect(await calls.archives.map(\.productID) == ["com.example.ok"])
        #expect(await calls.archives.first?.contentVersion == "1.0")

        let failing = try DownloadManager(store: layout, options: fastOptions())
        await failing.setPostVerifyStep { _ in
            throw DownloadError(code: .io, message: "installer refused: disk full")
        }
        try await failing.start()
        try await failing.enqueue(product("com.example.bad", bytes: bytes), url: server.url(), plan: .wholeArchive)
        let bad = await runToEnd(failing, "com.example.bad")
        #expect(bad.last?.state == .failed)
        #expect(bad.last?.error?.message == "installer refused: disk full")
        #expect(try layout.ledger().record("com.example.bad")?.phase == "verified")
    }
}

@Suite("Observer updates")
struct UpdateTests {
    @Test func progressIsThrottledAndMonotonicAndStateChangesAllArrive() async throws {
        let bytes = TestData.randomBytes(2 << 20, seed: 12)
        // 32 chunks of 64 KiB, 50 ms apart: about 1.6 s of steady progress.
        let server = try FaultServer(body: bytes, chunkDelay: 0.05, lifetime: 240)
        defer { server.stop() }
        let layout = try makeStore()
        defer { layout.remove() }
        let started = Date()
        let result = try await download(product("com.example.updates", bytes: bytes), url: server.url(), store: layout, options: fastOptions())
        let elapsed = Date().timeIntervalSince(started)

        #expect(result.final?.state == .finished)
        let progressOnly = zip(result.all, result.all.dropFirst()).filter { $0.state == $1.state }.count
        #expect(progressOnly >= 1)
        #expect(Double(progressOnly) <= elapsed * 10 + 2, "\(progressOnly) updates in \(elapsed) s")
        let bytesSeen = result.all.map(\.downloadedBytes)
        #expect(bytesSeen == bytesSeen.sorted())  // never goes backwards without a restart
        #expect(result.all.allSatisfy { (0...1).contains($0.progress) })
        #expect(result.all.filter { $0.state != .active }.allSatisfy { $0.timeRemaining == -1 || $0.state == .finished })
    }
}

@Suite("Bandwidth caps")
struct BandwidthTests {
    @Test func capsDoNotBreakResumeOrVerification() async throws {
        // Smoke test of the cap plumbing (global share + per-download cap, changed mid-transfer);
        // no timing assertion — libcurl's rate limiting is "not an exact science".
        let bytes = TestData.randomBytes(1 << 20, seed: 13)
        let server = try FaultServer(body: bytes, faults: [.dropConnection(at: 300_000)], lifetime: 240)
        defer { server.stop() }
        let layout = try makeStore()
        defer { layout.remove() }
        var options = fastOptions()
        options.maxBytesPerSecond = 8 << 20
        let manager = try DownloadManager(store: layout, options: options)
        try await manager.start()
        let item = product("com.example.capped", bytes: bytes)
        try await manager.enqueue(item, url: server.url(), plan: .wholeArchive)
        await manager.setRateLimit(item.productID, bytesPerSecond: 4 << 20)
        let seen = await runToEnd(manager, item.productID)
        #expect(seen.last?.state == .finished)
        #expect(try layout.ledger().record(item.productID)?.maxBytesPerSecond == 4 << 20)
        #expect(sha256Hex(file: layout.archiveFile(productID: item.productID, version: "1.0").path) == sha256Hex(bytes))
        #expect(server.records.map(\.status) == [200, 206])
    }
}
