@testable import ContentDownloads
import PropertyBased
import Testing

/// The tail of a download is shared: when no chunk waits and a connection could take work, the run that would
/// take longest gives the later half of what it has not begun back to the queue.
@Suite("tail split")
struct TailSplitTests {
    static let mib: Int64 = 1 << 20

    @Test func theRunThatWouldTakeLongestGivesBackAboutHalf() {
        let tails = [
            TailSplit.Tail(frames: [Self.mib, Self.mib], bytesPerSecond: 100_000),
            TailSplit.Tail(frames: Array(repeating: Self.mib, count: 6), bytesPerSecond: 200_000),
            TailSplit.Tail(frames: Array(repeating: Self.mib, count: 8), bytesPerSecond: 10_000_000),
        ]
        let cut = TailSplit.cut(tails)
        #expect(cut?.run == 1 && cut?.keep == 3, "\(String(describing: cut))")
    }

    @Test func smallFastOrUnmeasuredTailsStay() {
        #expect(TailSplit.cut([TailSplit.Tail(frames: [Self.mib, Self.mib / 2], bytesPerSecond: 1_000)]) == nil, "under 2 MiB")
        #expect(TailSplit.cut([TailSplit.Tail(frames: [8 * Self.mib], bytesPerSecond: 1_000)]) == nil, "one chunk")
        #expect(TailSplit.cut([TailSplit.Tail(frames: [Self.mib, Self.mib, Self.mib], bytesPerSecond: 100_000_000)]) == nil, "done in 30 ms")
        #expect(TailSplit.cut([TailSplit.Tail(frames: [Self.mib, Self.mib, Self.mib], bytesPerSecond: nil)]) == nil, "not measured")
        #expect(TailSplit.cut([]) == nil)
    }

    @Test func aCutRunKeepsAtLeastOneChunkAndGivesAtLeastOne() async {
        await propertyCheck(input: Gen.uint64().array(of: 1...12)) { seeds in
            let tails: [TailSplit.Tail] = seeds.map { (seed: UInt64) -> TailSplit.Tail in
                let count = Int(seed % 7)
                var frames: [Int64] = []
                for index in 0..<count {
                    let halves = Int64((seed >> UInt64(index * 3)) % 4) + 1
                    frames.append(halves * (Self.mib / 2))
                }
                return TailSplit.Tail(frames: frames, bytesPerSecond: Double(seed % 1_000_000 + 1))
            }
            guard let cut = TailSplit.cut(tails) else {
                #expect(!tails.contains { $0.frames.count > 1 && $0.bytes >= TailSplit.minimumBytes && $0.secondsLeft! >= 1 })
                return
            }
            #expect(cut.keep >= 1 && cut.keep < tails[cut.run].frames.count)
            #expect(!tails.contains { $0.frames.count > 1 && $0.bytes >= TailSplit.minimumBytes && $0.secondsLeft! > tails[cut.run].secondsLeft! })
        }
    }

    /// A resumed update: 17 MiB of scattered 512 KiB chunks, every connection capped at 200 KB/s, four connections
    /// at first (each takes a quarter as one multi-range request, as the scheduler sizes runs) and eight from the
    /// second second on. Stepped in tenths of a second, with the scheduler's run sizes and this split.
    static func simulate(splitting: Bool) -> (seconds: Double, deciles: [Double]) {
        let chunkBytes: Int64 = 512 << 10, rate = 200_000.0, step = 0.1
        let frames = (0..<68).map { Int64($0) * chunkBytes..<Int64($0 + 1) * chunkBytes }
        var queue = FetchQueue(chunks: Array(stride(from: 0, to: 68, by: 2)), frames: frames)
        let total = Double(queue.waitingBytes)
        var runs: [[Int64]?] = Array(repeating: nil, count: 8)  // bytes left of each chunk of each connection's run
        var started: [Double] = Array(repeating: 0, count: 8)
        var received = 0.0, now = 0.0, deciles: [Double] = [], lastDecile = 0.0
        while now < 600 {
            let target = now < 1 ? 4 : 8
            for connection in 0..<target where runs[connection] == nil {
                let asking = max(1, target - runs.compactMap { $0 }.count)
                guard let run = queue.nextRun(
                    targetBytes: max(1 << 20, min(4 << 20, queue.waitingBytes / Int64(2 * target))), gapBytes: 128 << 10,
                    maxRanges: 16, rangedTargetBytes: min(16 << 20, queue.waitingBytes / Int64(asking)))
                else { break }
                runs[connection] = run.chunks.map { frames[$0].count }.map(Int64.init)
                started[connection] = now
            }
            if splitting, queue.isEmpty, runs.prefix(target).contains(where: { $0 == nil }) {
                let busy = (0..<target).filter { runs[$0] != nil }
                let tails = busy.map { TailSplit.Tail(frames: Array(runs[$0]!.dropFirst()), bytesPerSecond: now - started[$0] >= 0.5 ? rate : nil) }
                if let cut = TailSplit.cut(tails) {
                    let connection = busy[cut.run], given = runs[connection]!.dropFirst(1 + cut.keep)
                    runs[connection]!.removeLast(given.count)
                    let idle = (0..<target).first { runs[$0] == nil }!
                    runs[idle] = Array(given)
                    started[idle] = now
                }
            }
            guard runs.contains(where: { $0 != nil }) || !queue.isEmpty else { break }
            now += step
            for connection in 0..<8 where runs[connection] != nil {
                var budget = Int64(rate * step)
                while budget > 0, var run = runs[connection], !run.isEmpty {
                    let taken = min(budget, run[0])
                    run[0] -= taken
                    budget -= taken
                    received += Double(taken)
                    if run[0] == 0 { run.removeFirst() }
                    runs[connection] = run.isEmpty ? nil : run
                }
            }
            while received >= total * Double(deciles.count + 1) / 10 - 1, deciles.count < 10 {
                deciles.append(now - lastDecile)
                lastDecile = now
            }
        }
        return (now, deciles)
    }

    @Test func aResumedTailCappedPerConnectionIsSharedOverTheConnections() {
        let shared = Self.simulate(splitting: true), alone = Self.simulate(splitting: false)
        // Without the split the last runs crawl on four connections while four others idle.
        #expect(alone.seconds > 1.5 * shared.seconds, "without: \(alone.seconds) s, with: \(shared.seconds) s")
        let others = shared.deciles.dropLast().dropFirst()  // the first tenth includes the second at four connections
        #expect(shared.deciles.last! <= 1.2 * others.max()!, "tenths: \(shared.deciles)")
    }
}
