internal import SystemSupport
internal import ContentPackaging
internal import Dispatch
internal import Synchronization
import Glibc

/// The two threads that turn a chunk plan's frames into installed files: `iap-verify` decompresses each whole
/// frame, bounded by the length its signed index entry declares; `iap-install`'s ``ChunkInstallStage``
/// (``DeltaInstallLoop``) checks the chunk against its signed hash — in one pass with the file parts it continues —
/// and only then checks its tar headers and writes its file data in place. Two stages, so that decoding one chunk
/// overlaps hashing and writing the previous one while the transfer thread receives more.
///
/// Buffers go round: each connection of the transfer thread fills a whole-frame buffer from ``frameSpare`` and hands
/// it over (``submitFrame(index:buffer:length:source:)``); the verifier decodes it into a chunk buffer and returns
/// it at once; the installer returns the chunk buffer once written. Memory is a frame buffer per connection (trimmed
/// to 1 MiB resident between frames) and two chunk buffers, whatever the package size. The installer makes what it
/// wrote durable every `checkpointBytes` (or `checkpointInterval` seconds) and only then publishes the durable
/// offset (``durableOffset``). A frame that fails its hash is not a failure: ``takeRejected()`` hands it to the
/// scheduler, which fetches it again elsewhere. The first install failure (a header the manifest does not vouch
/// for, a full disk) stops all writing; buffers keep coming back, so the transfer thread never waits forever.
final class ChunkInstallPipeline: Sendable {
    /// What travels down the pipeline, in order.
    enum Work: @unchecked Sendable {
        /// Chunk `index`'s whole frame, `length` bytes, fetched from `source` (a mirror): chunks in any order.
        case frame(index: Int, buffer: PageAlignedBuffer, length: Int, source: Int)
        /// A decoded chunk of `length` bytes from `source` (installer; it checks the hash).
        case chunk(index: Int, buffer: PageAlignedBuffer, length: Int, source: Int)
        /// Make everything so far durable, then signal.
        case sync(DispatchSemaphore)
        /// Every frame is in: finish (every file checked), sync, signal.
        case finish(DispatchSemaphore)
        /// End both threads.
        case stop
    }

    private struct Shared: Sendable {
        var durableOffset: Int64
        var failure: InstallError?
        var stopping = false
        var rejected: [RejectedFrame] = []
        /// Whole-frame buffers made so far (made as connections need them, up to the pipeline's limit).
        var frameBuffers: [PageAlignedBuffer] = []
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

    /// Whole-frame buffers (the package's largest frame each) handed back by the verifier.
    private let frameSpare: BlockingChannel<PageAlignedBuffer>
    private let frameLimit: Int
    private let frameBytes: Int
    private let frames: BlockingChannel<Work>
    private let chunks: BlockingChannel<Work>
    private let decodedSpare: BlockingChannel<PageAlignedBuffer>
    private let shared: Mutex<Shared>
    private let buffers: [PageAlignedBuffer]
    private let stopped = DispatchSemaphore(value: 0)
    /// Told each time the durable offset moves, a frame is rejected or a failure arrives (the engine wakes its loop).
    private let onDurable: @Sendable () -> Void

    /// Verified chunks in flight: being decoded into, being written.
    static let chunkBuffers = 2
    /// What a buffer keeps resident between chunks: the average chunk. Sized for the largest chunk (4 MiB), the
    /// buffers would otherwise hold 4 MiB each once each had met one large chunk.
    static let residentBytes = 1 << 20

    /// Starts both threads; `stage` installs `package`'s chunks as they are verified, from durable offset
    /// `startOffset`; up to `frameBuffers` whole-frame buffers circulate, made as they are first needed: one per
    /// connection and two more, so that a connection waiting for one always gets it (every other connection holds at
    /// most one, and the verifier hands back each frame it took).
    init(
        package: ChunkedPackage, stage: any ChunkInstallStage, startOffset: Int64, frameBuffers: Int,
        onDurable: @escaping @Sendable () -> Void
    ) {
        shared = Mutex(Shared(durableOffset: startOffset))
        decodedSpare = BlockingChannel(capacity: Self.chunkBuffers)
        frames = BlockingChannel(capacity: max(1, frameBuffers) + 2)
        chunks = BlockingChannel(capacity: Self.chunkBuffers + 2)
        let chunkBuffers = (0..<Self.chunkBuffers).map { _ in PageAlignedBuffer.allocate(byteCount: package.largestChunk) }
        frameLimit = max(1, frameBuffers)
        frameBytes = package.largestFrame
        frameSpare = BlockingChannel(capacity: frameLimit)
        buffers = chunkBuffers
        for buffer in chunkBuffers { decodedSpare.send(buffer) }
        self.onDurable = onDurable
        NamedThread.start("iap-verify") { [self] in verify(package: package) }
        NamedThread.start("iap-install") { [self] in install(stage) }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
        for buffer in shared.withLock({ $0.frameBuffers }) { buffer.deallocate() }
    }

    /// A whole-frame buffer for a connection: one handed back, else a new one while fewer than `limit` exist (the
    /// connections running now and two more; never more than the pipeline's limit), else the next one the verifier
    /// hands back (back-pressure; the transfer thread waits). Memory follows the connections actually running.
    func takeFrameBuffer(limit: Int) -> PageAlignedBuffer {
        if let spare = frameSpare.tryReceive() { return spare }
        let made: PageAlignedBuffer? = shared.withLock { state in
            guard state.frameBuffers.count < min(limit, frameLimit) else { return nil }
            let buffer = PageAlignedBuffer.allocate(byteCount: frameBytes)
            state.frameBuffers.append(buffer)
            return buffer
        }
        return made ?? frameSpare.receive()
    }

    /// A frame buffer a connection did not hand over (its request failed).
    func returnFrameBuffer(_ buffer: PageAlignedBuffer) { frameSpare.send(buffer) }

    /// The offset up to which everything is installed durably.
    var durableOffset: Int64 { shared.withLock { $0.durableOffset } }
    /// The first failure, if any.
    var failure: InstallError? { shared.withLock { $0.failure } }
    /// Both at once (one lock).
    var status: (durableOffset: Int64, failure: InstallError?) { shared.withLock { ($0.durableOffset, $0.failure) } }

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

    /// `iap-verify`: whole frames in (any order), verified chunks out; a frame that fails its hash is recorded for
    /// the scheduler and its buffer handed back. After an install failure frames are only handed back.
    private func verify(package: ChunkedPackage) {
        var decoded: PageAlignedBuffer?
        var decoder = ChunkStreamDecoder(checksDigest: false)
        while true {
            let work = frames.receive()
            guard case .frame(let index, let frame, let length, let source) = work else {
                chunks.send(work)
                if case .stop = work { break }
                continue
            }
            if failure == nil {
                let target = decoded ?? decodedSpare.receive()
                decoded = target
                do throws(ChunkError) {
                    try decoder.begin(package.chunks[index], index: index, into: target.bytes)
                    try decoder.feed(UnsafeRawBufferPointer(rebasing: frame.bytes[0..<length]))
                    let bytes = try decoder.finish()
                    chunks.send(.chunk(index: index, buffer: target, length: bytes.count, source: source))
                    decoded = nil
                } catch {
                    decoder = ChunkStreamDecoder(checksDigest: false)
                    reject(RejectedFrame(index: index, source: source, reason: error.description))
                }
            }
            if length > Self.residentBytes { frame.trim(keeping: Self.residentBytes) }
            frameSpare.send(frame)
        }
        if let decoded { decodedSpare.send(decoded) }
    }

    /// `iap-install`: verified chunks in, files out, checkpoints published.
    private func install(_ loop: any ChunkInstallStage) {
        while true {
            switch chunks.receive() {
            case .chunk(let index, let buffer, let length, let source):
                if failure == nil {
                    switch loop.install(index: index, bytes: UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<length])) {
                    case .installed(let offset): record(.success(offset))
                    case .rejected(let error): reject(RejectedFrame(index: index, source: source, reason: error.description))
                    case .failed(let error): record(.failure(error))
                    }
                }
                if length > Self.residentBytes { buffer.trim(keeping: Self.residentBytes) }
                decodedSpare.send(buffer)
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

    /// Hands a frame that failed verification to the scheduler (``takeRejected()``).
    private func reject(_ frame: RejectedFrame) {
        shared.withLock { $0.rejected.append(frame) }
        onDurable()
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

/// What installing one decoded chunk came to.
enum ChunkInstallResult {
    /// Installed; the new durable offset when this made a checkpoint.
    case installed(Int64?)
    /// The bytes failed the chunk's signed SHA-256: nothing of them was used; the scheduler fetches it elsewhere.
    case rejected(ChunkError)
    /// The download fails.
    case failed(InstallError)
}

/// The second stage of a ``ChunkInstallPipeline``, on `iap-install` only: decoded chunks in, checked against
/// their signed hashes, files out. Offsets are the durable offsets the transfer journals (fetched bytes).
protocol ChunkInstallStage: AnyObject, Sendable {
    /// Checks chunk `index`'s decoded bytes against its signed hash, then installs them.
    func install(index: Int, bytes: UnsafeRawBufferPointer) -> ChunkInstallResult
    /// Makes everything installed so far durable; returns the offset a restart may continue from.
    func checkpoint() -> Result<Int64?, InstallError>
    /// After the last chunk: the tree must be complete; makes it durable.
    func finish() -> Result<Void, InstallError>
}
