internal import SystemSupport
internal import ContentPackaging
internal import Dispatch
internal import Synchronization
import Glibc

/// The two threads that turn a chunk plan's frames into installed files: `iap-verify` decompresses each whole
/// frame, bounded by the length its signed index entry declares; `iap-install`'s ``ChunkInstallStage``
/// (``PlacementLoop``) checks the chunk against its signed hash — in one pass with the file parts it continues —
/// and only then checks its tar headers and writes its file data in place. Two stages, so that decoding one chunk
/// overlaps hashing and writing the previous one while the transfer thread receives more.
///
/// Buffers go round: each connection of the transfer thread fills a frame in the engine's ``FrameMemory`` segments
/// and hands it over whole (``submitFrame(index:frame:source:)``); the verifier decodes it into a chunk buffer and
/// gives its segments back at once; the installer returns the chunk buffer once written. Memory is the engine's
/// frame budget, shared by its downloads, and two chunk buffers per download (1 MiB resident between chunks while
/// more are queued, none once the installer caught up),
/// whatever the package size. The installer makes what it
/// wrote durable every `checkpointBytes` (or `checkpointInterval` seconds) and only then publishes the durable
/// offset (``durableOffset``). A frame that fails its hash is not a failure: ``takeRejected()`` hands it to the
/// scheduler, which fetches it again elsewhere. The first install failure (a header the manifest does not vouch
/// for, a full disk) stops all writing; buffers keep coming back, so the transfer thread never waits forever.
final class ChunkInstallPipeline: Sendable {
    /// What travels down the pipeline, in order.
    enum Work: @unchecked Sendable {
        /// Chunk `index`'s whole frame, fetched from `source` (a mirror): chunks in any order.
        case frame(index: Int, frame: SegmentedFrame, source: Int)
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

    /// Where frames' segments go back once decoded (the engine's).
    private let memory: FrameMemory
    private let frames: BlockingChannel<Work>
    private let chunks: BlockingChannel<Work>
    private let decodedSpare: BlockingChannel<PageAlignedBuffer>
    /// Decoded bytes handed to the installer and not yet installed.
    private let installing = Atomic<Int>(0)
    /// Fetched bytes in place (``ChunkInstallStage/installedBytes``), maybe not durable yet: a pause's ``sync()``
    /// makes them durable, so they are what progress may report.
    private let placed: Atomic<Int64>
    /// Where ``placed`` starts: the bytes in place before this attempt.
    private let startOffset: Int64
    /// Microseconds each stage spent on its chunks (decoding; checking and writing), not waiting for work.
    private let verifyBusy = Atomic<Int64>(0)
    private let installBusy = Atomic<Int64>(0)
    private let shared: Mutex<Shared>
    private let buffers: [PageAlignedBuffer]
    private let stopped = DispatchSemaphore(value: 0)
    /// Told each time the durable offset moves, the attempt's first chunk is placed, a frame is rejected or a failure
    /// arrives (the engine wakes its loop, which reports them).
    private let wake: @Sendable () -> Void

    /// Verified chunks in flight: being decoded into, being written.
    static let chunkBuffers = 2
    /// The decoded bytes both chunk buffers may hold at once: a chunk is decoded while the installer holds another
    /// only if the two fit, else once the installer is done. Chunks average 1 MiB, so the two stages still overlap
    /// for most chunks, and two chunks of up to 4 MiB never sit in memory together.
    static let decodedBudget = 3 << 20
    /// What a buffer keeps resident between chunks while more chunks are queued: the average chunk. Sized for the
    /// largest chunk (4 MiB), the buffers would otherwise hold 4 MiB each once each had met one large chunk.
    static let residentBytes = 1 << 20

    /// Starts both threads; `stage` installs `package`'s chunks as they are verified, from durable offset
    /// `startOffset`; the segments of each frame decoded go back to `memory`. With `keeping` (a plan handed over
    /// before it was durable) the installer places nothing until it is settled: frames arriving meanwhile are
    /// decoded and held, and a plan that could not be made durable fails the download before any byte is placed.
    /// `wake` wakes the engine's loop (any thread), which then reports what changed.
    init(
        package: ChunkedPackage, stage: any ChunkInstallStage, startOffset: Int64, memory: FrameMemory,
        keeping: PlanKeeping? = nil, wake: @escaping @Sendable () -> Void
    ) {
        shared = Mutex(Shared(durableOffset: startOffset))
        placed = Atomic(startOffset)
        self.startOffset = startOffset
        decodedSpare = BlockingChannel(capacity: Self.chunkBuffers)
        // Every frame holds a segment: room for every frame the memory may hold (its budget, one frame past it, a
        // segment per connection past it), so the transfer thread never waits here.
        frames = BlockingChannel(capacity: memory.limit + 64)
        chunks = BlockingChannel(capacity: Self.chunkBuffers + 2)
        let chunkBuffers = (0..<Self.chunkBuffers).map { _ in PageAlignedBuffer.allocate(byteCount: package.largestChunk) }
        self.memory = memory
        buffers = chunkBuffers
        for buffer in chunkBuffers { decodedSpare.send(buffer) }
        self.wake = wake
        NamedThread.start("iap-verify") { [self] in verify(package: package) }
        NamedThread.start("iap-install") { [self] in
            if let failure = keeping?.wait() { record(.failure(failure)) }
            install(stage)
        }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// The offset up to which everything is installed durably.
    var durableOffset: Int64 { shared.withLock { $0.durableOffset } }
    /// Fetched bytes in place, durable or not yet: never more than the ``sync()`` of a pause makes durable.
    var placedBytes: Int64 { placed.load(ordering: .acquiring) }
    /// The first failure, if any.
    var failure: InstallError? { shared.withLock { $0.failure } }
    /// The bytes a second the pipeline places while it works: this attempt's bytes in place over the seconds its
    /// busier stage spent on them (0 until that is 50 ms). Against the network's rate it says which of the two a
    /// download waits for: the install's waits for frames do not count, so a pipeline that keeps up reads far above
    /// the network, and one behind (a slow disk) reads its own pace.
    var placingRate: Double {
        let busy = max(verifyBusy.load(ordering: .relaxed), installBusy.load(ordering: .relaxed))
        let bytes = placedBytes - startOffset
        return busy >= 50_000 && bytes > 0 ? Double(bytes) / (Double(busy) / 1e6) : 0
    }
    /// Both at once (one lock).
    var status: (durableOffset: Int64, failure: InstallError?) { shared.withLock { ($0.durableOffset, $0.failure) } }

    /// Hands over chunk `index`'s whole frame (its segments go back to the engine's ``FrameMemory`` once decoded),
    /// fetched from `source`. A frame that fails its hash is reported by ``takeRejected()``, not as a failure.
    func submitFrame(index: Int, frame: SegmentedFrame, source: Int) {
        CrashHook.reach(.unkept)
        frames.send(.frame(index: index, frame: frame, source: source))
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
    /// the scheduler and its segments given back. After an install failure frames are only given back.
    private func verify(package: ChunkedPackage) {
        var decoded: PageAlignedBuffer?
        var decoder = ChunkStreamDecoder(checksDigest: false, dictionary: package.dictionary)
        while true {
            let work = frames.receive()
            guard case .frame(let index, let frame, let source) = work else {
                chunks.send(work)
                if case .stop = work { break }
                continue
            }
            if failure == nil {
                let target = decoded ?? decodedSpare.receive()
                decoded = target
                let size = Int(package.chunks[index].uncompressedLength)
                if Self.chunkBuffers > 1, installing.load(ordering: .acquiring) + size > Self.decodedBudget {
                    decodedSpare.send(decodedSpare.receive())  // the installer's buffer back: its chunk is written
                }
                let began = MonotonicTime.now()
                defer { verifyBusy.add(Int64((MonotonicTime.now() - began) * 1e6), ordering: .relaxed) }
                do throws(ChunkError) {
                    try decoder.begin(package.chunks[index], index: index, into: target.bytes)
                    for piece in frame.pieces { try decoder.feed(piece) }
                    let bytes = try decoder.finish()
                    installing.add(bytes.count, ordering: .releasing)
                    chunks.send(.chunk(index: index, buffer: target, length: bytes.count, source: source))
                    decoded = nil
                } catch {
                    decoder = ChunkStreamDecoder(checksDigest: false, dictionary: package.dictionary)
                    reject(RejectedFrame(index: index, source: source, reason: error.description))
                }
            }
            memory.giveBack(frame, handedOver: true)
        }
        if let decoded { decodedSpare.send(decoded) }
    }

    /// `iap-install`: verified chunks in, files out, checkpoints published.
    private func install(_ loop: any ChunkInstallStage) {
        while true {
            switch chunks.receive() {
            case .chunk(let index, let buffer, let length, let source):
                if failure == nil {
                    let began = MonotonicTime.now()
                    let bytes = UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<length])
                    let result = loop.install(index: index, bytes: bytes)
                    installBusy.add(Int64((MonotonicTime.now() - began) * 1e6), ordering: .relaxed)
                    switch result {
                    case .installed(let offset):
                        let before = placed.exchange(loop.installedBytes, ordering: .acquiringAndReleasing)
                        record(.success(offset))
                        // The attempt's first bytes in place are its first news: told now, not when the network
                        // next wakes the transfer loop (a server pacing its replies may leave it asleep for a second).
                        if before == startOffset, offset == nil { wake() }
                    case .rejected(let error): reject(RejectedFrame(index: index, source: source, reason: error.description))
                    case .failed(let error): record(.failure(error))
                    }
                }
                // Resident between chunks: the average chunk while more are queued; nothing once the installer
                // caught up (a capped or slow download keeps no decoded memory while it waits for the network).
                let keep = chunks.isEmpty ? 0 : Self.residentBytes
                if length > keep { buffer.trim(keeping: keep) }
                installing.subtract(length, ordering: .releasing)
                decodedSpare.send(buffer)
            case .frame(_, let frame, _):
                memory.giveBack(frame, handedOver: true)  // never sent this far
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
        wake()
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
        if moved { wake() }
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
    /// Fetched bytes installed so far (durable or not yet), on `iap-install`.
    var installedBytes: Int64 { get }
    /// Makes everything installed so far durable; returns the offset a restart may continue from.
    func checkpoint() -> Result<Int64?, InstallError>
    /// After the last chunk: the tree must be complete; makes it durable.
    func finish() -> Result<Void, InstallError>
}
