import SystemSupport
import Crypto
import Foundation
import Glibc
import Synchronization

/// The thread that reads (and hashes) a package's files ahead of the archive writer.
///
/// It walks the regular files of the (sorted) entry list in order, reads each one into
/// page-aligned buffers — many small files share a buffer, a large one spans several — computes
/// each file's SHA-256 on the way unless told not to (a chunk-indexed pack hashes files together
/// with its chunks, on `ChunkHashThread`), and hands every filled buffer over with a list of
/// ``FileSlice``s saying which bytes belong to which file. Content files are also checked for
/// executable code (``ExecutableSniffer``) from the first bytes read anyway, so the validator
/// need not open them a second time. A file whose size changes while it is read, or that cannot
/// be opened or read, ends the stream with ``Message/failed(_:)``.
///
/// Buffers cycle between ``spare`` and ``filled``: memory is ``bufferCount`` × ``bufferSize``.
final class FileReadAheadThread: Sendable {
    /// Part of one file's data inside a buffer.
    struct FileSlice: Sendable {
        /// Index of the file in the entry list.
        var entryIndex: Int
        /// The file's size when it was opened (what its header declares).
        var fileSize: Int64
        /// Where the bytes are in the buffer.
        var range: Range<Int>
        /// True for the file's first slice (write its header first).
        var isFirst: Bool
        /// True for the file's last slice (its hash and executable kind are known).
        var isLast = false
        /// The file's SHA-256 (lowercase hex), on its last slice only, when the reader hashes.
        var sha256: String?
        /// What executable format the file holds (``ExecutableSniffer``), on its last slice only;
        /// `nil` for data and for files outside `Contents/`.
        var executableKind: String?
    }

    /// What the thread hands over, in order.
    enum Message: Sendable {
        /// A buffer and the slices of file data in it.
        case batch(PageAlignedBuffer, [FileSlice])
        /// Reading failed; nothing follows.
        case failed(PackError)
        /// Every file was read (or reading was cancelled); nothing follows.
        case end
    }

    /// Size of each read buffer: big enough that syscalls and hand-overs cost little, small
    /// enough for the pack's memory budget.
    static let bufferSize = Packer.blockSize
    /// Buffers in circulation: one being read into while the other is archived.
    static let bufferCount = 2
    /// Files at least this large are announced to the kernel as read sequentially.
    static let sequentialHintBytes: Int64 = 1 << 20

    /// Filled buffers and the final message.
    let filled = BlockingChannel<Message>(capacity: bufferCount + 1)
    /// Buffers ready to be read into.
    let spare = BlockingChannel<PageAlignedBuffer>(capacity: bufferCount)
    private let cancelled = Atomic<Bool>(false)

    /// Whether each file's SHA-256 is computed here.
    private let hashing: Bool

    /// Fills ``spare`` and starts reading the regular files among `entries` below `root` but those at `skipping`,
    /// hashing them unless `hashing` is false.
    init(entries: [PackEntry], root: String, hashing: Bool = true, skipping: Set<Int> = []) {
        self.hashing = hashing
        for _ in 0..<Self.bufferCount { spare.send(.allocate(byteCount: Self.bufferSize)) }
        NamedThread.start("iap-pack-read") { [self] in run(entries: entries, root: root, skipping: skipping) }
    }

    /// Asks the thread to stop after the file it is reading; it then sends ``Message/end``.
    func cancel() {
        cancelled.store(true, ordering: .relaxed)
    }

    private func run(entries: [PackEntry], root: String, skipping: Set<Int>) {
        var batch = Batch(buffer: spare.receive())
        for (index, entry) in entries.enumerated() where entry.kind == .regular && !skipping.contains(index) {
            if cancelled.load(ordering: .relaxed) { break }
            do {
                try read(entry, index: index, path: root + "/" + entry.path, into: &batch)
            } catch {
                spare.send(batch.buffer)
                filled.send(.failed(error))
                return
            }
        }
        if batch.slices.isEmpty {
            spare.send(batch.buffer)
        } else {
            filled.send(.batch(batch.buffer, batch.slices))
        }
        filled.send(.end)
    }

    /// The buffer being filled and the slices in it so far.
    private struct Batch {
        var buffer: PageAlignedBuffer
        var used = 0
        var slices: [FileSlice] = []
    }

    /// Reads one whole file into the batch (sending full buffers on), hashing it.
    private func read(_ entry: PackEntry, index: Int, path: String, into batch: inout Batch) throws(PackError) {
        let file = try Self.openRegularFile(entry, path: path)
        defer { close(file.descriptor) }
        var reading = FileReading(
            entryIndex: index, size: file.size, sniffing: PackageValidator.isContent(entry.storedPath.utf8), hashing: hashing)
        let changedSize = PackError.io(
            path: entry.path, errno: 0, message: "changed size while packing; pack again when it is stable")
        while reading.total < reading.size {
            if batch.used == batch.buffer.count { try handOver(&batch, reading: entry) }
            // One byte more than is left, when it fits: a short answer then proves the end of the
            // file without a separate read (many small files share a buffer, so it usually fits).
            let remaining = reading.size - reading.total
            let wanted = Int(min(Int64(batch.buffer.count - batch.used), remaining + 1))
            let count = Glibc.read(file.descriptor, batch.buffer.bytes.baseAddress! + batch.used, wanted)
            if count < 0 {
                if errno == EINTR { continue }
                throw PackFiles.ioError(entry.path, "read")
            }
            if count == 0 { break }
            guard Int64(count) <= remaining else { throw changedSize }
            reading.append(count, of: wanted, into: &batch)
        }
        var probe: UInt8 = 0
        guard reading.total == reading.size, reading.reachedEnd || Glibc.read(file.descriptor, &probe, 1) == 0 else {
            throw changedSize
        }
        reading.finish(in: &batch, file: file.descriptor)
    }

    /// Opens the file without following links and checks it is still a regular file; hints
    /// sequential reading for a large one.
    private static func openRegularFile(
        _ entry: PackEntry, path: String
    ) throws(PackError) -> (descriptor: Int32, size: Int64) {
        let file = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { throw PackFiles.ioError(entry.path, "open") }
        var info = stat()
        guard fstat(file, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            close(file)
            throw .io(path: entry.path, errno: 0, message: "is no longer a regular file; validate and pack again")
        }
        let size = Int64(info.st_size)
        if size >= sequentialHintBytes { _ = posix_fadvise(file, 0, 0, POSIX_FADV_SEQUENTIAL) }
        return (file, size)
    }

    /// Sends the full buffer on and continues in a spare one; stops when the writer gave up,
    /// inside a large file too.
    private func handOver(_ batch: inout Batch, reading entry: PackEntry) throws(PackError) {
        filled.send(.batch(batch.buffer, batch.slices))
        batch = Batch(buffer: spare.receive())
        if cancelled.load(ordering: .relaxed) {
            throw .io(path: entry.path, errno: 0, message: "reading cancelled")
        }
    }

    /// One file on its way into batches: bytes read so far, their hash (when hashing) and the first
    /// bytes the executable check looks at.
    private struct FileReading {
        let entryIndex: Int
        /// The size when the file was opened (what its header declares).
        let size: Int64
        /// Whether the file is content, to be checked for executable code.
        let sniffing: Bool
        var hasher: SHA256?
        var prefix: [UInt8] = []
        var total: Int64 = 0
        var isFirst = true
        /// A read asked for more than was left and came back short: the end is proven.
        var reachedEnd = false

        init(entryIndex: Int, size: Int64, sniffing: Bool, hashing: Bool) {
            self.entryIndex = entryIndex
            self.size = size
            self.sniffing = sniffing
            if hashing { hasher = SHA256() }
            if sniffing { prefix.reserveCapacity(ExecutableSniffer.prefixLength) }
        }

        /// Takes `count` bytes just read (of `wanted` asked for) at the batch's free space as the file's next slice.
        mutating func append(_ count: Int, of wanted: Int, into batch: inout Batch) {
            let bytes = UnsafeRawBufferPointer(rebasing: batch.buffer.bytes[batch.used..<batch.used + count])
            hasher?.update(bufferPointer: bytes)
            if sniffing, prefix.count < ExecutableSniffer.prefixLength {
                prefix += bytes.prefix(ExecutableSniffer.prefixLength - prefix.count)
            }
            batch.slices.append(FileSlice(
                entryIndex: entryIndex, fileSize: size, range: batch.used..<batch.used + count, isFirst: isFirst))
            isFirst = false
            batch.used += count
            total += Int64(count)
            reachedEnd = total == size && count < wanted
        }

        /// Marks the file's last slice and puts the hash (when hashing) and, for content, the executable
        /// kind on it; an empty file gets one empty slice to carry its header and hash.
        mutating func finish(in batch: inout Batch, file: Int32) {
            if isFirst {
                batch.slices.append(FileSlice(
                    entryIndex: entryIndex, fileSize: 0, range: batch.used..<batch.used, isFirst: true))
            }
            batch.slices[batch.slices.count - 1].isLast = true
            batch.slices[batch.slices.count - 1].sha256 = hasher?.finalizeHex()
            if sniffing {
                batch.slices[batch.slices.count - 1].executableKind = ExecutableSniffer.kind(prefix: prefix) { offset in
                    var signature = [UInt8](repeating: 0, count: 4)
                    let read = signature.withUnsafeMutableBytes { pread(file, $0.baseAddress, 4, off_t(offset)) }
                    return read == 4 ? signature : nil
                }
            }
        }
    }
}
