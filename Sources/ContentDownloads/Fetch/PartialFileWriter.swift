internal import SystemSupport
internal import CLinuxSystem
internal import ContentPackaging
internal import Glibc

/// Gathers a transfer's body bytes in one page-aligned buffer and writes them to the partial file.
///
/// Whole aligned blocks go through a second descriptor opened with `O_DIRECT` (``DirectIO``): the
/// bytes skip the page-cache copy, which was the transfer thread's largest cost, and the
/// checkpoint `fsync` no longer has a backlog of dirty pages to write. Bytes that would leave the
/// file offset unaligned (the first bytes after resuming at an unaligned offset, the tail at a
/// stop) go through the ordinary descriptor; `fsync` on either covers both, since it is per file.
/// File systems without `O_DIRECT` (tmpfs) get ordinary writes only.
///
/// A checkpoint may leave less than one page in memory (``flush(all:)`` with `all: false`): the
/// journal then records the aligned, durable offset and those few bytes are fetched again after
/// a crash.
///
/// - Important: Not thread-safe; owned by its ``Transfer`` on the transfer thread.
final class PartialFileWriter {
    private let fd: Int32
    private let path: String
    private var directFD: Int32
    private let buffer: UnsafeMutableRawBufferPointer
    /// Bytes waiting in ``buffer``.
    private(set) var buffered = 0
    /// Bytes in the file.
    private(set) var fileOffset: Int64

    /// Writes to `fd` (owned by the caller) at `offset`; opens `path` again with `O_DIRECT` when possible.
    init(fd: Int32, path: String, offset: Int64, capacity: Int, direct: Bool) {
        self.fd = fd
        self.path = path
        self.fileOffset = offset
        buffer = DirectIO.allocateBuffer(byteCount: max(capacity, DirectIO.alignment))
        directFD = direct ? DirectIO.flag.map { open(path, O_WRONLY | O_CLOEXEC | $0) } ?? -1 : -1
    }

    deinit {
        if directFD >= 0 { close(directFD) }
        buffer.deallocate()
    }

    /// Bytes received: in the file plus buffered.
    var received: Int64 { fileOffset + Int64(buffered) }

    /// Copies `bytes` in, writing each buffer out as it fills.
    func append(_ bytes: UnsafeRawBufferPointer) throws(TransferFailure) {
        var consumed = 0
        while consumed < bytes.count {
            let count = min(buffer.count - buffered, bytes.count - consumed)
            UnsafeMutableRawBufferPointer(rebasing: buffer[buffered..<(buffered + count)])
                .copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[consumed..<(consumed + count)]))
            buffered += count
            consumed += count
            if buffered == buffer.count { try flush(all: false) }
        }
    }

    /// Writes the buffer: everything when `all`, else all but an unaligned tail of under one page.
    func flush(all: Bool) throws(TransferFailure) {
        var start = 0
        while start < buffered {
            let remaining = buffered - start
            let misalignment = Int(fileOffset % Int64(DirectIO.alignment))
            let count: Int
            let target: Int32
            if directFD >= 0, misalignment == 0, remaining >= DirectIO.alignment {
                count = remaining / DirectIO.alignment * DirectIO.alignment
                target = directFD
            } else if misalignment != 0 {
                count = min(remaining, DirectIO.alignment - misalignment)  // realign through the cache
                target = fd
            } else if all || directFD < 0 {
                count = remaining
                target = fd
            } else {
                break  // keep the sub-page tail for the next flush
            }
            let written = try write(UnsafeRawBufferPointer(rebasing: buffer[start..<(start + count)]), to: target)
            if written == 0, target == fd { throw .io(operation: "write", path: path, errno: EIO) }
            if target == fd, written > 0 {
                // Start the device write now, without waiting: the next checkpoint fsync finds these
                // pages under way instead of dirty and returns sooner (fsync time per GiB halved).
                _ = CLinuxSystem_startWriteback(fd, fileOffset, Int64(written))
            }
            start += written
            fileOffset += Int64(written)
        }
        if start > 0, start < buffered {
            buffer.baseAddress!.copyMemory(from: buffer.baseAddress! + start, byteCount: buffered - start)
        }
        buffered -= start
    }

    /// After a restart from zero (the caller truncated the file).
    func reset() {
        buffered = 0
        fileOffset = 0
    }

    /// One pwrite (retrying EINTR); returns the bytes written. A refused direct write (`EINVAL`)
    /// closes the direct descriptor and reports 0, so the caller retries through the cache.
    private func write(_ bytes: UnsafeRawBufferPointer, to target: Int32) throws(TransferFailure) -> Int {
        while true {
            let count = pwrite(target, bytes.baseAddress, bytes.count, off_t(fileOffset))
            if count >= 0 { return count }
            let code = errno
            if code == EINTR { continue }
            if code == EINVAL, target == directFD {
                close(directFD)
                directFD = -1
                return 0
            }
            throw .io(operation: "write", path: path, errno: code)
        }
    }
}
