internal import Foundation

/// When an install stage makes a checkpoint: every `bytes` of archive or `interval` seconds, whichever first.
struct CheckpointClock {
    private let bytes: Int64
    private let interval: Double
    private var since: Int64 = 0
    private var last = MonotonicTime.now()

    init(bytes: Int64, interval: Double) {
        self.bytes = bytes
        self.interval = interval
    }

    /// Counts `count` more bytes installed; true when a checkpoint is due.
    mutating func add(_ count: Int64) -> Bool {
        since += count
        return since >= bytes || MonotonicTime.now() - last >= interval
    }

    /// A checkpoint was made.
    mutating func reset() {
        since = 0
        last = MonotonicTime.now()
    }
}
