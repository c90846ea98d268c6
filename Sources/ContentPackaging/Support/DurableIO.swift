import Glibc

/// The two system-call loops every crash-safe write in the package needs, kept once.
///
/// Packing (``DurableFile`` here, with ``PackError``) and the catalog tools (ContentDelivery's
/// `DurableFile`, with `FileSystemError`) report failures in their own error types; both return
/// the raw `errno` from here and wrap it, so the loops themselves are not written twice.
package enum DurableIO {
    /// Writes every byte of `buffer` to `fd`, retrying short writes and `EINTR`; returns 0 or the
    /// `errno` of the failed write (e.g. `ENOSPC`).
    package static func writeAll(_ fd: Int32, _ buffer: UnsafeRawBufferPointer) -> Int32 {
        var direct = false
        return DirectIO.writeAll(buffer, to: fd, direct: &direct)
    }

    /// fsyncs the directory at `path`, so a rename or creation inside it survives a crash; returns
    /// 0 or the `errno` of the failed `open` or `fsync`, and which of the two failed.
    package static func syncDirectory(_ path: String) -> (errno: Int32, operation: String) {
        let fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return (errno, "open") }
        defer { close(fd) }
        return fsync(fd) == 0 ? (0, "") : (errno, "fsync")
    }
}
