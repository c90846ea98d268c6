import Glibc


/// A fixed-size, page-aligned byte buffer that pipeline threads hand to each other.
///
/// Page alignment lets the output writer use `O_DIRECT`. The buffer is a plain pointer so it can
/// cross threads without copying; it is `@unchecked Sendable` because ownership moves with it:
/// only the thread that last received it through a ``BlockingChannel`` touches the bytes. The
/// pipeline that allocates buffers frees them once every thread has handed them back.
package struct PageAlignedBuffer: @unchecked Sendable {
    /// The bytes.
    package let bytes: UnsafeMutableRawBufferPointer

    /// Allocates `byteCount` bytes (rounded up to a page, ``DirectIO/alignment``), uninitialized.
    package static func allocate(byteCount: Int) -> PageAlignedBuffer {
        PageAlignedBuffer(bytes: DirectIO.allocateBuffer(byteCount: byteCount))
    }

    /// Capacity in bytes.
    package var count: Int { bytes.count }

    /// Frees the memory; the buffer must not be used afterwards.
    package func deallocate() { bytes.deallocate() }

    /// Hands the pages past the first `bytes` (rounded up to a page) back to the kernel (`MADV_DONTNEED`), so a
    /// buffer sized for the largest chunk holds only what typical chunks use; the next touch gets zeroed pages.
    package func trim(keeping bytes: Int) {
        let keep = (bytes + DirectIO.alignment - 1) / DirectIO.alignment * DirectIO.alignment
        guard keep < count, let base = self.bytes.baseAddress else { return }
        madvise(base + keep, count - keep, MADV_DONTNEED)
    }
}
