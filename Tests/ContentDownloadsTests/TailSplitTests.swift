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
        #expect(TailSplit.cut([TailSplit.Tail(frames: [Self.mib / 4, Self.mib / 8], bytesPerSecond: 1_000)]) == nil, "under 512 KiB")
        #expect(TailSplit.cut([TailSplit.Tail(frames: [8 * Self.mib], bytesPerSecond: 1_000)]) == nil, "one chunk")
        #expect(TailSplit.cut([TailSplit.Tail(frames: [Self.mib, Self.mib, Self.mib], bytesPerSecond: 100_000_000)]) == nil, "done in 30 ms")
        #expect(TailSplit.cut([TailSplit.Tail(frames: [Self.mib, Self.mib, Self.mib], bytesPerSecond: nil)]) == nil, "not measured")
        #expect(TailSplit.cut([]) == nil)
    }

    /// The time the tail takes, as the end of time remaining counts it: what the slowest connection alone would
    /// need while no split is worth it; past that about half (the later half goes to a connection of its own), never
    /// below the time where splitting stops, and never more than the connection alone would need.
    @Test func theTailTakesHalfOfTheSlowestConnectionsWorkOnceSplittingPays() async {
        #expect(TailSplit.drainSeconds(slowest: 0) == 0)
        #expect(TailSplit.drainSeconds(slowest: 0.8) == 0.8, "not worth a split")
        #expect(TailSplit.drainSeconds(slowest: 1.5) == TailSplit.minimumSeconds)
        #expect(TailSplit.drainSeconds(slowest: 3.2) == 1.6)
        await propertyCheck(input: Gen.int(in: 0...100_000)) { milliseconds in
            let seconds = Double(milliseconds) / 1000
            let tail = TailSplit.drainSeconds(slowest: seconds)
            #expect(tail <= seconds && tail >= min(seconds, TailSplit.minimumSeconds) && tail >= seconds / 2)
        }
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

    /// Eight connections, each capped at 200 KB/s, stepped in tenths of a second: each run's chunks' bytes left
    /// (the first one arriving), and when it began.
    struct Connections {
        static let rate = 200_000.0, step = 0.1
        var runs: [[Int64]?] = Array(repeating: nil, count: 8)
        var started: [Double] = Array(repeating: 0, count: 8)
        var now = 0.0

        /// While a connection among the first `target` is idle, the split gives it the tail the scheduler would.
        mutating func share(target: Int) {
            while let idle = (0..<target).first(where: { runs[$0] == nil }) {
                let busy = (0..<target).filter { runs[$0] != nil }
                let tails = busy.map {
                    TailSplit.Tail(frames: Array(runs[$0]!.dropFirst()), bytesPerSecond: now - started[$0] >= 0.5 ? Self.rate : nil)
                }
                guard let cut = TailSplit.cut(tails) else { return }
                let connection = busy[cut.run], given = runs[connection]!.dropFirst(1 + cut.keep)
                runs[connection]!.removeLast(given.count)
                runs[idle] = Array(given)
                started[idle] = now
            }
        }

        /// While a connection among the first `target` is idle and no run has a tail to cut, the frame that would
        /// arrive last is split as the scheduler splits it: the idle connection takes the later part of its bytes left.
        mutating func shareFrames(target: Int) {
            while let idle = (0..<target).first(where: { runs[$0] == nil }) {
                let single = (0..<target).filter { runs[$0]?.count == 1 }
                let arriving = single.map {
                    TailSplit.Arriving(bytesLeft: runs[$0]![0], bytesPerSecond: now - started[$0] >= 0.5 ? Self.rate : nil)
                }
                guard let split = TailSplit.split(arriving) else { return }
                let connection = single[split.run], left = runs[connection]![0]
                runs[connection]![0] = split.keep
                runs[idle] = [left - split.keep]
                started[idle] = now
            }
        }

        /// A tenth of a second of every busy connection; returns the bytes received.
        mutating func advance() -> Int64 {
            now += Self.step
            var received: Int64 = 0
            for connection in runs.indices where runs[connection] != nil {
                var budget = Int64(Self.rate * Self.step), run = runs[connection]!
                while budget > 0, !run.isEmpty {
                    let taken = min(budget, run[0])
                    run[0] -= taken
                    budget -= taken
                    received += taken
                    if run[0] == 0 { run.removeFirst() }
                }
                runs[connection] = run.isEmpty ? nil : run
            }
            return received
        }
    }

    /// A resumed download: 120 MiB of scattered 512 KiB chunks, four connections at first (each takes its share
    /// as one multi-range request, as the scheduler sizes runs) and eight from the second second on. Returns the
    /// seconds it takes and those of each tenth of its bytes.
    /// With `chunkBytes` and `every` (1: every chunk of the archive, 2: every other one), other packages; with
    /// `splittingFrames`, a frame arriving last is split too (``Connections/shareFrames(target:)``).
    static func simulate(
        splitting: Bool, splittingFrames: Bool = false, chunkBytes: Int64 = 512 << 10, every: Int = 2, from first: Int = 0
    ) -> (seconds: Double, deciles: [Double]) {
        let count = Int((240 * every) << 19 / Int(chunkBytes))
        let frames = (0..<count).map { Int64($0) * chunkBytes..<Int64($0 + 1) * chunkBytes }
        var queue = FetchQueue(chunks: Array(stride(from: first, to: count, by: every)), frames: frames)
        let total = queue.waitingBytes
        var connections = Connections(), received: Int64 = 0, deciles: [Double] = [], lastDecile = 0.0
        while connections.now < 600 {
            let target = connections.now < 1 ? 4 : 8
            for connection in 0..<target where connections.runs[connection] == nil {
                let asking = max(1, target - connections.runs.compactMap { $0 }.count)
                guard let run = queue.nextRun(
                    targetBytes: max(1 << 20, min(4 << 20, queue.waitingBytes / Int64(2 * target))), gapBytes: 128 << 10,
                    maxRanges: 16, rangedTargetBytes: min(16 << 20, queue.waitingBytes / Int64(asking)))
                else { break }
                connections.runs[connection] = run.chunks.map { Int64(frames[$0].count) }
                connections.started[connection] = connections.now
            }
            if splitting, queue.isEmpty { connections.share(target: target) }
            if splittingFrames, queue.isEmpty { connections.shareFrames(target: target) }
            guard connections.runs.contains(where: { $0 != nil }) || !queue.isEmpty else { break }
            received += connections.advance()
            while deciles.count < 10, received >= total * Int64(deciles.count + 1) / 10 {
                deciles.append(connections.now - lastDecile)
                lastDecile = connections.now
            }
        }
        return (connections.now, deciles)
    }

    @Test func oneRunHoldingTheRestIsSharedWithTheIdleConnections() {
        // What a paused and resumed download showed: the remaining 17 MiB went out as one multi-range request on one
        // connection, while the seven others had finished.
        func finish(splitting: Bool) -> Double {
            var connections = Connections()
            connections.runs[0] = Array(repeating: 512 << 10, count: 34)
            while connections.runs.contains(where: { $0 != nil }), connections.now < 600 {
                if splitting { connections.share(target: 8) }
                _ = connections.advance()
            }
            return connections.now
        }
        let ideal = Double(34 << 19) / (8 * Connections.rate)
        let shared = finish(splitting: true), alone = finish(splitting: false)
        #expect(shared <= 1.5 * ideal, "\(shared) s; \(ideal) s on eight connections")
        #expect(alone > 6 * ideal, "without the split: \(alone) s")
    }

    @Test func aResumedTailCappedPerConnectionIsSharedOverTheConnections() {
        let shared = Self.simulate(splitting: true), alone = Self.simulate(splitting: false)
        // The first tenth includes the second at four connections.
        let others = shared.deciles.dropLast().dropFirst(), othersAlone = alone.deciles.dropLast().dropFirst()
        #expect(shared.deciles.last! <= 1.2 * others.max()!, "tenths: \(shared.deciles)")
        // Without the split the last runs end one by one, the connections that are done idle: the check can fail.
        #expect(alone.deciles.last! > 1.2 * othersAlone.max()!, "without: \(alone.deciles)")
        #expect(shared.seconds < alone.seconds, "with: \(shared.seconds) s, without: \(alone.seconds) s")
    }

    @Test func theFrameArrivingLastIsSplitWhenNoRunHasATail() {
        let frames = [
            TailSplit.Arriving(bytesLeft: Self.mib, bytesPerSecond: 200_000),
            TailSplit.Arriving(bytesLeft: 600_000, bytesPerSecond: 200_000),
            TailSplit.Arriving(bytesLeft: 4 * Self.mib, bytesPerSecond: 10_000_000),
        ]
        let split = TailSplit.split(frames)
        #expect(split?.run == 0 && split?.keep == Self.mib / 2, "\(String(describing: split))")
        #expect(TailSplit.split([TailSplit.Arriving(bytesLeft: Self.mib, bytesPerSecond: 2_000_000)]) == nil, "done in half a second")
        #expect(TailSplit.split([TailSplit.Arriving(bytesLeft: Self.mib, bytesPerSecond: nil)]) == nil, "not measured")
        #expect(TailSplit.split([TailSplit.Arriving(bytesLeft: 200_000, bytesPerSecond: 1_000)]) == nil, "too few bytes to halve")
        #expect(TailSplit.split([]) == nil)
    }

    @Test func aSplitFrameKeepsAndGivesBytesOfItsOwn() async {
        await propertyCheck(input: Gen.uint64().array(of: 1...10)) { seeds in
            let frames = seeds.map { TailSplit.Arriving(bytesLeft: Int64($0 % (4 << 20)), bytesPerSecond: Double($0 % 3_000_000 + 1)) }
            let qualifying = frames.filter { $0.bytesLeft >= 2 * TailSplit.minimumSplitBytes && $0.secondsLeft! >= TailSplit.minimumSeconds }
            guard let split = TailSplit.split(frames) else {
                #expect(qualifying.isEmpty)
                return
            }
            #expect(split.keep >= TailSplit.minimumSplitBytes && frames[split.run].bytesLeft - split.keep >= TailSplit.minimumSplitBytes)
            #expect(!qualifying.contains { $0.secondsLeft! > frames[split.run].secondsLeft! })
        }
    }

    @Test func aResumedTailOfWholeMebibyteChunksIsSharedByFrame() {
        // 120 MiB of neighbouring 1 MiB chunks, eight connections capped at 200 KB/s, resumed with 18 chunks in place
        // (paused at 15 %): the last runs are one chunk each, so no run has a tail to cut, and the last chunks arrive
        // on fewer and fewer connections unless their frames are split.
        let split = Self.simulate(splitting: true, splittingFrames: true, chunkBytes: 1 << 20, every: 1, from: 18)
        let whole = Self.simulate(splitting: true, chunkBytes: 1 << 20, every: 1, from: 18)
        let others = split.deciles.dropLast().dropFirst(), othersWhole = whole.deciles.dropLast().dropFirst()
        #expect(split.deciles.last! <= 1.2 * others.max()!, "tenths: \(split.deciles)")
        #expect(whole.deciles.last! > 1.2 * othersWhole.max()!, "without splitting frames: \(whole.deciles)")
        #expect(split.seconds < whole.seconds, "with: \(split.seconds) s, without: \(whole.seconds) s")
        // Paused anywhere from 10 % to 20 %.
        for first in 12...24 {
            let tenths = Self.simulate(splitting: true, splittingFrames: true, chunkBytes: 1 << 20, every: 1, from: first).deciles
            #expect(tenths.last! <= 1.2 * tenths.dropLast().dropFirst().max()!, "\(first) chunks in place: \(tenths)")
        }
    }
}
