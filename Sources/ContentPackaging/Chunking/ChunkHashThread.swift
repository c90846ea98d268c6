import Crypto
import SystemSupport

/// Hashes the chunks of a chunk-indexed archive on their own thread, so the compressing thread — the
/// pack's critical path — pays one copy of each tar byte instead of a SHA-256 pass over it.
///
/// The sink copies tar bytes into fixed blocks (``add(_:)``) and marks each chunk's end (``endChunk()``);
/// this thread hashes the blocks in order and keeps one digest per chunk, which ``finish()`` returns.
/// Memory is `blockCount × blockSize` whatever the archive size; a full set of blocks makes the sink wait.
final class ChunkHashThread: Sendable {
    /// What the sink hands over, in stream order.
    private enum Message: Sendable {
        /// `count` tar bytes of the current chunk.
        case bytes(PageAlignedBuffer, count: Int)
        /// The current chunk ends here.
        case endOfChunk
        /// No more chunks: answer on ``digests`` and exit.
        case stop
    }

    /// Size of each block.
    static let blockSize = 256 << 10
    /// Blocks in circulation.
    static let blockCount = 4

    private let work = BlockingChannel<Message>(capacity: blockCount + 2)
    private let spare = BlockingChannel<PageAlignedBuffer>(capacity: blockCount)
    private let digests = BlockingChannel<[String]>(capacity: 1)

    /// Fills the spare blocks and starts the thread.
    init() {
        for _ in 0..<Self.blockCount { spare.send(.allocate(byteCount: Self.blockSize)) }
        NamedThread.start("iap-pack-hash") { [self] in run() }
    }

    private func run() {
        var hasher = SHA256()
        var result: [String] = []
        while true {
            switch work.receive() {
            case .bytes(let block, let count):
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: block.bytes[0..<count]))
                spare.send(block)
            case .endOfChunk:
                result.append(hasher.finalizeHex())
                hasher = SHA256()
            case .stop:
                digests.send(result)
                return
            }
        }
    }

    /// The producer's side: the block being filled. Used by one thread (the sink's) only.
    struct Feeder: ~Copyable {
        private let thread: ChunkHashThread
        private var block: PageAlignedBuffer?
        private var filled = 0

        /// A feeder for `thread`.
        init(_ thread: ChunkHashThread) { self.thread = thread }

        /// Copies `bytes` (part of the current chunk) into blocks, handing each full one over.
        mutating func add(_ bytes: UnsafeRawBufferPointer) {
            var rest = bytes
            while !rest.isEmpty {
                if block == nil { block = thread.spare.receive() }
                let count = min(rest.count, block!.count - filled)
                UnsafeMutableRawBufferPointer(rebasing: block!.bytes[filled..<filled + count])
                    .copyMemory(from: UnsafeRawBufferPointer(rebasing: rest[0..<count]))
                filled += count
                rest = UnsafeRawBufferPointer(rebasing: rest[count...])
                if filled == block!.count { handOver() }
            }
        }

        /// Marks the end of the current chunk.
        mutating func endChunk() {
            handOver()
            thread.work.send(.endOfChunk)
        }

        /// Stops the thread; returns one digest per chunk ended, in order, and frees the blocks.
        consuming func finish() -> [String] {
            if let block { thread.spare.send(block) }
            thread.work.send(.stop)
            let result = thread.digests.receive()
            for _ in 0..<ChunkHashThread.blockCount { thread.spare.receive().deallocate() }
            return result
        }

        /// Sends the partly or fully filled block, if it holds anything.
        private mutating func handOver() {
            guard let full = block, filled > 0 else { return }
            thread.work.send(.bytes(full, count: filled))
            block = nil
            filled = 0
        }
    }
}
