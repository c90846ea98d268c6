@testable import ContentDownloads
import Foundation
import Glibc
import PropertyBased
import Testing
import TestSupport

/// The scheduler's pure parts against simple models: the fetch queue hands out every chunk exactly once in runs
/// that respect neighbours, gaps and sizes, whatever is given back; the placed-chunks log trusts unsynced records
/// only in the boot that wrote them and never a torn one; the tuner stays within its bounds.
@Suite("Chunk scheduler: properties")
struct SchedulerPropertyTests {
    /// Frames of random lengths laid end to end.
    static func frames(_ lengths: [UInt64]) -> [Range<Int64>] {
        var offset: Int64 = 0
        return lengths.map { length in
            let size = Int64(length % (4 << 20)) + 1
            defer { offset += size }
            return offset..<(offset + size)
        }
    }

    @Test func everyChunkIsHandedOutOnceInRunsOfNeighbours() async {
        await propertyCheck(input: Gen.uint64().array(of: 1...60), Gen.uint64().array(of: 0...40)) { lengths, steps in
            let frames = Self.frames(lengths)
            // The plan fetches about two thirds of the chunks.
            let wanted = frames.indices.filter { lengths[$0] % 3 != 0 }
            var queue = FetchQueue(chunks: wanted.shuffled(), frames: frames)
            #expect(queue.waitingBytes == wanted.reduce(0) { $0 + Int64(frames[$1].count) })
            var done: [Int] = []
            var inFlight: [[Int]] = []
            var step = 0
            while !queue.isEmpty || !inFlight.isEmpty {
                let choice = step < steps.count ? steps[step] : 0
                step += 1
                if choice % 4 == 3, !inFlight.isEmpty {
                    // A connection fails: its chunks (some of them already arrived) go back.
                    let failed = inFlight.removeFirst()
                    let arrived = Int(choice / 4) % (failed.count + 1)
                    done += failed.prefix(arrived)
                    queue.requeue(Array(failed.dropFirst(arrived)))
                } else if let run = queue.nextRun(
                    targetBytes: Int64(choice % (8 << 20)) + 1, gapBytes: Int64(choice % (256 << 10)),
                    maxRanges: Int(choice >> 40 % 4) + 1, rangedTargetBytes: Int64(choice >> 20 % (16 << 20)))
                {
                    let gap = Int64(choice % (256 << 10)), maxRanges = Int(choice >> 40 % 4) + 1
                    #expect(run.chunks == run.chunks.sorted() && !run.chunks.isEmpty)
                    #expect(run.range == frames[run.chunks.first!].lowerBound..<frames[run.chunks.last!].upperBound)
                    // Ranges ascending and apart by more than the gap read through; every chunk's frame in one of
                    // them; neighbours within a range at most the gap apart; no more ranges than allowed.
                    #expect(run.ranges.count <= maxRanges)
                    // (While another range may still be taken, only a gap of `gapWithinRanges` is read through.)
                    for (a, b) in zip(run.ranges, run.ranges.dropFirst()) { #expect(b.lowerBound - a.upperBound > min(gap, FetchQueue.gapWithinRanges)) }
                    for chunk in run.chunks { #expect(run.ranges.contains { $0.contains(frames[chunk].lowerBound) && frames[chunk].upperBound <= $0.upperBound }) }
                    for (a, b) in zip(run.chunks, run.chunks.dropFirst()) where frames[b].lowerBound - frames[a].upperBound > gap {
                        #expect(!run.ranges.contains { $0.contains(frames[a].lowerBound) && $0.contains(frames[b].lowerBound) })
                    }
                    #expect(run.ranges.reduce(Int64(0)) { $0 + Int64($1.count) } >= run.chunks.reduce(Int64(0)) { $0 + Int64(frames[$1].count) })
                    inFlight.append(run.chunks)
                } else if !inFlight.isEmpty {
                    done += inFlight.removeFirst()
                }
                let out = done + inFlight.flatMap { $0 }
                #expect(queue.waitingBytes == frames.indices.filter { wanted.contains($0) && !out.contains($0) }
                    .reduce(0) { $0 + Int64(frames[$1].count) })
            }
            #expect(done.sorted() == wanted, "every wanted chunk exactly once")
        }
    }

    @Test func aChunkGivenBackWaitsInItsPlaceWhicheverWayItComesBack() async {
        // Runs taken and given back (whole, a part, in order or not, just taken or long ago): the queue always
        // hands out a prefix of the chunks waiting, in order, and counts their bytes.
        await propertyCheck(input: Gen.uint64().array(of: 1...80), Gen.uint64().array(of: 1...60)) { lengths, steps in
            let frames = Self.frames(lengths)
            var queue = FetchQueue(chunks: Array(frames.indices).shuffled(), frames: frames)
            var model = Array(frames.indices), taken: [[Int]] = []
            for choice in steps {
                if choice % 3 == 0, !taken.isEmpty {
                    let run = taken.remove(at: Int(choice / 3) % taken.count)
                    var back = Array(run.dropFirst(Int(choice >> 8) % run.count))
                    if choice & (1 << 20) != 0 { back.reverse() }
                    queue.requeue(back)
                    model = (model + back).sorted()
                } else if let run = queue.nextRun(targetBytes: Int64(choice % (6 << 20)) + 1, gapBytes: Int64(choice % 4096)) {
                    #expect(run.chunks == Array(model.prefix(run.chunks.count)))
                    model.removeFirst(run.chunks.count)
                    taken.append(run.chunks)
                }
                #expect(queue.count == model.count)
                #expect(queue.waitingBytes == model.reduce(0) { $0 + Int64(frames[$1].count) })
            }
            var drained: [Int] = []
            while let run = queue.nextRun(targetBytes: 1 << 30, gapBytes: 1 << 30) { drained += run.chunks }
            #expect(drained == model)
        }
    }

    @Test func theLogTrustsUnsyncedChunksOnlyInTheBootThatWroteThem() async throws {
        await propertyCheck(input: Gen.uint64().array(of: 1...30)) { actions in
            let tree = try Self.emptyTree("placed")
            var durable = Set<Int>(), written = Set<Int>()
            do {
                let log = try PlacedChunks(treePath: tree, chunkCount: 64)
                for action in actions {
                    if action % 5 == 0 {
                        try log.markDurable()
                        durable.formUnion(written)
                        written.removeAll()
                    } else {
                        let chunk = Int(action % 64)
                        try log.record(chunk)
                        if !durable.contains(chunk) { written.insert(chunk) }
                    }
                }
            }
            // Same boot (a kill -9): everything written counts.
            let again = try PlacedChunks(treePath: tree, chunkCount: 64)
            #expect(again.placed == durable.union(written))
            // A torn record at the end (a crash mid-append) is ignored, never trusted.
            let fd = open(PlacedChunks.path(treePath: tree), O_WRONLY | O_APPEND)
            var garbage: [UInt8] = [0x44, 0x43, 0x4C, 0x50, 7, 0, 0]
            _ = write(fd, &garbage, garbage.count)
            close(fd)
            #expect(try PlacedChunks(treePath: tree, chunkCount: 64).placed == durable.union(written))
        }
    }

    /// An empty tree folder for a placed-chunks log, in a new temporary directory.
    private static func emptyTree(_ prefix: String) throws -> String {
        let tree = try TemporaryDirectory.make(prefix: prefix).appendingPathComponent("tree").path
        try FileManager.default.createDirectory(atPath: tree, withIntermediateDirectories: true)
        return tree
    }

    /// The 12 bytes of a well-formed log record: tag, value and check word, little-endian.
    private static func record(tag: UInt32, value: UInt32) -> [UInt8] {
        [tag, value, tag ^ value ^ 0xA5A5_A5A5].flatMap { word in (0..<4).map { UInt8((word >> (8 * UInt32($0))) & 0xFF) } }
    }

    @Test func afterAnotherBootOnlyDurableChunksCount() throws {
        let tree = try Self.emptyTree("placed-boot")
        do {
            let log = try PlacedChunks(treePath: tree, chunkCount: 8)
            try log.record(1)
            try log.record(2)
            try log.markDurable()
            try log.record(5)
        }
        // Rewrite the last boot record as another boot's: chunk 5 was never made durable there.
        let path = PlacedChunks.path(treePath: tree)
        var bytes = [UInt8](try Data(contentsOf: URL(fileURLWithPath: path)))
        let records = bytes.count / 12
        for index in 0..<records where bytes[index * 12..<(index * 12 + 4)] == [0x54, 0x4F, 0x4F, 0x42] {  // "BOOT"
            bytes.replaceSubrange(index * 12..<(index * 12 + 12), with: Self.record(tag: 0x424F_4F54, value: 12345))
        }
        try Data(bytes).write(to: URL(fileURLWithPath: path))
        #expect(try PlacedChunks(treePath: tree, chunkCount: 8).placed == [1, 2])
    }

    @Test func aRegionRecordPastAnyPackageIsIgnored() throws {
        let tree = try Self.emptyTree("placed-region")
        do {
            let log = try PlacedChunks(treePath: tree, chunkCount: 8)
            try log.recordRegion(3)
        }
        // A well-formed record naming region 2^32 − 1: kept as a bit, it would take 512 MiB.
        let record = Self.record(tag: 0x4844_5243, value: UInt32.max)
        let handle = try FileHandle(forWritingTo: URL(fileURLWithPath: PlacedChunks.path(treePath: tree)))
        try handle.seekToEnd()
        try handle.write(contentsOf: record)
        try handle.close()
        #expect(Array(try PlacedChunks(treePath: tree, chunkCount: 8).passedRegions) == [3])
    }

    @Test func theTunerStaysInItsBounds() async {
        await propertyCheck(input: Gen.uint64().array(of: 0...50)) { rates in
            var tuner = ConnectionTuner(initial: 8, maximum: 16)
            var bytes: Int64 = 0, now = 0.0
            for rate in rates {
                now += 1
                bytes += Int64(rate % (64 << 20))
                tuner.observe(bytes: bytes, now: now, busy: rate % 5 != 0)
                #expect(tuner.target >= 1 && tuner.target <= 16)
            }
        }
    }

    /// Seconds of a download whose throughput is `rate(connections)`, fed to a tuner as the scheduler does (every
    /// 100 ms); the tuner's target after each second.
    private static func tune(seconds: Int, initial: Int = 4, rate: (Int) -> Double) -> [Int] {
        var tuner = ConnectionTuner(initial: initial, maximum: 16)
        var bytes = 0.0, targets: [Int] = []
        for tick in 1...(seconds * 10) {
            bytes += rate(tuner.target) / 10
            tuner.observe(bytes: Int64(bytes), now: Double(tick) / 10, busy: true)
            if tick % 10 == 0 { targets.append(tuner.target) }
        }
        return targets
    }

    @Test("a per-connection cap: the tuner doubles to 16 connections within three seconds")
    func theTunerGrowsUnderAPerConnectionCap() {
        let targets = Self.tune(seconds: 6) { Double($0) * 4_000_000 }  // 4 MB/s per connection, no link limit
        #expect(targets[3] == 16, "\(targets)")
        #expect(targets.last == 16)
    }

    @Test("a link that more connections do not speed up: one step up, then back to the start, and it stays")
    func theTunerUndoesAStepThatAddedNothing() {
        let targets = Self.tune(seconds: 8) { _ in 500_000_000 }  // loopback: CPU-bound, the same at any count
        #expect(targets.contains(8), "\(targets)")
        #expect(Array(targets.suffix(5)) == [4, 4, 4, 4, 4], "\(targets)")
    }

    @Test("a link that saturates at 32 MB/s: the tuner settles on the count that reached it")
    func theTunerStopsAtTheLinkRate() {
        let targets = Self.tune(seconds: 8) { min(Double($0) * 4_000_000, 32_000_000) }
        #expect(targets.last == 8, "\(targets)")
    }
}
