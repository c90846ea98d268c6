/// How the tail of a download is shared: when no chunk waits and a connection could take work, the run in flight
/// that would take longest to finish gives the later half of what it has not begun back to the queue, so idle
/// connections (and mirrors) take it instead of one connection crawling through the rest at its own pace.
///
/// Why: a run is sized when it is taken (about two per connection of what was left then); when the connection
/// target grows later, or a run of several ranges took a large share after a pause, one connection can hold most
/// of what remains while the others have finished. A cut request is stopped once its kept chunks are in, which
/// costs the bytes already on their way and a new connection, so only a tail that would take seconds is cut.
/// When no run has a tail to cut (the last runs are one chunk each), the frame that would arrive last is split
/// instead (``split(_:minimumSeconds:)``): its connection keeps the first half of its bytes left and stops there,
/// a new connection fetches the rest, and the frame goes to its verifier once both parts are in.
/// Pure: the scheduler hands it the runs' tails and the frames arriving.
enum TailSplit {
    /// One run in flight: the frame lengths of its chunks not yet begun, in request order (the chunk arriving
    /// excluded), and the rate its connection has received at so far in this run (`nil`: not measured yet).
    struct Tail: Equatable {
        var frames: [Int64]
        var bytesPerSecond: Double?

        var bytes: Int64 { frames.reduce(0, +) }
        /// Seconds to receive the tail at the run's rate so far.
        var secondsLeft: Double? { bytesPerSecond.map { Double(bytes) / max(1, $0) } }
    }

    /// The smallest tail worth cutting (with ``minimumSeconds``: what is left decides, not the bytes alone).
    static let minimumBytes: Int64 = 512 << 10
    /// The shortest time left worth cutting: below it the stopped request's bytes in flight and the new connection
    /// cost about what the split gains.
    static let minimumSeconds = 1.0

    /// The run to cut and how many of its tail's chunks it keeps: of the runs whose tail holds `minimumBytes` and
    /// more than one chunk and would take `minimumSeconds`, the one that would take longest keeps the chunks that
    /// make up about half its tail (at least one, and gives at least one); `nil` when no run qualifies.
    static func cut(_ tails: [Tail], minimumBytes: Int64 = Self.minimumBytes, minimumSeconds: Double = Self.minimumSeconds)
        -> (run: Int, keep: Int)?
    {
        let candidates = tails.indices.filter {
            tails[$0].frames.count > 1 && tails[$0].bytes >= minimumBytes && (tails[$0].secondsLeft ?? 0) >= minimumSeconds
        }
        guard let run = candidates.max(by: { tails[$0].secondsLeft! < tails[$1].secondsLeft! }) else { return nil }
        let frames = tails[run].frames, half = tails[run].bytes / 2
        var kept: Int64 = 0, keep = 0
        while keep < frames.count - 1, keep == 0 || kept + frames[keep] <= half {
            kept += frames[keep]
            keep += 1
        }
        return (run, keep)
    }

    /// A frame arriving on a run with no chunk after it: its bytes not received yet, and the rate its connection has
    /// received at so far in this run (`nil`: not measured yet).
    struct Arriving: Equatable {
        var bytesLeft: Int64
        var bytesPerSecond: Double?

        /// Seconds to receive the rest of the frame at the run's rate so far.
        var secondsLeft: Double? { bytesPerSecond.map { Double(bytesLeft) / max(1, $0) } }
    }

    /// The seconds the tail takes when the slowest running connection alone would need `seconds` for its work:
    /// past ``minimumSeconds`` a cut or a split gives the later half of that work to a connection of its own, so
    /// about half (never below ``minimumSeconds``, where splitting stops). What the end of a download's time
    /// remaining counts (``TransferPace``): the slowest connection's whole work read 1.6–1.9 times the time left in
    /// the last 2 s of `tools/bench-eta`.
    static func drainSeconds(slowest seconds: Double) -> Double {
        seconds > minimumSeconds ? max(minimumSeconds, seconds / 2) : seconds
    }

    /// The fewest bytes each part of a split frame holds: below it a new connection's round trips cost about what
    /// the split gains.
    static let minimumSplitBytes: Int64 = 128 << 10

    /// The frame to split and how many of its bytes left its connection keeps (the first half): of the frames whose
    /// rest would take `minimumSeconds` and holds twice ``minimumSplitBytes``, the one that would take longest;
    /// `nil` when none qualifies.
    static func split(_ frames: [Arriving], minimumSeconds: Double = Self.minimumSeconds) -> (run: Int, keep: Int64)? {
        let candidates = frames.indices.filter {
            frames[$0].bytesLeft >= 2 * minimumSplitBytes && (frames[$0].secondsLeft ?? 0) >= minimumSeconds
        }
        guard let run = candidates.max(by: { frames[$0].secondsLeft! < frames[$1].secondsLeft! }) else { return nil }
        return (run, frames[run].bytesLeft / 2)
    }
}
