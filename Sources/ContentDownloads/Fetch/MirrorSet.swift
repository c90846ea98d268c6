/// The mirrors of one chunk download and the rules they live by: which one a new connection goes to, and what a
/// failed request, a refusal or a frame that failed its hash does to the mirror that served it.
///
/// A value the ``ChunkScheduler`` holds and asks, as it holds a ``ConnectionTuner`` or a ``GapBudget``: the rules
/// are pure (time comes in as `now`, what the engine remembers of refusing origins as `rest`), so they are tested
/// without a server; the scheduler carries out what they decide (retiring connections, giving chunks back, logging).
struct MirrorSet: RandomAccessCollection, MutableCollection {
    /// What a failed request did to its mirror.
    enum Fault: Equatable {
        /// Counted against it; it keeps its connections.
        case counted
        /// It refused (429/503): half its connections, none before its `Retry-After`.
        case slowedDown
        /// Done for this download.
        case dropped
        /// Done for this download after refusing three times while another mirror was up: the engine remembers it
        /// (``RefusingMirrors``) so the next downloads leave it alone for a while.
        case droppedRefusing(retryAfter: Double?)
    }

    private var mirrors: [ChunkMirror]

    /// The mirrors at `urls`, in that order; those `answersRange` names are known to answer range requests.
    init(urls: [String], answersRange: (String) -> Bool) {
        mirrors = urls.map { ChunkMirror(url: $0, confirmed: answersRange($0)) }
    }

    var startIndex: Int { mirrors.startIndex }
    var endIndex: Int { mirrors.endIndex }
    subscript(index: Int) -> ChunkMirror {
        get { mirrors[index] }
        set { mirrors[index] = newValue }
    }

    /// Whether a mirror is still used.
    var anyUp: Bool { mirrors.contains { !$0.dropped } }

    /// How many mirrors are still used.
    var upCount: Int { mirrors.count { !$0.dropped } }

    /// Whether a mirror other than `index` is still used.
    func othersUp(besides index: Int) -> Bool {
        mirrors.indices.contains { $0 != index && !mirrors[$0].dropped }
    }

    /// Why the last mirror to fail failed: the download's failure when none is left.
    var lastFailure: TransferFailure? { mirrors.compactMap(\.lastFailure).last }

    // MARK: Choosing

    /// The mirror for a new connection, given how many each holds (`counts`): of those up, past their
    /// `Retry-After` and under their own cap, that have work (`hasWork`), the one with the fewest connections, then
    /// the one that delivered most. A mirror that has not yet answered a range request correctly gets one
    /// connection, unless its connections start with a `HEAD` probe (`probes`), which risks no body.
    func pick(counts: [Int: Int], now: Double, hasWork: (Int) -> Bool, probes: (Int) -> Bool) -> Int? {
        mirrors.indices
            .filter {
                mirrors[$0].mayHold(counts[$0, default: 0] + 1, now: now) && hasWork($0)
                    && (mirrors[$0].confirmed || counts[$0, default: 0] == 0 || probes($0))
            }
            .min { (counts[$0, default: 0], -mirrors[$0].delivered) < (counts[$1, default: 0], -mirrors[$1].delivered) }
    }

    /// Whether a mirror that answered a range request correctly may take one more connection (the tail of a
    /// download is shared only with such a mirror).
    func confirmedMayTakeOneMore(counts: [Int: Int], now: Double) -> Bool {
        mirrors.indices.contains { mirrors[$0].mayHold(counts[$0, default: 0] + 1, now: now) && mirrors[$0].confirmed }
    }

    // MARK: Faults

    /// A request to mirror `index`, which held `holding` connections (the failed one included), failed with `why`
    /// at `now` (`stalled`: it sent nothing for the stall time while another mirror delivered). A 429/503 slows the
    /// mirror down, and the third in a row drops it while another mirror is up; a network failure counts, and the
    /// third in a row, or a stall while another mirror is up, drops it; anything else (4xx/5xx, a wrong length, a
    /// refused range) drops it at once. The caller drops a mirror the verdict names (``drop(_:_:now:rest:)``).
    mutating func take(_ why: TransferFailure, at index: Int, holding: Int, stalled: Bool, now: Double) -> Fault {
        mirrors[index].lastFailure = why
        let others = othersUp(besides: index)
        switch why {
        case .httpStatus(let status, _, let retryAfter) where status == 429 || status == 503:
            mirrors[index].slowDown(retryAfter: retryAfter, holding: holding, now: now)
            return mirrors[index].failures >= 3 && others ? .droppedRefusing(retryAfter: retryAfter) : .slowedDown
        case .network:
            mirrors[index].failures += 1
            return (stalled && others) || mirrors[index].failures >= 3 ? .dropped : .counted
        default:
            return .dropped
        }
    }

    /// A run from mirror `index` arrived whole: its failures in a row start again from zero.
    mutating func delivered(at index: Int) {
        mirrors[index].failures = 0
    }

    /// Mirror `index` served a frame that failed its signed hash: whether it is dropped now (its second while
    /// another mirror is up). It keeps its connections until then: each frame is checked on its own.
    mutating func servedBadFrame(at index: Int, _ reason: String) -> Bool {
        mirrors[index].badFrames += 1
        mirrors[index].lastFailure = .badChunk(reason)
        return mirrors[index].badFrames >= 2 && othersUp(besides: index)
    }

    /// Drops mirror `index` for this download (`false` when it already was). When no mirror is left up, the ones
    /// left alone for refusing earlier are asked after all (``takeBack(_:now:rest:)``): a download whose other
    /// mirrors failed still tries them, gently.
    mutating func drop(_ index: Int, _ why: TransferFailure, now: Double, rest: (String) -> RefusingMirrors.Rest?) -> Bool {
        guard !mirrors[index].dropped else { return false }
        mirrors[index].dropped = true
        mirrors[index].lastFailure = why
        if !anyUp {
            for other in mirrors.indices where mirrors[other].resting {
                mirrors[other].dropped = false
                mirrors[other].resting = false
                takeBack(other, now: now, rest: rest)
            }
        }
        return true
    }

    /// At the start, the mirrors the engine remembers refusing (`rest` gives what it remembers): left alone while
    /// another mirror is up, or, when every mirror is remembered, asked at one connection each, none before the
    /// `Retry-After` it gave. Returns the remembered ones and whether they were taken (not left alone).
    mutating func leaveRefusingAlone(now: Double, rest: (String) -> RefusingMirrors.Rest?) -> (remembered: [Int], taken: Bool) {
        let remembered = mirrors.indices.filter { rest(mirrors[$0].url) != nil }
        let taken = remembered.count == mirrors.count
        for index in remembered {
            if taken {
                takeBack(index, now: now, rest: rest)
            } else {
                mirrors[index].dropped = true
                mirrors[index].resting = true
            }
        }
        return (remembered, taken)
    }

    /// A mirror remembered refusing is asked after all: one connection, not before the `Retry-After` it gave (at
    /// most 60 s from `now`, as within a download).
    private mutating func takeBack(_ index: Int, now: Double, rest: (String) -> RefusingMirrors.Rest?) {
        mirrors[index].connectionCap = 1
        if let rest = rest(mirrors[index].url) {
            mirrors[index].retryAt = Swift.max(mirrors[index].retryAt, Swift.min(rest.retryAt, now + 60))
        }
    }
}
