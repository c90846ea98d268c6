import ContentDelivery
@testable import ContentDownloads
import ContentPackaging
import Foundation
import Testing
import TestSupport

/// A chunk plan fetches from every mirror at once; a mirror that fails for the archive (404, a stall while the
/// other delivers, a corrupt chunk) is dropped for the download and its chunks come from the other, costing at
/// most the frames it had in flight.
@Suite("Chunk scheduler: mirrors")
struct MirrorSchedulerTests {
    /// Downloads `fixture` from two servers at once.
    static func download(_ fixture: ChunkedFixture, _ first: FaultServer, _ second: FaultServer, timeout: Double = 60)
        async throws -> DownloadSnapshot?
    {
        try fixture.keepManifest()
        var options = fastOptions()
        options.transfer.connections = 4
        let manager = try DownloadManager(store: fixture.store, options: options)
        let updates = manager.updates
        try await manager.start()
        try await manager.enqueue(fixture.product(), candidates: [first.url(), second.url()], catalogURL: nil, plan: .chunks)
        return await runToEnd(manager, fixture.manifest.productID, updates: updates, timeout: timeout).last
    }

    static func largestFrame(_ fixture: ChunkedFixture) -> Int { Int(fixture.manifest.chunks!.map(\.length).max()!) }

    @Test func twoHealthyMirrorsBothServeAShare() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let first = try FaultServer(body: fixture.archive), second = try FaultServer(body: fixture.archive)
        defer { first.stop(); second.stop() }
        let final = try await Self.download(fixture, first, second)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        #expect(first.totalBodyBytesSent > 0 && second.totalBodyBytesSent > 0, "\(first.totalBodyBytesSent) + \(second.totalBodyBytesSent)")
        #expect(first.totalBodyBytesSent + second.totalBodyBytesSent == fixture.archive.count, "nothing fetched twice")
    }

    @Test func aMirrorThat404sIsDroppedAndTheOtherServesEverything() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        let missing = try FaultServer(body: fixture.archive, faults: Array(repeating: .status(404, retryAfter: nil), count: 50))
        let good = try FaultServer(body: fixture.archive)
        defer { missing.stop(); good.stop() }
        let final = try await Self.download(fixture, missing, good)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        #expect(missing.records.count == 1, "one request finds the 404; the mirror is dropped: \(missing.records.count)")
        #expect(good.totalBodyBytesSent == fixture.archive.count, "\(good.records.map { "\($0.status) \($0.range ?? "-") \($0.bodyBytesSent)" })")
    }

    @Test func aMirrorThatStallsIsDroppedWithinSecondsAndCostsOnlyItsFrameInFlight() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let chunks = try #require(fixture.manifest.chunks)
        // Every reply of the first mirror goes silent after 100 KiB of its range.
        let stalling = try FaultServer(
            body: fixture.archive,
            faults: chunks.map { .stall(at: Int($0.offset) + (100 << 10), seconds: 60) }, lifetime: 90)
        let good = try FaultServer(body: fixture.archive)
        defer { stalling.stop(); good.stop() }
        let started = Date()
        let final = try await Self.download(fixture, stalling, good, timeout: 120)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        // Alone it ends in about 4 s (the stall is noticed after `stallSeconds`); under a full parallel test run it
        // has taken up to 50 s, not yet explained, so the time is reported, not asserted.
        print("stalled mirror: download took \(Date().timeIntervalSince(started)) s")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        let refetched = stalling.totalBodyBytesSent + good.totalBodyBytesSent - fixture.archive.count
        #expect(refetched <= stalling.records.count * Self.largestFrame(fixture), "re-fetched \(refetched) bytes")
    }

    @Test func aMirrorThatCorruptsAChunkCostsThatChunk() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let chunks = try #require(fixture.manifest.chunks)
        let bad = Int(chunks[3].offset + 10)
        let corrupt = try FaultServer(body: fixture.archive, faults: Array(repeating: .wrongByte(at: bad), count: 50))
        let good = try FaultServer(body: fixture.archive)
        defer { corrupt.stop(); good.stop() }
        let final = try await Self.download(fixture, corrupt, good)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        let refetched = corrupt.totalBodyBytesSent + good.totalBodyBytesSent - fixture.archive.count
        // The corrupt chunk again, plus the frames the dropped mirror had in flight on its other connections.
        #expect(refetched <= corrupt.records.count * Self.largestFrame(fixture), "re-fetched \(refetched) bytes")
    }

    @Test func aCorruptByteCostsOnlyItsChunkFetchedAgainFromTheOtherMirror() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let chunks = try #require(fixture.manifest.chunks)
        // The first mirror takes the first run (chunk 0 on): one byte of chunk 0 is wrong in every reply that covers
        // it. It paces its replies, so its connections have frames in flight when the bad chunk is found.
        let bad = Int(chunks[0].offset + 10)
        let corrupt = try FaultServer(body: fixture.archive, faults: Array(repeating: .wrongByte(at: bad), count: 50), chunkDelay: 0.01)
        let good = try FaultServer(body: fixture.archive)
        defer { corrupt.stop(); good.stop() }
        let final = try await Self.download(fixture, corrupt, good)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        let covering = corrupt.records.filter { $0.range?.hasPrefix("bytes=0-") == true }
        #expect(covering.count == 1, "the corrupt mirror was asked for chunk 0 once: \(corrupt.records.map { $0.range ?? "-" })")
        let refetched = corrupt.totalBodyBytesSent + good.totalBodyBytesSent - fixture.archive.count
        #expect(refetched == Int(chunks[0].length), "re-fetched \(refetched) bytes; chunk 0 is \(chunks[0].length)")
    }

    @Test func aMirrorAnswering429IsLeftAloneForItsRetryAfterAndCostsTheOtherNoConnection() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        // Every archive request to the first mirror gets 429 with a Retry-After longer than the download; the second
        // paces its replies so the requests of its connections overlap.
        let refusing = try FaultServer(body: fixture.archive, faults: Array(repeating: .status(429, retryAfter: 30), count: 50))
        let good = try FaultServer(body: fixture.archive, chunkDelay: 0.01)
        defer { refusing.stop(); good.stop() }
        let final = try await Self.download(fixture, refusing, good)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        #expect(refusing.records.count == 1, "its Retry-After is honoured: \(refusing.records.map(\.status))")
        // The download's four connections all went to the healthy mirror: its own connections were not reduced.
        #expect(good.peakConcurrentRequests >= 4, "the healthy mirror had at most \(good.peakConcurrentRequests) requests at once")
        #expect(good.totalBodyBytesSent == fixture.archive.count, "nothing fetched twice: \(good.totalBodyBytesSent)")
    }

    @Test func aMirrorThatKeepsRefusingIsDroppedForTheDownload() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        let refusing = try FaultServer(body: fixture.archive, faults: Array(repeating: .status(503, retryAfter: 0), count: 50))
        let good = try FaultServer(body: fixture.archive, chunkDelay: 0.005)
        defer { refusing.stop(); good.stop() }
        let final = try await Self.download(fixture, refusing, good)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        // A `HEAD` probe for several ranges (refused, it only means one range per request) is not a refusal.
        let gets = refusing.records.filter { $0.range != "bytes=0-0,2-2" }
        #expect(gets.count == 3, "dropped after three refusals: \(refusing.records.map { $0.range ?? "-" })")
        #expect(good.totalBodyBytesSent == fixture.archive.count)
    }

    @Test func aMirrorsBackOffIsItsOwn() {
        var mirror = ChunkScheduler.Mirror(url: "http://127.0.0.1:1/a")
        #expect(mirror.mayHold(16, now: 0))
        mirror.slowDown(retryAfter: 5, holding: 4, now: 100)
        #expect(mirror.connectionCap == 2 && mirror.failures == 1)
        #expect(!mirror.mayHold(1, now: 104.9), "not before its Retry-After")
        #expect(mirror.mayHold(2, now: 105) && !mirror.mayHold(3, now: 105), "half the connections it held")
        mirror.slowDown(retryAfter: nil, holding: 2, now: 105)
        #expect(mirror.connectionCap == 1 && mirror.retryAt == 106)
        mirror.slowDown(retryAfter: 600, holding: 1, now: 106)
        #expect(mirror.connectionCap == 1 && mirror.retryAt == 166, "at least one connection; at most a minute's wait")
    }

    /// `fixture.archive` with one byte flipped in the middle of the first stored (raw) block of each of `chunks`'
    /// frames: every such frame is still a well-formed zstd frame (no content checksum) that decodes to as many bytes
    /// as before, but other bytes, so only the chunk's signed SHA-256 can tell. Checked with the `zstd` tool.
    static func archiveWithWrongContent(_ fixture: ChunkedFixture, chunks indices: [Int]) throws -> [UInt8] {
        let chunks = try #require(fixture.manifest.chunks)
        var archive = fixture.archive
        let scratch = try TemporaryDirectory.make(prefix: "frame")
        defer { try? FileManager.default.removeItem(at: scratch) }
        for index in indices {
            let chunk = chunks[index]
            let start = Int(chunk.offset)
            let frame = Array(archive[start..<(start + Int(chunk.length))])
            let inside = try #require(Self.storedBlockMiddle(frame), "chunk \(index)'s frame has no stored block")
            archive[start + inside] ^= 0x5A
            // The altered frame decodes, to the chunk's length, and not to the chunk's bytes.
            let altered = scratch.appendingPathComponent("\(index).zst"), decoded = scratch.appendingPathComponent("\(index).bin")
            try Data(archive[start..<(start + Int(chunk.length))]).write(to: altered)
            let run = try CommandRunner.run("/usr/bin/zstd", ["-d", "-q", "-f", altered.path, "-o", decoded.path])
            try #require(run.status == 0, "the altered frame of chunk \(index) does not decode: \(run.stderr)")
            let bytes = try Data(contentsOf: decoded)
            try #require(bytes.count == Int(chunk.uncompressedLength))
            try #require(sha256Hex(Array(bytes)) != chunk.sha256.lowercased())
        }
        return archive
    }

    /// The offset in a zstd `frame` of the middle byte of its first stored block (RFC 8878 §3.1.1), if any.
    static func storedBlockMiddle(_ frame: [UInt8]) -> Int? {
        guard frame.count > 8, Array(frame[0..<4]) == [0x28, 0xB5, 0x2F, 0xFD] else { return nil }
        let descriptor = frame[4]
        let singleSegment = descriptor & 0x20 != 0
        var position = 5 + (singleSegment ? 0 : 1) + [0, 1, 2, 4][Int(descriptor & 0x03)]
        position += [singleSegment ? 1 : 0, 2, 4, 8][Int(descriptor >> 6)]
        while position + 3 <= frame.count {
            let header = Int(frame[position]) | Int(frame[position + 1]) << 8 | Int(frame[position + 2]) << 16
            let last = header & 1 != 0, type = (header >> 1) & 3, size = header >> 3
            position += 3
            if type == 0, size >= 2, position + size <= frame.count { return position + size / 2 }
            position += type == 1 ? 1 : size
            if last { break }
        }
        return nil
    }

    @Test func aMirrorThatServesWellFormedFramesOfOtherBytesCostsThoseChunks() async throws {
        // Unlike a flipped header, these frames decode: only the chunks' signed SHA-256 refuses them.
        let fixture = try ChunkedFixture.standard(megabytes: 12)
        let chunks = try #require(fixture.manifest.chunks)
        let lying = try FaultServer(body: try Self.archiveWithWrongContent(fixture, chunks: Array(chunks.indices.filter {
            Self.storedBlockMiddle(Array(fixture.archive[Int(chunks[$0].offset)..<Int(chunks[$0].offset + chunks[$0].length)])) != nil
        })))
        let good = try FaultServer(body: fixture.archive)
        defer { lying.stop(); good.stop() }
        let final = try await Self.download(fixture, lying, good)
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        #expect(lying.totalBodyBytesSent > 0, "the lying mirror was asked for chunks")
        // Each frame of the lying mirror was fetched again from the good one once at most: the good one sent no
        // byte twice, and nothing more than the frames the lying one had in flight was fetched twice.
        #expect(good.totalBodyBytesSent <= fixture.archive.count, "\(good.records.map { "\($0.status) \($0.range ?? "-") \($0.bodyBytesSent)" })")
        let refetched = lying.totalBodyBytesSent + good.totalBodyBytesSent - fixture.archive.count
        #expect(refetched <= lying.records.count * Self.largestFrame(fixture), "re-fetched \(refetched) bytes")
    }

    @Test func aLoneMirrorServingAWellFormedFrameOfOtherBytesFailsNamingTheChunk() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        try fixture.keepManifest()
        let chunks = try #require(fixture.manifest.chunks)
        let server = try FaultServer(body: try Self.archiveWithWrongContent(fixture, chunks: [2]))
        defer { server.stop() }
        let result = try await fixture.download(from: server)
        #expect(result.final?.state == .failed)
        let message = try #require(result.final?.error?.message)
        #expect(message.contains("chunk 2 at archive byte \(chunks[2].offset)") && message.contains("SHA-256"), "\(message)")
        // The chunk was fetched once more before the download gave up: never the whole archive again.
        let refetched = server.totalBodyBytesSent - fixture.archive.count
        #expect(refetched <= Int(chunks.map(\.length).max()!) * 2, "re-fetched \(refetched) bytes")
    }
}
