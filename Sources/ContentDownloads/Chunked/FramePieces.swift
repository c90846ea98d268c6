internal import SystemSupport

/// Cuts a transfer's body into the pieces a ``ChunkInstallPipeline`` verifies: each piece is filled from the
/// pipeline's spares and handed over when full or when it ends a chunk's frame. Shared by ``ChunkTransfer`` (every
/// chunk) and ``DeltaTransfer`` (the chunks an update fetches).
///
/// - Important: Owned by the transfer thread.
struct FramePieces {
    private var piece: PageAlignedBuffer?
    private var filled = 0
    /// Bytes of the current frame handed over or buffered so far.
    private(set) var inFrame = 0

    /// Takes the start of `bytes` — the next bytes of chunk `index`, whose frame is `frameLength` bytes — into
    /// pieces for `install`; returns how many bytes it took and whether they ended the frame.
    mutating func take(
        _ bytes: Slice<UnsafeRawBufferPointer>, chunk index: Int, frameLength: Int, into install: ChunkInstallPipeline
    ) -> (count: Int, frameEnded: Bool) {
        if piece == nil { piece = install.spare.receive() }
        let frameLeft = frameLength - inFrame
        let count = min(frameLeft, ChunkInstallPipeline.pieceBytes - filled, bytes.count)
        UnsafeMutableRawBufferPointer(rebasing: piece!.bytes[filled..<(filled + count)])
            .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes.prefix(count)))
        filled += count
        inFrame += count
        let last = count == frameLeft
        if last || filled == ChunkInstallPipeline.pieceBytes {
            install.submit(index: index, piece: piece!, length: filled, last: last)
            piece = nil
            filled = 0
        }
        if last { inFrame = 0 }
        return (count, last)
    }
}

/// What a pipelined transfer reports from the transfer thread: progress at most 10 times a second, each new
/// durable offset the install thread published (to be journaled), and the install's first failure.
struct PipelineReports {
    private var lastCheckpointOffset: Int64
    private var lastProgressTime: Double = 0
    private var reportedBytes: Int64 = 0

    /// Reports start at `durable`, the offset the transfer starts from.
    init(durable: Int64) { lastCheckpointOffset = durable }

    /// Emits what changed since the last call; returns the install's failure, if any.
    mutating func poll(
        id: String, received: Int64, install: ChunkInstallPipeline, validator: Validator?, emit: (TransferEvent) -> Void
    ) -> InstallError? {
        let now = Transfer.now()
        // Called from the receive callback and from the engine's loop, so the last bytes before a stall show too.
        if received > reportedBytes, now - lastProgressTime >= 0.1 {
            lastProgressTime = now
            reportedBytes = received
            emit(.progress(id: id, bytesOnDisk: received))
        }
        let (durable, failed) = install.status
        if durable > lastCheckpointOffset {
            lastCheckpointOffset = durable
            emit(.checkpoint(id: id, offset: durable, validator: validator))
        }
        return failed
    }
}

/// When an install stage makes a checkpoint: every `bytes` of archive or `interval` seconds, whichever first.
struct CheckpointClock {
    private let bytes: Int64
    private let interval: Double
    private var since: Int64 = 0
    private var last = Transfer.now()

    init(bytes: Int64, interval: Double) {
        self.bytes = bytes
        self.interval = interval
    }

    /// Counts `count` more bytes installed; true when a checkpoint is due.
    mutating func add(_ count: Int64) -> Bool {
        since += count
        return since >= bytes || Transfer.now() - last >= interval
    }

    /// A checkpoint was made.
    mutating func reset() {
        since = 0
        last = Transfer.now()
    }
}
