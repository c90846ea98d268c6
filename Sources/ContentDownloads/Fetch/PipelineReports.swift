import Glibc

/// What a chunk plan reports from the transfer thread: progress (the bytes in place and the bytes fetched) at most
/// 10 times a second, each new durable offset the install thread published (to be journaled), and the install's
/// first failure.
struct PipelineReports {
    /// The shortest time between two progress reports, in seconds.
    static let interval = 0.1

    private var lastCheckpointOffset: Int64
    private var lastProgressTime: Double = 0
    private var reportedBytes: Int64 = 0
    private var reportedFetched: Int64 = 0

    /// Reports start at `durable`, the offset the transfer starts from.
    init(durable: Int64) { lastCheckpointOffset = durable }

    /// Emits what changed since the last call; returns the install's failure, if any. Progress never goes back.
    mutating func poll(
        id: String, received: Int64, fetched: Int64, drain: Double, outlook: Double, install: ChunkInstallPipeline, validator: Validator?,
        emit: (TransferEvent) -> Void
    ) -> InstallError? {
        let now = MonotonicTime.now()
        if received > reportedBytes || fetched > reportedFetched, now - lastProgressTime >= Self.interval {
            lastProgressTime = now
            reportedBytes = max(reportedBytes, received)
            reportedFetched = max(reportedFetched, fetched)
            emit(.progress(
                id: id, bytesOnDisk: reportedBytes, fetched: reportedFetched, drain: drain, outlook: outlook,
                placing: install.placingRate))
        }
        let (durable, failed) = install.status
        if durable > lastCheckpointOffset {
            lastCheckpointOffset = durable
            emit(.checkpoint(id: id, offset: durable, validator: validator))
        }
        return failed
    }
}

extension TransferFailure {
    /// How an install failure during a chunk plan is reported: a full disk or a failed system call as
    /// ``io(operation:path:errno:)``, a chunk that failed its hash as ``badChunk(_:)``, anything else as ``install(_:)``
    /// (a refusal: the archive disagrees with its signed manifest), typed, so the words a user reads are made once.
    init(_ error: InstallError) {
        switch error {
        case .insufficientSpace(let needed, let available): self = .insufficientSpace(needed: needed, available: available)
        case .system(let operation, let path, let code): self = .io(operation: operation, path: path, errno: code)
        case .badChunk: self = .badChunk(error.description)
        default: self = .install(error)
        }
    }
}
