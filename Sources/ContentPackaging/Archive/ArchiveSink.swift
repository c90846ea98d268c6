import Glibc

/// Where an ``ArchiveWriter`` sends its compressed bytes: gathered into large page-aligned buffers
/// that an ``ArchiveOutputThread`` hashes and writes while libarchive goes on compressing.
///
/// libarchive calls ``write(_:)`` through a C callback on the writer's thread; hashing on the way
/// out gives the archive's SHA-256 without reading the file back. Owned by one writer and used on
/// its thread only; the output thread owns whatever buffer it has been handed.
final class ArchiveSink {
    /// The archive path for messages.
    let displayPath: String
    private let output: ArchiveOutputThread
    /// The buffer being filled, `nil` once ``finish()`` handed it over.
    private var current: PageAlignedBuffer?
    /// Bytes of ``current`` filled so far.
    private var filled = 0
    /// The outcome once ``finish()`` ran.
    private var outcome: ArchiveOutputThread.Outcome?

    /// Starts the output thread writing to `fileDescriptor` (not closed by the sink).
    init(fileDescriptor: Int32, displayPath: String) {
        self.displayPath = displayPath
        output = ArchiveOutputThread(fileDescriptor: fileDescriptor)
        current = output.spare.receive()
    }

    deinit {
        _ = finish()  // an abandoned archive: still stop the thread and free the buffers
    }

    /// `errno` of the first failed `write(2)` (e.g. `ENOSPC`), 0 when none failed.
    var failureErrno: Int32 { outcome?.failureErrno ?? output.failureErrno }

    /// Queues `buffer` for writing; false once a write has failed.
    func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard output.failureErrno == 0, var target = current else { return false }
        var offset = 0
        while offset < buffer.count {
            let count = min(buffer.count - offset, target.count - filled)
            (target.bytes.baseAddress! + filled).copyMemory(from: buffer.baseAddress! + offset, byteCount: count)
            filled += count
            offset += count
            if filled == target.count {
                output.work.send(.full(target))
                target = output.spare.receive()
                current = target
                filled = 0
            }
        }
        return true
    }

    /// Writes what is left, waits for the output thread and returns its outcome (idempotent).
    func finish() -> ArchiveOutputThread.Outcome {
        if let outcome { return outcome }
        output.work.send(.last(current!, count: filled))
        current = nil
        let result = output.done.receive()
        output.deallocateBuffers()
        outcome = result
        return result
    }
}
