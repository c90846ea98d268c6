import ContentDelivery
import ContentDownloads
import Foundation
import TestSupport
import Testing

/// Where a restarted download resumes: at the fsynced offset after a reboot, at the partial file's
/// length when the bytes past that offset were written in this boot (a killed process leaves the page
/// cache behind), and at zero when the download was restarted on purpose. The SHA-256 over every byte
/// still decides: a bad kept tail costs a restart, never a wrong archive.
@Suite("Resuming after a crash: which bytes are kept")
struct ResumeTailTests {
    /// This boot, as the kernel names it (what the journal records at each checkpoint).
    static let thisBoot = (try? String(contentsOfFile: "/proc/sys/kernel/random/boot_id", encoding: .utf8))?
        .trimmingCharacters(in: .whitespacesAndNewlines)

    let bytes = TestData.randomBytes(2 << 20, seed: 2)

    @Test func aTailFromAnotherBootIsCutAtTheDurableOffset() async throws {
        // A power loss: the journal's checkpoint came from an earlier boot, and past it the file holds garbage.
        let run = try await resume(
            durableOffset: 700_000, writtenInBoot: "00000000-0000-4000-8000-000000000000",
            partial: Array(bytes[0..<700_000]) + [UInt8](repeating: 0xEE, count: 300_000))
        #expect(run.finished)
        #expect(run.requests.map(\.range) == ["bytes=700000-"])
        #expect(run.requests.first?.bodyBytesSent == bytes.count - 700_000)
    }

    @Test func aJournalWithoutABootKeepsOnlyTheDurableOffset() async throws {
        // A journal from before the boot was recorded (or a kernel that does not say): fsynced bytes only.
        let run = try await resume(
            durableOffset: 700_000, writtenInBoot: nil,
            partial: Array(bytes[0..<700_000]) + [UInt8](repeating: 0xEE, count: 300_000))
        #expect(run.finished)
        #expect(run.requests.map(\.range) == ["bytes=700000-"])
    }

    @Test func aTailWrittenInThisBootIsKept() async throws {
        // A kill -9: 700 000 bytes were fsynced, 1 500 000 written; the rerun asks only for the rest.
        let boot = try #require(Self.thisBoot)
        let run = try await resume(durableOffset: 700_000, writtenInBoot: boot, partial: Array(bytes[0..<1_500_000]))
        #expect(run.finished)
        #expect(run.requests.map(\.range) == ["bytes=1500000-"])
        #expect(run.requests.first?.status == 206)
        #expect(run.requests.first?.bodyBytesSent == bytes.count - 1_500_000)
    }

    @Test func aTailWrittenBeforeTheFirstCheckpointIsKept() async throws {
        // Killed before anything was fsynced: the attempt had recorded its boot when it started.
        let boot = try #require(Self.thisBoot)
        let run = try await resume(durableOffset: 0, writtenInBoot: boot, partial: Array(bytes[0..<1_000_000]))
        #expect(run.finished)
        #expect(run.requests.map(\.range) == ["bytes=1000000-"])
    }

    @Test func aBadTailFromThisBootCostsOneRestartNotAWrongArchive() async throws {
        // Same boot, but the kept bytes are wrong (a device error lost a page): the SHA-256 catches it.
        let boot = try #require(Self.thisBoot)
        let run = try await resume(
            durableOffset: 700_000, writtenInBoot: boot,
            partial: Array(bytes[0..<700_000]) + [UInt8](repeating: 0xEE, count: 300_000))
        #expect(run.finished)
        #expect(run.requests.map(\.range) == ["bytes=1000000-", "-"])  // then one restart from zero
        #expect(run.record?.checksumFailures == 1)
    }

    @Test func aRestartFromZeroDropsTheTailEvenInThisBoot() async throws {
        // The durable offset was reset (a checksum restart, a new version): nothing of the file is kept.
        let boot = try #require(Self.thisBoot)
        let run = try await resume(
            durableOffset: 700_000, writtenInBoot: boot, restartFromZero: true,
            partial: [UInt8](repeating: 0xEE, count: 300_000))
        #expect(run.finished)
        #expect(run.requests.map(\.range) == ["-"])
        #expect(run.requests.first?.status == 200)
    }

    @Test func aServerThatSendsTheWholeFileAgainResetsTheJournalAtOnce() async throws {
        // nginx with `max_ranges 0` answers the resume with 200: the transfer starts over from byte 0 and
        // checkpoints offset 0 at once (else a power loss would trust the old offset over new, unsynced
        // bytes); the boot is recorded with it. Slow enough (limit_rate) to look at the journal mid-transfer.
        // Fails without the immediate checkpoint (checked: the journal keeps 700 000 and the old ETag).
        let boot = try #require(Self.thisBoot)
        let nginx = try Nginx(locationConfig: "max_ranges 0; limit_rate 10k;")
        defer { nginx.stop() }
        let layout = try makeStore()
        defer { layout.remove() }
        let item = try leaveCrashedRun(
            nginx: nginx, store: layout, durableOffset: 700_000, etag: "\"old\"",
            writtenInBoot: "00000000-0000-4000-8000-000000000000", partial: Array(bytes[0..<700_000]))

        let manager = try DownloadManager(store: layout, options: fastOptions())
        try await manager.start()
        try await manager.enqueue(item, url: nginx.baseURL + "/b.bin", plan: .wholeArchive)
        // At 10 KB/s the new attempt needs 70 s to pass the old offset again: any row this boot wrote
        // before then must show the restart, not the old 700 000 (a loaded test run can starve this
        // polling task and the manager for tens of seconds, hence the slow server and the long deadline).
        var reset: TransferRecord?
        var last: TransferRecord?
        let journal = try layout.journal()
        let deadline = Date().addingTimeInterval(60)
        while Date() < deadline {
            last = try Ledger(journal: journal).record(item.productID)
            if let row = last, row.writtenInBoot == boot {
                reset = row
                break
            }
            try await Task.sleep(for: .milliseconds(20))
        }
        await manager.shutdown()
        let row = try #require(reset, "no journal row from this boot within 60 s; last: \(String(describing: last)); nginx: \(nginx.requests())")
        #expect(row.durableOffset < 700_000, "\(row)")
        #expect(row.etag != "\"old\"")  // the old validator is gone (the new response's may be there)
        // nginx logs the request once it notices the closed connection (its rate limiter may be asleep).
        let logDeadline = Date().addingTimeInterval(15)
        while nginx.requests().isEmpty, Date() < logDeadline { try await Task.sleep(for: .milliseconds(50)) }
        #expect(nginx.requests().first?.range == "bytes=700000-")
    }

    /// Leaves what a crashed run would (a journal row and a partial file), then downloads from nginx.
    private func resume(
        durableOffset: Int, writtenInBoot: String?, restartFromZero: Bool = false, partial: [UInt8]
    ) async throws -> (finished: Bool, requests: [Nginx.LoggedRequest], record: TransferRecord?) {
        let nginx = try Nginx()
        defer { nginx.stop() }
        let layout = try makeStore()
        defer { layout.remove() }
        let item = try leaveCrashedRun(
            nginx: nginx, store: layout, durableOffset: durableOffset, writtenInBoot: writtenInBoot,
            restartFromZero: restartFromZero, partial: partial)

        let result = try await download(item, url: nginx.baseURL + "/b.bin", store: layout, options: fastOptions())
        let finished = result.final?.state == .finished
            && sha256Hex(file: result.record?.archivePath ?? "/nonexistent") == sha256Hex(bytes)
        return (finished, nginx.requests(), result.record)
    }

    /// Serves the archive from `nginx` and leaves in `layout` what a crashed run would: an `active`
    /// journal row and a partial file. Returns the catalog product.
    private func leaveCrashedRun(
        nginx: Nginx, store: Store, durableOffset: Int, etag: String? = nil, writtenInBoot: String?,
        restartFromZero: Bool = false, partial: [UInt8]
    ) throws -> CatalogProduct {
        try Data(bytes).write(to: nginx.root.appendingPathComponent("b.bin"))
        let item = product("com.example.b", bytes: bytes)
        var record = TransferRecord(
            productID: item.productID, contentIdentifier: item.productID, contentVersion: "1.0",
            url: nginx.baseURL + "/b.bin", expectedLength: item.length, expectedSHA256: item.sha256,
            etag: etag, durableOffset: Int64(durableOffset), writtenInBoot: writtenInBoot, state: "active",
            partialPath: store.partialFile(productID: item.productID).path)
        if restartFromZero { record.durableOffset = 0 }  // what every restart from zero does
        try store.ledger().save(record)
        try Data(partial).write(to: store.partialFile(productID: item.productID))
        return item
    }
}

/// The record-level rules, without a server.
@Suite struct WrittenInBootRecordTests {
    @Test func resettingTheOffsetForgetsTheBoot() {
        var record = TransferRecord(
            productID: "p", contentIdentifier: "p", contentVersion: "1", url: "http://127.0.0.1/p", expectedLength: 10,
            expectedSHA256: String(repeating: "c", count: 64), durableOffset: 5, writtenInBoot: "boot-a", partialPath: "/tmp/p")
        record.durableOffset = 8
        #expect(record.writtenInBoot == "boot-a")
        record.durableOffset = 0
        #expect(record.writtenInBoot == nil)
        #expect(!record.keepsWrittenTail)
    }
}
