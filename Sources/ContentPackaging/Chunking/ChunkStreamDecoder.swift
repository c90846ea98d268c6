import CZstd
import Crypto
import SystemSupport

/// Decompresses one chunk of a chunk-indexed archive from the pieces its frame arrives in, straight into the
/// caller's buffer, and checks it against its index entry — the streaming form of ``ChunkDecoder``.
///
/// libzstd writes into the caller's buffer directly (`ZSTD_d_stableOutBuffer`), so no frame has to be gathered
/// first and no window buffer is allocated: a download holds a few small pieces and the chunk being decoded.
/// The output may not grow past the length the (signed) index declares, so a lying chunk cannot inflate; the
/// SHA-256 is taken over each piece's output while it is still in cache. Nothing is handed out before
/// ``finish()`` has checked the frame's end, the length and the hash — unless the decoder was made with
/// `checksDigest: false`, for a caller that hashes the chunk itself (paired with the files it continues) and
/// uses no byte before comparing that digest with the index. Noncopyable: one owner frees the context.
package struct ChunkStreamDecoder: ~Copyable {
    private let context: OpaquePointer
    private var chunk = ArchiveChunk(offset: 0, length: 0, uncompressedOffset: 0, uncompressedLength: 0, sha256: "")
    private var index = 0
    private var output = UnsafeMutableRawBufferPointer(start: nil, count: 0)
    private var produced = 0
    private var frameEnded = false
    private var hasher = SHA256()
    private let checksDigest: Bool
    /// The archive's dictionary, held as long as the context refers to it.
    private let dictionary: FrameDictionary?

    /// A decoder with its own decompression context; with `checksDigest` false ``finish()`` checks the frame and
    /// the length only, and the caller must check the SHA-256 before using a byte. Frames compressed with the
    /// archive's `dictionary` (verified against the manifest) need it here.
    package init(checksDigest: Bool = true, dictionary: FrameDictionary? = nil) {
        self.checksDigest = checksDigest
        self.dictionary = dictionary
        guard let context = ZSTD_createDCtx() else { fatalError("libzstd could not allocate a decompression context (out of memory)") }
        dictionary?.attach(to: context)
        // ZSTD_d_stableOutBuffer: the output buffer stays put between calls, so libzstd decodes into it and keeps no window.
        ZSTD_DCtx_setParameter(context, ZSTD_d_experimentalParam2, 1)
        self.context = context
    }

    deinit { ZSTD_freeDCtx(context) }

    /// Starts chunk `index` (`chunk` from the index), decoding into `buffer`.
    /// - Throws: ``ChunkError`` when the chunk declares more bytes than `buffer` holds.
    package mutating func begin(_ chunk: ArchiveChunk, index: Int, into buffer: UnsafeMutableRawBufferPointer) throws(ChunkError) {
        guard chunk.uncompressedLength <= Int64(buffer.count) else {
            throw ChunkError(index: index, offset: chunk.offset, reason: "declares \(chunk.uncompressedLength) bytes, more than the chunking maximum \(buffer.count)")
        }
        ZSTD_DCtx_reset(context, ZSTD_reset_session_only)
        self.chunk = chunk
        self.index = index
        output = UnsafeMutableRawBufferPointer(rebasing: buffer[0..<Int(chunk.uncompressedLength)])
        produced = 0
        frameEnded = false
        hasher = SHA256()
    }

    /// Decodes the next piece of the frame.
    /// - Throws: ``ChunkError``: not zstd, more output than declared, or bytes after the frame's end.
    package mutating func feed(_ piece: UnsafeRawBufferPointer) throws(ChunkError) {
        var input = ZSTD_inBuffer(src: piece.baseAddress, size: piece.count, pos: 0)
        while input.pos < input.size {
            guard !frameEnded else { throw failure("holds bytes after the end of its zstd frame") }
            var out = ZSTD_outBuffer(dst: output.baseAddress, size: output.count, pos: produced)
            let result = ZSTD_decompressStream(context, &out, &input)
            if ZSTD_isError(result) != 0 {
                let name = String(cString: ZSTD_getErrorName(result))
                throw failure(out.pos >= output.count
                    ? "decodes to more than the \(output.count) bytes the index declares (\(name))"
                    : "is not a zstd frame of \(output.count) bytes (\(name))")
            }
            if out.pos > produced {
                if checksDigest { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: output[produced..<out.pos])) }
                produced = out.pos
            }
            if result == 0 { frameEnded = true }
            if out.pos == output.count, input.pos < input.size, !frameEnded {
                throw failure("decodes to more than the \(output.count) bytes the index declares")
            }
        }
    }

    /// Ends the chunk: the frame must be complete, of the declared length and SHA-256; returns its bytes.
    package mutating func finish() throws(ChunkError) -> UnsafeRawBufferPointer {
        guard frameEnded else { throw failure("ends before its zstd frame does") }
        guard produced == output.count else {
            throw failure("decodes to \(produced) bytes, not the \(output.count) the index declares")
        }
        guard checksDigest else { return UnsafeRawBufferPointer(output) }
        let actual = hasher.finalizeHex()
        guard actual == chunk.sha256 else { throw failure("has SHA-256 \(actual), the index says \(chunk.sha256)") }
        return UnsafeRawBufferPointer(output)
    }

    private func failure(_ reason: String) -> ChunkError { ChunkError(index: index, offset: chunk.offset, reason: reason) }
}
