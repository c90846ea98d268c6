import SystemSupport
import CZstd
import Crypto
import Glibc

/// Where an ``ArchiveWriter`` sends its tar bytes: compressed with libzstd straight into large
/// page-aligned buffers, hashed there, and handed to an ``ArchiveOutputThread`` that writes them
/// while the writer goes on building the tar stream.
///
/// libarchive writes an *uncompressed* tar through a C callback that calls ``write(_:)`` on the
/// writer's thread. zstd's output lands directly in the buffer the output thread will write (no
/// copy of the compressed bytes), and each piece is hashed right after zstd wrote it, while it
/// is still in the cache; that gives the archive's SHA-256 without reading the file back. Owned by
/// one writer and used on its thread only; the output thread owns whatever buffer it was handed.
final class ArchiveSink {
    /// What ``finish()`` reports.
    struct Outcome: Sendable {
        /// Compressed bytes produced (and hashed).
        var size: Int64
        /// Lowercase hex SHA-256 of those bytes.
        var sha256: String
        /// `errno` of the first failed `write(2)`, 0 when none failed.
        var failureErrno: Int32
    }

    /// The archive path for messages.
    let displayPath: String
    private let output: ArchiveOutputThread
    private var compressor: ZstdFrameCompressor
    /// The buffer being filled, `nil` once the sink stopped.
    private var current: PageAlignedBuffer?
    /// Bytes of ``current`` filled (and hashed) so far.
    private var filled = 0
    private var hasher = SHA256()
    private var size: Int64 = 0
    /// The first compression failure, if any.
    private(set) var compressionError: ZstdError?
    /// The outcome once the sink stopped.
    private var outcome: Outcome?

    /// Starts the output thread writing a zstd frame at `compressionLevel` to `fileDescriptor`
    /// (not closed by the sink).
    ///
    /// - Throws: ``ZstdError`` for a level libzstd does not know (nothing is started then).
    init(fileDescriptor: Int32, displayPath: String, compressionLevel: Int) throws(ZstdError) {
        self.displayPath = displayPath
        compressor = try ZstdFrameCompressor(level: compressionLevel)
        output = ArchiveOutputThread(fileDescriptor: fileDescriptor)
        current = output.spare.receive()
    }

    deinit {
        _ = stop()  // an abandoned archive: no end of frame, but stop the thread and free the buffers
    }

    /// `errno` of the first failed `write(2)` (e.g. `ENOSPC`), 0 when none failed.
    var failureErrno: Int32 { outcome?.failureErrno ?? output.failureErrno }

    /// Compresses `buffer` into the output buffers; false once writing or compressing failed.
    func write(_ buffer: UnsafeRawBufferPointer) -> Bool {
        guard output.failureErrno == 0, compressionError == nil, current != nil else { return false }
        var input = ZSTD_inBuffer(src: buffer.baseAddress, size: buffer.count, pos: 0)
        while input.pos < input.size {
            var out = outBuffer()
            do {
                try compressor.compress(&input, into: &out)
            } catch {
                compressionError = error
                return false
            }
            advance(to: out.pos)
        }
        return true
    }

    /// Ends the zstd frame, writes what is left, waits for the output thread and returns the
    /// outcome (idempotent).
    func finish() -> Outcome {
        if outcome == nil, compressionError == nil, output.failureErrno == 0 {
            do {
                var done = false
                while !done {
                    var out = outBuffer()
                    done = try compressor.end(into: &out)
                    advance(to: out.pos)
                }
            } catch {
                compressionError = error
            }
        }
        return stop()
    }

    /// Hands over the current buffer's bytes, waits for the output thread and frees the buffers
    /// (idempotent).
    private func stop() -> Outcome {
        if let outcome { return outcome }
        output.work.send(.last(current!, count: filled))
        current = nil
        let failureErrno = output.done.receive()
        output.deallocateBuffers()
        let result = Outcome(size: size, sha256: hasher.finalizeHex(), failureErrno: failureErrno)
        outcome = result
        return result
    }

    /// The free part of the current buffer, for zstd to fill.
    private func outBuffer() -> ZSTD_outBuffer {
        ZSTD_outBuffer(dst: current!.bytes.baseAddress, size: current!.count, pos: filled)
    }

    /// Hashes what zstd just wrote (up to `position`); a full buffer goes to the output thread
    /// and a spare one takes its place.
    private func advance(to position: Int) {
        if position > filled {
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: current!.bytes[filled..<position]))
            size += Int64(position - filled)
            filled = position
        }
        guard filled == current!.count else { return }
        output.work.send(.full(current!))
        current = output.spare.receive()
        filled = 0
    }
}
