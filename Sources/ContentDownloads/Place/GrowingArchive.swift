internal import Dispatch
internal import Synchronization

/// A partial archive that is still arriving: the transfer says how far the file is written, and a
/// reader (the overlapped installer) follows behind it.
///
/// The transfer thread is the only writer of the state: ``published(_:)`` after each write,
/// ``complete()`` once the length and SHA-256 matched the catalog, ``abandon()`` when this
/// attempt ends any other way (pause, cancel, failure, a restart from zero). The end is final:
/// a later attempt gets a new `GrowingArchive`. Readers block in ``wait(beyond:)``.
package final class GrowingArchive: Sendable, Equatable {
    /// How the attempt ended, if it has.
    package enum End: Sendable, Equatable {
        /// Still arriving.
        case growing
        /// All bytes are in the file and verified.
        case complete
        /// The attempt stopped; the bytes read so far may not belong to the verified archive.
        case abandoned
    }

    private struct State {
        var available: Int64 = 0
        var end: End = .growing
    }

    private let state = Mutex(State())
    private let signal = DispatchSemaphore(value: 0)

    /// A feed with nothing published yet.
    package init() {}

    /// Identity: one feed per transfer attempt.
    package static func == (lhs: GrowingArchive, rhs: GrowingArchive) -> Bool { lhs === rhs }

    /// The file now holds `available` bytes (never decreases within an attempt).
    func published(_ available: Int64) {
        let grew = state.withLock { state in
            guard state.end == .growing, available > state.available else { return false }
            state.available = available
            return true
        }
        // Only news wakes the reader: the transfer publishes after every receive, and a needless
        // semaphore post preempted the transfer thread (5 % of its context switches, `perf sched`).
        if grew { signal.signal() }
    }

    /// The whole archive is in the file and matched the catalog's length and SHA-256.
    func complete() { finish(.complete) }

    /// This attempt ended without a verified archive; idempotent, and no-op after ``complete()``.
    package func abandon() { finish(.abandoned) }

    private func finish(_ end: End) {
        state.withLock { if $0.end == .growing { $0.end = end } }
        signal.signal()
    }

    /// How the attempt ended so far.
    package var end: End { state.withLock { $0.end } }

    /// Blocks until more than `offset` bytes are available or the attempt ended; returns both.
    package func wait(beyond offset: Int64) -> (available: Int64, end: End) {
        while true {
            let now = state.withLock { ($0.available, $0.end) }
            if now.0 > offset || now.1 != .growing { return now }
            // Re-check at least every 100 ms: signals are counted, so none is lost, but a bounded
            // wait keeps a missed wake-up from ever hanging a reader.
            _ = signal.wait(timeout: .now() + .milliseconds(100))
        }
    }
}
