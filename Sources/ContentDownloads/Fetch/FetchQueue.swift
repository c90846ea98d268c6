/// The chunks of a plan still to fetch, and how they are cut into requests: the scheduler's only queue.
///
/// Pure and single-owner (the transfer thread): chunks wait in archive order; ``nextRun(targetBytes:gapBytes:)``
/// takes the first waiting chunk and its neighbours into one `Range` request — chunks that touch, and chunks
/// separated by a gap of at most `gapBytes` of archive the plan does not need (reading a small gap costs less
/// than another round trip) — until the run holds `targetBytes`. A chunk given back (``requeue(_:)``: a
/// connection stalled, a mirror failed, a chunk failed its hash) waits again in its place, so the next run
/// takes it first.
struct FetchQueue: Sendable, Equatable {
    /// One request's worth of chunks: their indices (ascending) and the archive ranges the request reads.
    struct Run: Sendable, Equatable {
        /// Chunk indices, ascending; gaps between them inside one range are read and dropped.
        var chunks: [Int]
        /// The archive ranges the request asks for, ascending and apart: one for neighbouring chunks; several (one
        /// multi-range request) for chunks further apart than the gap worth reading through.
        var ranges: [Range<Int64>]
        /// From the first range's start to the last one's end.
        var range: Range<Int64> { ranges.first!.lowerBound..<ranges.last!.upperBound }

        /// No chunks, two one-byte ranges: a `HEAD` that asks a server whether it answers several ranges in one
        /// request (a `multipart/byteranges` 206) without the risk of a whole archive coming back (a 200 to a `GET`).
        static let probe = Run(chunks: [], ranges: [0..<1, 2..<3])
    }

    /// Archive ranges of every chunk of the package (index → its frame's bytes).
    private let frames: [Range<Int64>]
    /// Waiting chunk indices, ascending, from `head` on.
    private var waiting: [Int]
    private var head = 0
    /// The archive bytes of the waiting chunks' frames, kept as chunks come and go (asked for every run).
    private(set) var waitingBytes: Int64

    /// A queue of `chunks` (any order) of a package whose chunk frames lie at `frames`.
    init(chunks: [Int], frames: [Range<Int64>]) {
        self.frames = frames
        waiting = chunks.sorted()
        waitingBytes = waiting.reduce(0) { $0 + Int64(frames[$1].count) }
    }

    /// Whether no chunk waits.
    var isEmpty: Bool { head == waiting.count }
    /// How many chunks wait.
    var count: Int { waiting.count - head }

    /// The largest gap read through while the request may still take another range: a range costs a part header
    /// in the reply (about a hundred bytes) and no round trip, so only a gap smaller than that is worth reading.
    static let gapWithinRanges: Int64 = 2 << 10

    /// Takes the next run: the first waiting chunk, then the next ones while the run is under `targetBytes` of
    /// frames: into the same range while the gap to the next is at most `gapBytes` (at most ``gapWithinRanges``
    /// while the run may still take another range: small chunks scattered over an archive would otherwise bring
    /// as many bytes of gaps as of chunks), else into a new range while the run has fewer than `maxRanges` (1: one
    /// contiguous range); a run of several ranges may grow to `rangedTargetBytes` (default `targetBytes`):
    /// scattered chunks, one request. The gaps a run reads through add up to at most `gapAllowance` (what is left of
    /// the plan's cap, ``GapBudget/planShare``): past it, a chunk across a gap starts another range or run. `nil`
    /// when nothing waits.
    mutating func nextRun(
        targetBytes: Int64, gapBytes: Int64, maxRanges: Int = 1, rangedTargetBytes: Int64? = nil, gapAllowance: Int64 = .max
    ) -> Run? {
        guard !isEmpty else { return nil }
        var chunks = [waiting[head]]
        var ranges = [frames[waiting[head]]]
        var bytes = Int64(ranges[0].count)
        head += 1
        let ranged = max(targetBytes, rangedTargetBytes ?? targetBytes)
        var allowance = gapAllowance
        while head < waiting.count {
            let next = frames[waiting[head]], last = ranges[ranges.count - 1]
            guard next.lowerBound >= last.upperBound else { break }
            let gap = next.lowerBound - last.upperBound
            if gap <= min(allowance, ranges.count < maxRanges ? min(gapBytes, Self.gapWithinRanges) : gapBytes) {
                // Neighbours: up to `targetBytes` in a run of one range (a fresh install's runs stay small).
                guard bytes < (ranges.count > 1 ? ranged : targetBytes) else { break }
                ranges[ranges.count - 1] = last.lowerBound..<next.upperBound
                allowance -= gap
            } else if ranges.count < maxRanges, bytes < ranged {
                ranges.append(next)
            } else {
                break
            }
            chunks.append(waiting[head])
            bytes += Int64(next.count)
            head += 1
        }
        waitingBytes -= bytes
        if head > 4096, head * 2 > waiting.count {
            waiting.removeFirst(head)
            head = 0
        }
        return Run(chunks: chunks, ranges: ranges)
    }

    /// Puts `chunks` back, each in its place (they are fetched before any chunk after them).
    mutating func requeue(_ chunks: [Int]) {
        guard !chunks.isEmpty else { return }
        // Ascending chunks that all come before the first waiting one (a run just taken, given back whole or in
        // part): back into the places ahead of `head`, not a copy of the queue (a local origin whose next frame has
        // no memory yet gives its one-chunk run back on every turn of the loop).
        if chunks.count <= head, chunks.last! < (head < waiting.count ? waiting[head] : Int.max),
           zip(chunks, chunks.dropFirst()).allSatisfy({ $0 < $1 }) {
            head -= chunks.count
            for (offset, chunk) in chunks.enumerated() {
                waiting[head + offset] = chunk
                waitingBytes += Int64(frames[chunk].count)
            }
            return
        }
        var rest = Array(waiting[head...])
        for chunk in chunks {
            var low = 0, high = rest.count
            while low < high {
                let middle = (low + high) / 2
                if rest[middle] < chunk { low = middle + 1 } else { high = middle }
            }
            guard low == rest.count || rest[low] != chunk else { continue }
            rest.insert(chunk, at: low)
            waitingBytes += Int64(frames[chunk].count)
        }
        waiting = rest
        head = 0
    }

    /// Whether chunk `chunk` waits.
    func contains(_ chunk: Int) -> Bool { position(of: chunk) != nil }

    /// Takes chunk `chunk` out of the queue (a connection reading the whole archive found it); false when it
    /// did not wait.
    mutating func remove(_ chunk: Int) -> Bool {
        guard let at = position(of: chunk) else { return false }
        waiting.remove(at: at)
        waitingBytes -= Int64(frames[chunk].count)
        return true
    }

    /// Where the first waiting chunk at or after archive byte `offset` starts, if any.
    func firstWaitingStart(atOrAfter offset: Int64) -> Int64? {
        var low = head, high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if frames[waiting[middle]].lowerBound < offset { low = middle + 1 } else { high = middle }
        }
        return low < waiting.count ? frames[waiting[low]].lowerBound : nil
    }

    private func position(of chunk: Int) -> Int? {
        var low = head, high = waiting.count
        while low < high {
            let middle = (low + high) / 2
            if waiting[middle] < chunk { low = middle + 1 } else { high = middle }
        }
        return low < waiting.count && waiting[low] == chunk ? low : nil
    }
}
