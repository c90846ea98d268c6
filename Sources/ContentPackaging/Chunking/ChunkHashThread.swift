import SystemSupport

/// Hashes a chunk-indexed archive's chunks and files on their own thread, so the compressing thread — the
/// pack's critical path — pays one copy of each tar byte instead of SHA-256 passes over it.
///
/// The sink copies tar bytes into fixed blocks (``Feeder/add(_:)``), marks each chunk's end
/// (``Feeder/endChunk()``) and announces where each regular file's data lies in the tar stream
/// (``Feeder/startFile(at:size:)``). This thread hashes the blocks in order with a ``PairedSHA256``: every
/// byte for its chunk's digest and, where a file's data lies, the same bytes for that file's digest, in one
/// pass. ``Feeder/finish()`` returns one digest per chunk and one per file. Memory is
/// `blockCount × blockSize` whatever the archive size; a full set of blocks makes the sink wait.
final class ChunkHashThread: Sendable {
    /// Where a regular file's data lies in the tar stream.
    struct FileRange: Sendable {
        var offset: Int64
        var size: Int64
    }

    /// What ``Feeder/finish()`` returns: one digest per chunk and one per file, in stream order.
    struct Digests: Sendable {
        var chunks: [StoredSHA256] = []
        var files: [StoredSHA256] = []
    }

    /// What the sink hands over, in stream order.
    private enum Message: Sendable {
        /// `count` tar bytes of the current chunk.
        case bytes(PageAlignedBuffer, count: Int)
        /// Files whose data starts at or after the next bytes.
        case files([FileRange])
        /// The current chunk ends here.
        case endOfChunk
        /// No more chunks: answer on ``digests`` and exit.
        case stop
    }

    /// Size of each block. 1 MiB rather than 256 KiB: a quarter of the hand-overs (each wakes a thread) took
    /// 0.05–0.08 s of CPU and of wall time off a 1 GiB pack, for 4 MiB more peak RSS (37 MiB; see
    /// docs/PERFORMANCE.md).
    static let blockSize = 1 << 20
    /// Blocks in circulation.
    static let blockCount = 4

    private let work = BlockingChannel<Message>(capacity: blockCount + 2)
    private let spare = BlockingChannel<PageAlignedBuffer>(capacity: blockCount)
    private let digests = BlockingChannel<Digests>(capacity: 1)

    /// Fills the spare blocks and starts the thread; `expectedFiles` reserves room for that many file digests
    /// (a hundred thousand digests grown by doubling hold the old and the new array at once).
    init(expectedFiles: Int = 0) {
        for _ in 0..<Self.blockCount { spare.send(.allocate(byteCount: Self.blockSize)) }
        NamedThread.start("iap-pack-hash") { [self] in run(expectedFiles: expectedFiles) }
    }

    private func run(expectedFiles: Int) {
        var hashing = StreamHashing(expectedFiles: expectedFiles)
        while true {
            switch work.receive() {
            case .bytes(let block, let count):
                hashing.hash(UnsafeRawBufferPointer(rebasing: block.bytes[0..<count]))
                spare.send(block)
            case .files(let ranges):
                hashing.announce(ranges)
            case .endOfChunk:
                hashing.endChunk()
            case .stop:
                digests.send(hashing.finish())
                return
            }
        }
    }

    /// The producer's side: the block being filled. Used by one thread (the sink's) only.
    struct Feeder: ~Copyable {
        private let thread: ChunkHashThread
        private var block: PageAlignedBuffer?
        private var filled = 0
        /// Files announced since the last hand-over.
        private var announced: [FileRange] = []

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

        /// Announces a regular file's data: `size` bytes at tar-stream offset `offset`, at or after the
        /// next byte added. Files are announced in stream order.
        mutating func startFile(at offset: Int64, size: Int64) {
            announced.append(FileRange(offset: offset, size: size))
        }

        /// Marks the end of the current chunk.
        mutating func endChunk() {
            handOver()
            thread.work.send(.endOfChunk)
        }

        /// Stops the thread; returns the digests of every chunk ended and every file announced whose data
        /// arrived, in order, and frees the blocks.
        consuming func finish() -> Digests {
            if let block { thread.spare.send(block) }
            if !announced.isEmpty { thread.work.send(.files(announced)) }
            thread.work.send(.stop)
            let result = thread.digests.receive()
            for _ in 0..<ChunkHashThread.blockCount { thread.spare.receive().deallocate() }
            return result
        }

        /// Sends the announced files, then the partly or fully filled block if it holds anything.
        private mutating func handOver() {
            if !announced.isEmpty {
                thread.work.send(.files(announced))
                announced = []
            }
            guard let full = block, filled > 0 else { return }
            thread.work.send(.bytes(full, count: filled))
            block = nil
            filled = 0
        }
    }
}

/// The hash thread's state: the paired hasher, where the stream is, and the files whose data is still ahead.
private struct StreamHashing: ~Copyable {
    private var hasher = PairedSHA256()
    private var digests = ChunkHashThread.Digests()
    /// Tar-stream bytes hashed so far.
    private var position: Int64 = 0
    /// Announced files not finished yet, in stream order, from ``next``.
    private var files: [ChunkHashThread.FileRange] = []
    private var next = 0

    init(expectedFiles: Int) {
        digests.files.reserveCapacity(expectedFiles)
    }

    mutating func announce(_ ranges: [ChunkHashThread.FileRange]) {
        if next == files.count {
            files.removeAll(keepingCapacity: true)
            next = 0
        }
        files += ranges
    }

    /// Hashes `bytes` (all in the current chunk) for the chunk and, where a file's data lies, for that file.
    mutating func hash(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes
        while true {
            finishEmptyFiles()
            guard !rest.isEmpty else { return }
            var count = rest.count
            var inFile = false
            if next < files.count {
                let file = files[next]
                inFile = position >= file.offset
                let boundary = inFile ? file.offset + file.size : file.offset
                count = Int(min(Int64(count), boundary - position))
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: rest[0..<count]), second: inFile)
            position += Int64(count)
            rest = UnsafeRawBufferPointer(rebasing: rest[count...])
            if inFile, position == files[next].offset + files[next].size {
                digests.files.append(StoredSHA256(hasher.finishSecond()))
                next += 1
            }
        }
    }

    /// Files of no bytes at the head of the queue get the empty digest (they are whole once reached).
    private mutating func finishEmptyFiles() {
        while next < files.count, files[next].size == 0, files[next].offset <= position {
            digests.files.append(StoredSHA256(hasher.finishSecond()))
            next += 1
        }
    }

    mutating func endChunk() {
        digests.chunks.append(StoredSHA256(hasher.finishFirst()))
    }

    /// Every digest so far (an abandoned archive has fewer than it announced).
    consuming func finish() -> ChunkHashThread.Digests {
        finishEmptyFiles()
        return digests
    }
}
