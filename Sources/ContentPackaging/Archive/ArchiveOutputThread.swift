import Crypto
import Foundation
import Synchronization

/// The thread that hashes the compressed archive and has it written, while the caller's thread
/// keeps building and compressing it.
///
/// For each filled buffer it starts the write on an ``ArchiveFileWriter`` and hashes the same
/// bytes while the write is in flight, so the device's latency hides behind the hashing instead
/// of adding to it (writing and hashing one after the other made this thread the slowest stage;
/// see docs/PERFORMANCE.md). Hashing on the way out gives the archive's SHA-256 without reading
/// the file back.
///
/// Buffers cycle between ``spare`` and ``work``, so memory is `bufferCount × bufferSize`
/// whatever the archive size. After a failed write, later buffers are hashed but not written and
/// ``failureErrno`` tells the producer to stop early.
final class ArchiveOutputThread: Sendable {
    /// What the producer hands over.
    enum Message: Sendable {
        /// A completely filled buffer.
        case full(PageAlignedBuffer)
        /// The last `count` bytes; the thread answers on ``done`` and exits.
        case last(PageAlignedBuffer, count: Int)
    }

    /// What the thread reports after ``Message/last(_:count:)``.
    struct Outcome: Sendable {
        /// Bytes handed over (and hashed).
        var size: Int64
        /// Lowercase hex SHA-256 of those bytes.
        var sha256: String
        /// `errno` of the first failed write, 0 when none failed.
        var failureErrno: Int32
    }

    /// Size of each buffer: large sequential writes, a multiple of any device block size, and
    /// small enough that the pack stays within its memory budget (see docs/PERFORMANCE.md).
    static let bufferSize = 512 << 10
    /// Buffers in circulation: one being filled while the other is hashed and written.
    static let bufferCount = 2

    /// Filled buffers, oldest first.
    let work = BlockingChannel<Message>(capacity: bufferCount)
    /// Buffers ready to be filled.
    let spare = BlockingChannel<PageAlignedBuffer>(capacity: bufferCount)
    /// The single outcome.
    let done = BlockingChannel<Outcome>(capacity: 1)
    private let writer: ArchiveFileWriter

    /// `errno` of the first failed write so far, 0 when none failed.
    var failureErrno: Int32 { writer.failureErrno }

    /// Fills ``spare`` and starts the threads hashing and writing to `fileDescriptor` (not closed).
    init(fileDescriptor: Int32) {
        for _ in 0..<Self.bufferCount { spare.send(.allocate(byteCount: Self.bufferSize)) }
        writer = ArchiveFileWriter(fileDescriptor: fileDescriptor)
        let thread = Thread { [self] in run() }
        thread.name = "iapcontent archive output"
        thread.start()
    }

    /// Takes back every buffer and frees it; call after ``done`` answered.
    func deallocateBuffers() {
        for _ in 0..<Self.bufferCount { spare.receive().deallocate() }
    }

    private func run() {
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let (buffer, count, isLast) = switch work.receive() {
            case .full(let buffer): (buffer, buffer.count, false)
            case .last(let buffer, let count): (buffer, count, true)
            }
            writer.write(buffer, count: count, isLast: isLast)
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]))
            size += Int64(count)
            writer.waitForWrite()
            spare.send(buffer)
            if isLast {
                done.send(Outcome(size: size, sha256: hasher.finalizeHex(), failureErrno: failureErrno))
                return
            }
        }
    }
}
