/// The chunks of one download that failed their signed hash, and where each may be fetched again: alone, from a
/// mirror that has not served it bad, while one is up; with the others once none is.
///
/// A value the ``ChunkScheduler`` holds and asks, beside ``MirrorSet``: which mirrors are up comes in as `isUp`, so
/// the rule is tested without a server. A chunk waiting here is not in the ``FetchQueue``, so no run of another
/// mirror takes it with its neighbours.
struct ChunkRetries {
    /// How often each chunk failed its hash.
    private var failures: [Int: Int] = [:]
    /// The mirrors that served each chunk bad.
    private var servedBad: [Int: Set<Int>] = [:]
    /// Chunks waiting for a mirror that has not served them bad, in the order they failed.
    private(set) var waiting: [Int] = []

    /// Whether no chunk waits for another mirror.
    var isEmpty: Bool { waiting.isEmpty }

    /// Chunk `chunk`, served by mirror `source`, failed its hash: whether the download fails for it, having failed
    /// more often than there are mirrors (twice with one). The caller gives it back (``giveBack(_:mirrors:isUp:)``)
    /// when it does not.
    mutating func rejected(_ chunk: Int, from source: Int, mirrorCount: Int) -> Bool {
        failures[chunk, default: 0] += 1
        servedBad[chunk, default: []].insert(source)
        return failures[chunk]! > max(1, mirrorCount)
    }

    /// Chunks going back (a failed request's, a dropped mirror's): the ones that failed their hash and have a mirror
    /// up that has not served them bad wait here for it; the rest are returned, for the queue, in their order.
    mutating func giveBack(_ chunks: [Int], mirrors: Range<Int>, isUp: (Int) -> Bool) -> [Int] {
        var plain: [Int] = []
        for chunk in chunks {
            if let bad = servedBad[chunk], mirrors.contains(where: { isUp($0) && !bad.contains($0) }) {
                if !waiting.contains(chunk) { waiting.append(chunk) }
            } else {
                plain.append(chunk)
            }
        }
        return plain
    }

    /// A mirror was dropped: the chunks waiting here are sorted again (``giveBack(_:mirrors:isUp:)``), and those no
    /// mirror up may serve any more are returned for the queue.
    mutating func rerouted(mirrors: Range<Int>, isUp: (Int) -> Bool) -> [Int] {
        let stranded = waiting
        waiting = []
        return giveBack(stranded, mirrors: mirrors, isUp: isUp)
    }

    /// The first waiting chunk `mirror` may serve, taken.
    mutating func take(for mirror: Int) -> Int? {
        guard let at = waiting.firstIndex(where: { !servedBad[$0, default: []].contains(mirror) }) else { return nil }
        return waiting.remove(at: at)
    }

    /// Whether a waiting chunk is one `mirror` may serve.
    func waits(for mirror: Int) -> Bool {
        waiting.contains { !servedBad[$0, default: []].contains(mirror) }
    }
}
