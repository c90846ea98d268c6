internal import SystemSupport
internal import ContentPackaging
internal import Dispatch
internal import Synchronization
import Glibc

/// The thread, `iap-install`, that turns a chunk-indexed download's frames into installed files: each
/// frame is decompressed and checked against its signed chunk hash (``ChunkDecoder``) before a byte of it
/// reaches the ``TarStreamInstaller``, which writes file data in place.
///
/// The transfer thread fills receive buffers and hands over whole frames (``submit(index:buffer:)``); buffers
/// come back through ``spare`` once decoded, so memory is a few frames whatever the package size. Every
/// `checkpointBytes` of archive (or `checkpointInterval` seconds) the thread makes what it wrote durable
/// and only then publishes the restart offset (``durableOffset``): the first byte of the earliest chunk the
/// install could start from again. The first failure (a chunk that fails its hash, a header the manifest
/// does not vouch for, a full disk) is kept and stops all further writing; the thread keeps returning
/// buffers so the transfer thread never waits forever.
final class ChunkInstallThread: Sendable {
    private enum Work: @unchecked Sendable {
        case frame(index: Int, buffer: PageAlignedBuffer)
        /// Make everything so far durable, then signal.
        case sync(DispatchSemaphore)
        /// The stream is complete: finish (the end-of-archive, every file), sync, signal.
        case finish(DispatchSemaphore)
        case stop
    }

    private struct Shared: Sendable {
        var durableOffset: Int64
        var failure: InstallError?
        var finished = false
        var stopping = false
    }

    /// Buffers free for the transfer thread to fill, each ``ChunkedPackage/largestFrame`` bytes or more.
    let spare: BlockingChannel<PageAlignedBuffer>
    private let work: BlockingChannel<Work>
    private let shared: Mutex<Shared>
    private let buffers: [PageAlignedBuffer]
    private let stopped = DispatchSemaphore(value: 0)
    /// Told each time the durable offset moves (the engine wakes its loop to journal it).
    private let onDurable: @Sendable () -> Void

    /// Frames in flight: being filled, queued, being decoded.
    static let bufferCount = 3

    /// Starts the thread running `loop`, which installs `package` from its next chunk (a restart point).
    init(package: ChunkedPackage, loop: ChunkInstallLoop, onDurable: @escaping @Sendable () -> Void) {
        let firstChunk = loop.nextChunk
        let start = firstChunk < package.chunks.count ? package.chunks[firstChunk].offset : package.manifest.archiveSize
        shared = Mutex(Shared(durableOffset: start))
        spare = BlockingChannel(capacity: Self.bufferCount)
        work = BlockingChannel(capacity: Self.bufferCount + 1)
        buffers = (0..<Self.bufferCount).map { _ in PageAlignedBuffer.allocate(byteCount: package.largestFrame) }
        for buffer in buffers { spare.send(buffer) }
        self.onDurable = onDurable
        NamedThread.start("iap-install") { [self] in run(loop) }
    }

    deinit {
        for buffer in buffers { buffer.deallocate() }
    }

    /// The archive offset up to which everything is installed durably (a chunk start; the restart point).
    var durableOffset: Int64 { shared.withLock { $0.durableOffset } }
    /// The first failure, if any.
    var failure: InstallError? { shared.withLock { $0.failure } }

    /// Hands over chunk `index`'s complete frame (in `buffer`, which comes back through ``spare``).
    func submit(index: Int, buffer: PageAlignedBuffer) { work.send(.frame(index: index, buffer: buffer)) }

    /// Waits until every frame handed over is installed and durable; returns the durable offset and the failure.
    func sync() -> (durableOffset: Int64, failure: InstallError?) {
        let done = DispatchSemaphore(value: 0)
        work.send(.sync(done))
        done.wait()
        return shared.withLock { ($0.durableOffset, $0.failure) }
    }

    /// Waits until the last frame is installed and the tree is complete and durable; the failure, if any.
    func finish() -> InstallError? {
        let done = DispatchSemaphore(value: 0)
        work.send(.finish(done))
        done.wait()
        return shared.withLock { $0.failure }
    }

    /// Ends the thread (after what is queued) and waits for it; later calls return at once.
    func stop() {
        let first = shared.withLock { state in
            defer { state.stopping = true }
            return !state.stopping
        }
        guard first else { return }
        work.send(.stop)
        stopped.wait()
    }

    private func run(_ loop: ChunkInstallLoop) {
        while true {
            switch work.receive() {
            case .frame(let index, let buffer):
                if shared.withLock({ $0.failure == nil }) {
                    record(loop.install(index: index, frame: buffer))
                }
                spare.send(buffer)
            case .sync(let done):
                if shared.withLock({ $0.failure == nil }) { record(loop.checkpoint()) }
                done.signal()
            case .finish(let done):
                if shared.withLock({ $0.failure == nil }) {
                    let result = loop.finish()
                    shared.withLock { state in
                        if case .failure(let error) = result { state.failure = error } else { state.finished = true }
                    }
                }
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
