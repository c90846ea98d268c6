import Foundation
import Glibc
import Synchronization

/// The thread that writes archive buffers to the file, so that whoever hands a buffer over can
/// hash it while the write is in flight (a direct write blocks for the device, about 0.3 ms per
/// 512 KiB here; hashing the same buffer takes about as long).
///
/// Full buffers are written with `O_DIRECT` where the file system allows it: the bytes go
/// straight to the device instead of piling up as dirty page cache that the packer's closing
/// `fsync` would then have to flush in one long stall (and that would evict the author's files
/// from the cache). The last, partial buffer is written through the cache (`O_DIRECT` needs
/// whole blocks); the caller's `fsync` makes everything durable. Without `O_DIRECT` support (or
/// after a short write) it simply writes through the cache.
///
/// One write at a time: ``write(_:count:isLast:)`` starts it and ``waitForWrite()`` waits for it.
/// Between the two, the buffer is only *read*, by this thread and the caller. The first
/// `write(2)` failure stops writing; ``failureErrno`` then tells the producer to stop early.
final class ArchiveFileWriter: Sendable {
    /// One buffer to write.
    private struct Request: Sendable {
        var buffer: PageAlignedBuffer
        var count: Int
        var isLast: Bool
    }

    private let requests = BlockingChannel<Request>(capacity: 1)
    private let written = BlockingChannel<Bool>(capacity: 1)
    /// `errno` of the first failed write (0 while none has).
    private let failure = Atomic<Int32>(0)

    /// `errno` of the first failed write so far, 0 when none failed.
    var failureErrno: Int32 { failure.load(ordering: .acquiring) }

    /// Starts the thread writing to `fileDescriptor` (not closed).
    init(fileDescriptor: Int32) {
        let thread = Thread { [self] in run(fileDescriptor: fileDescriptor) }
        thread.name = "iapcontent archive write"
        thread.start()
    }

    /// Starts writing the first `count` bytes of `buffer`; after the last one the thread exits.
    func write(_ buffer: PageAlignedBuffer, count: Int, isLast: Bool) {
        requests.send(Request(buffer: buffer, count: count, isLast: isLast))
    }

    /// Waits until the write started by ``write(_:count:isLast:)`` is done (or failed).
    func waitForWrite() {
        _ = written.receive()
    }

    private func run(fileDescriptor: Int32) {
        var direct = Self.enableDirectIO(fileDescriptor)
        while true {
            let request = requests.receive()
            if request.isLast, direct { direct = !Self.disableDirectIO(fileDescriptor) }
            if failureErrno == 0 {
                write(
                    UnsafeRawBufferPointer(rebasing: request.buffer.bytes[0..<request.count]),
                    to: fileDescriptor, direct: &direct)
            }
            written.send(true)
            if request.isLast { return }
        }
    }

    /// Writes all of `bytes` (retrying `EINTR` and short writes); records the first failure.
    private func write(_ bytes: UnsafeRawBufferPointer, to fileDescriptor: Int32, direct: inout Bool) {
        var offset = 0
        while offset < bytes.count {
            let count = Glibc.write(fileDescriptor, bytes.baseAddress! + offset, bytes.count - offset)
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                if code == EINVAL, direct, Self.disableDirectIO(fileDescriptor) {
                    direct = false  // the file system refused O_DIRECT after all: go through the cache
                    continue
                }
                failure.store(code, ordering: .releasing)
                return
            }
            offset += count
            if offset < bytes.count, direct {
                // A short direct write leaves the offset unaligned: finish through the cache.
                direct = !Self.disableDirectIO(fileDescriptor)
            }
        }
    }

    /// `O_DIRECT` for this platform (Glibc's module does not export it); `nil` where unknown.
    private static var directFlag: Int32? {
        #if arch(x86_64) || arch(i386)
        return 0o40000
        #elseif arch(arm64) || arch(arm)
        return 0o200000
        #else
        return nil
        #endif
    }

    /// Turns `O_DIRECT` on; false when the platform or file system does not support it.
    private static func enableDirectIO(_ fileDescriptor: Int32) -> Bool {
        guard let flag = directFlag else { return false }
        let flags = fcntl(fileDescriptor, F_GETFL)
        return flags >= 0 && fcntl(fileDescriptor, F_SETFL, flags | flag) == 0
    }

    /// Turns `O_DIRECT` off; true when it is off now.
    private static func disableDirectIO(_ fileDescriptor: Int32) -> Bool {
        guard let flag = directFlag else { return true }
        let flags = fcntl(fileDescriptor, F_GETFL)
        return flags >= 0 && fcntl(fileDescriptor, F_SETFL, flags & ~flag) == 0
    }
}
