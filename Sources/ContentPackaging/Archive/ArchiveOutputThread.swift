import SystemSupport
import Foundation
import Glibc
import Synchronization

/// The thread that writes the compressed archive to its file while the caller's thread keeps
/// building, compressing and hashing it.
///
/// Full buffers are written with `O_DIRECT` where the file system allows it: the bytes go
/// straight to the device instead of piling up as dirty page cache that the packer's closing
/// `fsync` would then have to flush in one long stall (and that would evict the author's files
/// from the cache). The last, partial buffer is written through the cache (`O_DIRECT` needs
/// whole blocks); the caller's `fsync` makes everything durable. Without `O_DIRECT` support (or
/// after a short write) it simply writes through the cache.
///
/// The thread does no hashing: a direct write blocks for the device (about 0.4 ms per buffer
/// here), and hashing in the same thread made the two wait for each other (see
/// docs/PERFORMANCE.md). The producer hashes each buffer right after zstd filled it.
///
/// Buffers cycle between ``spare`` and ``work``, so memory is `bufferCount × bufferSize`
/// whatever the archive size. The first `write(2)` failure stops writing; later buffers are
/// handed back unwritten and ``failureErrno`` tells the producer to stop early.
final class ArchiveOutputThread: Sendable {
    /// What the producer hands over.
    enum Message: Sendable {
        /// A completely filled buffer.
        case full(PageAlignedBuffer)
        /// The last `count` bytes; the thread answers on ``done`` and exits.
        case last(PageAlignedBuffer, count: Int)
    }

    /// Size of each buffer: large sequential writes, a multiple of any device block size, and
    /// small enough that the pack stays within its memory budget (see docs/PERFORMANCE.md).
    static let bufferSize = 512 << 10
    /// Buffers in circulation: one being filled while the other is written.
    static let bufferCount = 2

    /// Filled buffers, oldest first.
    let work = BlockingChannel<Message>(capacity: bufferCount)
    /// Buffers ready to be filled.
    let spare = BlockingChannel<PageAlignedBuffer>(capacity: bufferCount)
    /// `errno` of the first failed write (0 when none failed), sent once after ``Message/last(_:count:)``.
    let done = BlockingChannel<Int32>(capacity: 1)
    /// `errno` of the first failed write (0 while none has), readable from the producer.
    private let failure = Atomic<Int32>(0)

    /// `errno` of the first failed write so far, 0 when none failed.
    var failureErrno: Int32 { failure.load(ordering: .acquiring) }

    /// Fills ``spare`` and starts the thread writing to `fileDescriptor` (not closed).
    init(fileDescriptor: Int32) {
        for _ in 0..<Self.bufferCount { spare.send(.allocate(byteCount: Self.bufferSize)) }
        NamedThread.start("iap-pack-write") { [self] in run(fileDescriptor: fileDescriptor) }
    }

    /// Takes back every buffer and frees it; call after ``done`` answered.
    func deallocateBuffers() {
        for _ in 0..<Self.bufferCount { spare.receive().deallocate() }
    }

    private func run(fileDescriptor: Int32) {
        var direct = DirectIO.enable(fileDescriptor)
        while true {
            switch work.receive() {
            case .full(let buffer):
                if failureErrno == 0 {
                    write(UnsafeRawBufferPointer(buffer.bytes), to: fileDescriptor, direct: &direct)
                }
                spare.send(buffer)
            case .last(let buffer, let count):
                if direct { direct = !DirectIO.disable(fileDescriptor) }
                if failureErrno == 0 {
                    write(UnsafeRawBufferPointer(rebasing: buffer.bytes[0..<count]), to: fileDescriptor, direct: &direct)
                }
                spare.send(buffer)
                done.send(failureErrno)
                return
            }
        }
    }

    /// Writes all of `bytes` (``DirectIO/writeAll(_:to:direct:)``); records the first failure.
    private func write(_ bytes: UnsafeRawBufferPointer, to fileDescriptor: Int32, direct: inout Bool) {
        let code = DirectIO.writeAll(bytes, to: fileDescriptor, direct: &direct)
        if code != 0 { failure.store(code, ordering: .releasing) }
    }
}
