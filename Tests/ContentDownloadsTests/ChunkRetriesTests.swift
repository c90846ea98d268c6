@testable import ContentDownloads
import PropertyBased
import Testing

/// Chunks that failed their signed hash (``ChunkRetries``): each is fetched again alone from a mirror that has not
/// served it bad while one is up, goes back to the common queue once none is, and fails the download after more
/// failures than there are mirrors.
@Suite("chunk retries")
struct ChunkRetriesTests {
    @Test func aBadChunkWaitsForAnotherMirrorAndFailsAfterMoreFailuresThanMirrors() {
        var retries = ChunkRetries()
        let first = retries.rejected(7, from: 0, mirrorCount: 2)
        let plain = retries.giveBack([7, 8], mirrors: 0..<2, isUp: { _ in true })
        #expect(!first && plain == [8], "7 waits for mirror 1")
        #expect(!retries.waits(for: 0) && retries.waits(for: 1))
        let byFirst = retries.take(for: 0), bySecond = retries.take(for: 1)
        #expect(byFirst == nil && bySecond == 7 && retries.isEmpty)
        let second = retries.rejected(7, from: 1, mirrorCount: 2), third = retries.rejected(7, from: 1, mirrorCount: 2)
        #expect(!second && third, "a third failure with two mirrors fails the download")

        var alone = ChunkRetries()
        let once = alone.rejected(3, from: 0, mirrorCount: 1)
        let back = alone.giveBack([3], mirrors: 0..<1, isUp: { _ in true })
        let twice = alone.rejected(3, from: 0, mirrorCount: 1)
        #expect(!once && back == [3], "no other mirror: the queue")
        #expect(twice, "twice with one mirror fails the download")
    }

    @Test func chunksWaitingForADroppedMirrorGoBackToTheQueue() {
        var retries = ChunkRetries()
        _ = retries.rejected(1, from: 0, mirrorCount: 3)
        _ = retries.rejected(2, from: 1, mirrorCount: 3)
        let plain = retries.giveBack([1, 2], mirrors: 0..<3, isUp: { _ in true })
        let stranded = retries.rerouted(mirrors: 0..<3, isUp: { $0 == 0 })
        #expect(plain.isEmpty)
        #expect(stranded == [1], "only mirror 0 is up: 2 may come from it, 1 may not")
        #expect(retries.waiting == [2])
    }

    /// Any sequence of bad frames, drops and takes: a chunk is never handed to a mirror that served it bad, a
    /// waiting chunk always has a mirror up that may serve it, and no chunk is lost or handed out twice.
    @Test func noChunkIsLostOrTakenByAMirrorThatServedItBad() async {
        // One step: what happens (a bad frame, a drop, a take), to which chunk (of 6), at which mirror (of 3).
        let step = Gen.int(in: 0...53).map { ($0 / 18, ($0 / 3) % 6, $0 % 3) }
        await propertyCheck(input: step.array(of: 1...40)) { steps in
            var retries = ChunkRetries()
            var up: Set<Int> = [0, 1, 2], bad: [Int: Set<Int>] = [:]
            var out: Set<Int> = Set(0...5), queued: Set<Int> = []  // out: with a connection; queued: in the common queue
            func back(_ chunks: [Int]) {
                let plain = retries.giveBack(chunks, mirrors: 0..<3, isUp: { up.contains($0) })
                for chunk in chunks { out.remove(chunk) }
                for chunk in plain { #expect(!queued.contains(chunk)); queued.insert(chunk) }
            }
            for (kind, chunk, mirror) in steps {
                switch kind {
                case 0 where out.contains(chunk) && up.contains(mirror):  // the chunk came bad from mirror
                    bad[chunk, default: []].insert(mirror)
                    if retries.rejected(chunk, from: mirror, mirrorCount: 3) { return }  // the download fails
                    back([chunk])
                case 1 where up.count > 1 && up.contains(mirror):  // mirror dropped
                    up.remove(mirror)
                    for chunk in retries.rerouted(mirrors: 0..<3, isUp: { up.contains($0) }) { queued.insert(chunk) }
                case 2 where up.contains(mirror):  // a connection to mirror takes work
                    if let chunk = retries.take(for: mirror) {
                        #expect(!bad[chunk, default: []].contains(mirror), "chunk \(chunk) handed to mirror \(mirror), which served it bad")
                        out.insert(chunk)
                    } else if let chunk = queued.first {
                        queued.remove(chunk)
                        out.insert(chunk)
                    }
                default:
                    continue
                }
                let waiting = Set(retries.waiting)
                #expect(waiting.count == retries.waiting.count, "a chunk waits twice")
                #expect(waiting.isDisjoint(with: queued) && waiting.isDisjoint(with: out) && queued.isDisjoint(with: out))
                #expect(waiting.union(queued).union(out) == Set(0...5), "a chunk was lost")
                for chunk in waiting {
                    #expect(up.contains { !bad[chunk, default: []].contains($0) }, "chunk \(chunk) waits for a mirror that is not up")
                }
            }
        }
    }
}
