internal import SystemSupport
internal import ContentPackaging
internal import Dispatch
internal import Synchronization
import Glibc

/// The two threads that turn a chunk-indexed download's frames into installed files: `iap-verify` decompresses
/// each frame as its pieces arrive and checks it against its signed chunk hash (``ChunkVerifier``); only a chunk
/// that passed reaches `iap-install`, which writes its file data in place (a ``ChunkInstallStage``: the tar
/// stream's ``ChunkInstallLoop``, or an update's ``DeltaInstallLoop``). Two stages, so
/// that hashing one chunk overlaps writing the previous one while the transfer thread receives the next.
///
/// Buffers go round: the transfer thread copies the body into 256 KiB pieces from ``spare`` and hands each over
/// (``submit(index:piece:length:last:)``); the verifier decodes it into a chunk buffer and returns it at once;
/// the installer returns the chunk buffer once written. Memory is 2 MiB of pieces and two chunk buffers whatever
/// the package size (measured: frame-sized receive buffers cost 3–4 MiB more peak RSS). The installer makes
/// what it wrote durable every `checkpointBytes` of archive (or `checkpointInterval` seconds) and only then
/// publishes the restart offset (``durableOffset``). The first failure (a chunk that fails its hash, a header
/// the manifest does not vouch for, a full disk) stops all writing; buffers keep coming back, so the transfer
/// thread never waits forever.
final class ChunkInstallPipeline: Sendable {
    /// What travels down the pipeline, in order.
    enum Work: @unchecked Sendable {
        /// `length` bytes of chunk `index`'s frame, `last` when they end it (verifier).
        case piece(index: Int, buffer: PageAlignedBuffer, length: Int, last: Bool)
        /// Chunk `index`'s whole frame, `length` bytes, fetched from `source` (a mirror): chunks in any order.
        case frame(index: Int, buffer: PageAlignedBuffer, length: Int, source: Int)
        /// A verified chunk of `length` bytes (installer).
        case chunk(index: Int, buffer: PageAlignedBuffer, length: Int)
        /// A chunk that failed verification: the installer records the failure.
        case failed(InstallError)
        /// Make everything so far durable, then signal.
        case sync(DispatchSemaphore)
        /// The stream is complete: finish (the end-of-archive, every file), sync, signal.
        case finish(DispatchSemaphore)
        /// End both threads.
        case stop
    }

    private struct Shared: Sendable {
        var durableOffset: Int64
        var failure: InstallError?
        var stopping = false
        var rejected: [RejectedFrame] = []
    }

    /// A whole frame that failed its signed hash or length: the scheduler fetches it again elsewhere.
    struct RejectedFrame: Sendable, Equatable {
        /// The chunk.
        let index: Int
        /// Where it came from (the scheduler's mirror number).
        let source: Int
        /// What was wrong, naming the chunk and its archive offset.
        let reason: String
    }

    /// Whole-frame buffers (``largestFrame`` bytes each) free for the transfer thread's connections; empty
    /// unless the pipeline was made with `frameBuffers`.
    let frameSpare: BlockingChannel<PageAlignedBuffer>
    /// Pieces free for the transfer thread to fill, ``pieceBytes`` each.
    let spare: BlockingChannel<PageAlignedBuffer>
    private let frames: BlockingChannel<Work>
    private let chunks: BlockingChannel<Work>
    private let decodedSpare: BlockingChannel<PageAlignedBuffer>
    private let shared: Mutex<Shared>
    private let buffers: [PageAlignedBuffer]
    private let stopped = DispatchSemaphore(value: 0)
    /// Told each time the durable offset moves or a failure arrives (the engine wakes its loop to journal it).
    private let onDurable: @Sendable () -> Void

    /// Pieces in flight: being filled, queued, being decoded.
    static let pieces = 4
    /// The size of a piece: libcurl's receive buffer.
    static let pieceBytes = 256 << 10
    /// Verified chunks in flight: being decoded into, being written.
    static let chunkBuffers = 2
    /// What a buffer keeps resident between chunks: the average chunk. Sized for the largest chunk (4 MiB), five
    /// buffers would otherwise hold 20 MiB once each had met one large chunk.
    static let residentBytes = 1 << 20

    /// Starts both threads; `stage` installs `package`'s chunks as they are verified, from durable offset
    /// `startOffset`; `order` lists the chunks that will arrive when they are not all of them (an update).
    init(
        package: ChunkedPackage, stage: any ChunkInstallStage, startOffset: Int64, order: [Int]? = nil, frameBuffers: Int = 0,
        onDurable: @escaping @Sendable () -> Void
    ) {
        shared = Mutex(Shared(durableOffset: startOffset))
        spare = BlockingChannel(capacity: Self.pieces)
        decodedSpare = BlockingChannel(capacity: Self.chunkBuffers)
        frames = BlockingChannel(capacity: Self.pieces + 2)
        chunks = BlockingChannel(capacity: Self.chunkBuffers + 2)
        let pieceBuffers = (0..<Self.pieces).map { _ in PageAlignedBuffer.allocate(byteCount: Self.pieceBytes) }
        let chunkBuffers = (0..<Self.chunkBuffers).map { _ in PageAlignedBuffer.allocate(byteCount: package.largestChunk) }
        let wholeFrames = (0..<frameBuffers).map { _ in PageAlignedBuffer.allocate(byteCount: package.largestFrame) }
        frameSpare = BlockingChannel(capacity: max(1, frameBuffers))
        for buffer in wholeFrames { frameSpare.send(buffer) }
        buffers = pieceBuffers + chunkBuffers + wholeFrames
        for buffer in pieceBuffers { spare.send(buffer) }
        for buffer in chunkBuffers { decodedSpare.send(buffer) }
        self.onDurable = onDurable
        let verifier = ChunkVerifier(package: package, order: order)
        NamedThread.start("iap-verify") { [self] in verify(verifier, package: package) }
        NamedThread.start("iap-install") { [self] in install(stage) }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// The archive offset up to which everything is installed durably (a chunk start; the restart point).
    var durableOffset: Int64 { shared.withLock { $0.durableOffset } }
    /// The first failure, if any.
    var failure: InstallError? { shared.withLock { $0.failure } }
    /// Both at once (one lock).
    var status: (durableOffset: Int64, failure: InstallError?) { shared.withLock { ($0.durableOffset, $0.failure) } }

    /// Hands over the next `length` bytes of chunk `index`'s frame (in `piece`, which comes back through ``spare``),
    /// `last` when they end the frame.
    func submit(index: Int, piece: PageAlignedBuffer, length: Int, last: Bool) {
        frames.send(.piece(index: index, buffer: piece, length: length, last: last))
    }

    /// Hands over chunk `index`'s whole frame (`length` bytes in `buffer`, which comes back through ``frameSpare``),
    /// fetched from `source`. A frame that fails its hash is reported by ``takeRejected()``, not as a failure.
    func submitFrame(index: Int, buffer: PageAlignedBuffer, length: Int, source: Int) {
        frames.send(.frame(index: index, buffer: buffer, length: length, source: source))
    }

    /// The whole frames that failed verification since the last call.
    func takeRejected() -> [RejectedFrame] {
        shared.withLock { state in
            defer { state.rejected.removeAll() }
            return state.rejected
        }
    }

    /// Waits until every frame handed over is installed and durable; returns the durable offset and the failure.
    func sync() -> (durableOffset: Int64, failure: InstallError?) {
        let done = DispatchSemaphore(value: 0)
        frames.send(.sync(done))
        done.wait()
        return status
    }

    /// Waits until the last frame is installed and the tree is complete and durable; the failure, if any.
    func finish() -> InstallError? {
        let done = DispatchSemaphore(value: 0)
        frames.send(.finish(done))
        done.wait()
        return failure
    }

    /// Ends both threads (after what is queued) and waits for them; later calls return at once.
    func stop() {
        let first = shared.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        frames.send(.stop)
        stopped.wait()
    }

    /// `iap-verify`: pieces in, verified chunks out; after a failure pieces are only handed back.
    private func verify(_ verifier: ChunkVerifier, package: ChunkedPackage) {
        var failed = false
        var decoded: PageAlignedBuffer?
        var decoder = ChunkStreamDecoder()
        while true {
            let work = frames.receive()
            if case .frame(let index, let frame, let length, let source) = work {
                if !failed, failure == nil {
                    let target = decoded ?? decodedSpare.receive()
                    decoded = target
                    do throws(ChunkError) {
                        try decoder.begin(package.chunks[index], index: index, into: target.bytes)
                        try decoder.feed(UnsafeRawBufferPointer(rebasing: frame.bytes[0..<length]))
                        let bytes = try decoder.finish()
                        chunks.send(.chunk(index: index, buffer: target, length: bytes.count))
                        decoded = nil
                    } catch {
                        decoder = ChunkStreamDecoder()
                        shared.withLock { $0.rejected.append(RejectedFrame(index: index, source: source, reason: error.description)) }
                        onDurable()
                    }
                }
                if length > Self.residentBytes { frame.trim(keeping: Self.residentBytes) }
                frameSpare.send(frame)
                continue
            }
            guard case .piece(let index, let piece, let length, let last) = work else {
                chunks.send(work)
                if case .stop = work { break }
                continue
            }
            if !failed {
                let target = decoded ?? decodedSpare.receive()
                decoded = target
                let result = verifier.take(index: index, piece: UnsafeRawBufferPointer(rebasing: piece.bytes[0..<length]), last: last, into: target)
                switch result {
                case .success(let length?):
                    chunks.send(.chunk(index: index, buffer: target, length: length))
                    decoded = nil
                case .success(nil): break
                case .failure(let error):
                    failed = true
                    chunks.send(.failed(error))
                }
            }
            spare.send(piece)
        }
        if let decoded { decodedSpare.send(decoded) }
    }

    /// `iap-install`: verified chunks in, files out, checkpoints published.
    private func install(_ loop: any ChunkInstallStage) {
        while true {
            switch chunks.receive() {
            case .chunk(let index, let buffer, let length):
                if failure == nil { record(loop.install(index: index, bytes: UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<length]))) }
                if length > Self.residentBytes { buffer.trim(keeping: Self.residentBytes) }
                decodedSpare.send(buffer)
            case .failed(let error):
                record(.failure(error))
            case .piece(_, let buffer, _, _):
                spare.send(buffer)  // never sent this far
            case .frame(_, let buffer, _, _):
                frameSpare.send(buffer)  // never sent this far
            case .sync(let done):
                if failure == nil { record(loop.checkpoint()) }
                done.signal()
            case .finish(let done):
                if failure == nil, case .failure(let error) = loop.finish() { record(.failure(error)) }
                done.signal()
            case .stop:
                stopped.signal()
                return
            }
        }
    }

    /// Publishes a new durable offset or the first failure.
    private func record(_ result: Result<Int64?, InstallError>) {
        let moved = shared.withLock { state in
            switch result {
            case .success(let offset?) where offset > state.durableOffset:
                state.durableOffset = offset
                return true
            case .success: return false
            case .failure(let error):
                if state.failure == nil { state.failure = error }
                return true
            }
        }
        if moved { onDurable() }
    }
}

/// The second stage of a ``ChunkInstallPipeline``, on `iap-install` only: verified chunks in, files out.
/// Offsets are the durable offsets the transfer journals (archive bytes for a download, fetched bytes for an update).
protocol ChunkInstallStage: AnyObject, Sendable {
    /// Installs chunk `index`'s verified bytes; returns a new durable offset when this made a checkpoint.
    func install(index: Int, bytes: UnsafeRawBufferPointer) -> Result<Int64?, InstallError>
    /// Makes everything installed so far durable; returns the offset a restart may continue from.
    func checkpoint() -> Result<Int64?, InstallError>
    /// After the last chunk: the tree must be complete; makes it durable.
    func finish() -> Result<Void, InstallError>
}
