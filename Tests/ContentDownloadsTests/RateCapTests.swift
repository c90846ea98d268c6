@testable import ContentDownloads
import ContentPackaging
import Foundation
import PropertyBased
import Testing
import TestSupport

/// A download's rate cap holds across all its connections, over any window of a second, after a stall too.
@Suite("Chunk scheduler: rate cap")
struct RateCapTests {
    @Test func theBucketAdmitsAtMostTheRatePlusItselfInAnySecond() async {
        await propertyCheck(input: Gen.uint64().array(of: 1...400)) { gaps in
            let rate: Int64 = 4 << 20
            var bucket = RateBucket(rate: rate, now: 0)
            var now = 0.0
            var admitted: [(time: Double, bytes: Int)] = []
            for gap in gaps {
                now += Double(gap % 400) / 1000  // a buffer arrives after 0–0.4 s (a stall when long)
                let size = Int(gap >> 20 % UInt64(256 << 10)) + 1
                if bucket.take(size, now: now) { admitted.append((now, size)) } else { #expect(bucket.wait(now: now) > 0) }
            }
            for start in admitted.indices {
                let window = admitted[start...].prefix { $0.time < admitted[start].time + 1 }.reduce(0) { $0 + $1.bytes }
                #expect(Int64(window) <= rate + bucket.capacity + Int64(256 << 10), "\(window) bytes in a second")
            }
        }
    }

    @Test func aCappedDownloadStaysUnderItsCapAcrossConnectionsAndAfterAStall() async throws {
        let fixture = try ChunkedFixture.standard(megabytes: 8)
        try fixture.keepManifest()
        // The first request goes silent for 2 s after 256 KiB: afterwards the download must not catch up.
        let server = try FaultServer(body: fixture.archive, faults: [.stall(at: 256 << 10, seconds: 2)])
        defer { server.stop() }
        let cap: Int64 = 2 << 20
        var options = fastOptions()
        options.maxBytesPerSecond = cap
        let manager = try DownloadManager(store: fixture.store, options: options)
        try await manager.start()
        let started = Date()
        try await manager.enqueue(fixture.product(), url: server.url(), plan: .chunks)
        // Sampled by asking the manager every 50 ms (bounded: 60 s), each sample timed when its answer came: the
        // update stream would do, but under a loaded test run its buffered updates arrive late and bunched.
        var samples: [(time: Double, bytes: Int64)] = []
        var final: DownloadSnapshot?
        for _ in 0..<1200 {
            guard let snapshot = await manager.snapshot(of: fixture.manifest.productID) else { break }
            samples.append((Date().timeIntervalSince(started), snapshot.downloadedBytes))
            if !snapshot.state.isInFlight { final = snapshot; break }
            try await Task.sleep(for: .milliseconds(50))
        }
        await manager.shutdown()
        #expect(final?.state == .finished, "\(final?.error?.message ?? "")")
        #expect(try diffTrees(fixture.folder, fixture.tree).status == 0)
        // Over any second: the cap, the bucket (a tenth of it) and a frame being counted as it completes.
        let slack = cap / 10 + Int64(fixture.manifest.chunks!.map(\.length).max()!)
        for (index, sample) in samples.enumerated() {
            for later in samples[(index + 1)...] where later.time - sample.time <= 1 {
                #expect(later.bytes - sample.bytes <= cap + slack, "\(later.bytes - sample.bytes) bytes in \(later.time - sample.time) s")
            }
        }
        let total = samples.last!.time
        #expect(Double(fixture.archive.count - Int(slack)) / Double(cap) <= total, "\(fixture.archive.count) bytes in \(total) s")
    }
}
