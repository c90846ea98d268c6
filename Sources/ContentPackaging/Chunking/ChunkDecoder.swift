import CZstd
import Crypto
import SystemSupport

/// Decompresses one chunk of a chunk-indexed archive and checks it against its index entry before
/// anyone sees a byte of it.
///
/// A chunk is one complete zstd frame. It is decoded into a buffer of exactly the length the (signed)
/// index declares — a frame that would decode to more stops there, so a lying chunk cannot inflate —
/// and the result must have that length and that SHA-256. Only then is the buffer handed out.
/// Noncopyable: one owner frees the context and the buffer exactly once.
package struct ChunkDecoder: ~Copyable {
    private let context: OpaquePointer
    private let buffer: UnsafeMutableRawBufferPointer
    /// The archive's dictionary, held as long as the context refers to it.
    private let dictionary: FrameDictionary?

    /// A decoder for chunks of at most `maximumLength` uncompressed bytes, of an archive whose frames were compressed
    /// with `dictionary` (verified against the manifest) when it has one.
    package init(maximumLength: Int, dictionary: FrameDictionary? = nil) {
        guard let context = ZSTD_createDCtx() else { fatalError("libzstd could not allocate a decompression context (out of memory)") }
        dictionary?.attach(to: context)
        self.dictionary = dictionary
        self.context = context
        buffer = .allocate(byteCount: max(1, maximumLength), alignment: 64)
    }

    deinit {
        ZSTD_freeDCtx(context)
        buffer.deallocate()
    }

    /// Decodes `frame` as `chunk` (number `index`, for messages); returns its verified bytes, valid until
    /// the next call.
    /// - Throws: ``ChunkError`` naming the chunk and its archive offset: not one zstd frame, a length other
    ///   than declared, or a SHA-256 other than declared.
    package mutating func decode(
        _ frame: UnsafeRawBufferPointer, as chunk: ArchiveChunk, index: Int
    ) throws(ChunkError) -> UnsafeRawBufferPointer {
        let expected = Int(chunk.uncompressedLength)
        guard expected <= buffer.count else {
            throw ChunkError(index: index, offset: chunk.offset, reason: "declares \(expected) bytes, more than the chunking maximum \(buffer.count)")
        }
        let result = ZSTD_decompressDCtx(context, buffer.baseAddress, expected, frame.baseAddress, frame.count)
        if ZSTD_isError(result) != 0 {
            let name = String(cString: ZSTD_getErrorName(result))
            throw ChunkError(index: index, offset: chunk.offset, reason: "is not a zstd frame of \(expected) bytes (\(name))")
        }
        guard result == expected else {
            throw ChunkError(index: index, offset: chunk.offset, reason: "decodes to \(result) bytes, not the \(expected) the index declares")
        }
        let bytes = UnsafeRawBufferPointer(rebasing: buffer[0..<expected])
        let actual = SHA256.hash(data: bytes).lowercaseHex
        guard actual == chunk.sha256 else {
            throw ChunkError(index: index, offset: chunk.offset, reason: "has SHA-256 \(actual), the index says \(chunk.sha256)")
        }
        return bytes
    }
}

/// A chunk that did not check out: which one, where it starts in the archive, and how it failed.
package struct ChunkError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The chunk's position in the index.
    package var index: Int
    /// Where the chunk's frame starts in the archive.
    package var offset: Int64
    /// What was wrong with it.
    package var reason: String

    /// Chunk `index`, whose frame starts at archive byte `offset`, failed for `reason`.
    package init(index: Int, offset: Int64, reason: String) {
        self.index = index
        self.offset = offset
        self.reason = reason
    }

    /// "chunk 3 at archive byte 123456 has SHA-256 …".
    package var description: String { "chunk \(index) at archive byte \(offset) \(reason)" }
}
