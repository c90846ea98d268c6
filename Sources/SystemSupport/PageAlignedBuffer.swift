
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
}
