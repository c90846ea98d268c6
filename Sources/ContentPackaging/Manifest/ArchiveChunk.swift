/// One chunk of a chunk-indexed archive: an independent zstd frame, and the part of the tar stream it holds.
///
/// A schema-2 archive is a sequence of such frames, so any standard tool still reads it as one
/// `tar.zst`, while a client can fetch a chunk by its byte range, decompress it on its own and check
/// its ``sha256`` before a byte of it is used. Chunks cover the archive and the tar stream without
/// gaps, in order.
public struct ArchiveChunk: Codable, Sendable, Equatable {
    /// Offset of the frame in the archive file.
    public var offset: Int64
    /// Length of the frame in bytes.
    public var length: Int64
    /// Offset of the chunk's bytes in the uncompressed tar stream.
    public var uncompressedOffset: Int64
    /// Number of tar-stream bytes the frame decompresses to.
    public var uncompressedLength: Int64
    /// Lowercase hex SHA-256 of those uncompressed bytes.
    public var sha256: String {
        get { storedSHA256.text }
        set { storedSHA256 = StoredSHA256(newValue) }
    }
    /// ``sha256``, held as its bytes.
    package var storedSHA256: StoredSHA256

    /// Creates a chunk record.
    public init(offset: Int64, length: Int64, uncompressedOffset: Int64, uncompressedLength: Int64, sha256: String) {
        self.offset = offset
        self.length = length
        self.uncompressedOffset = uncompressedOffset
        self.uncompressedLength = uncompressedLength
        self.storedSHA256 = StoredSHA256(sha256)
    }

    /// The JSON keys: the stored hash is `sha256`, as hex text.
    private enum CodingKeys: String, CodingKey {
        case offset, length, uncompressedOffset, uncompressedLength, storedSHA256 = "sha256"
    }
}

/// How an archive's chunk boundaries were chosen, so a reader knows what to expect of its chunks.
public struct ChunkingDescription: Codable, Sendable, Equatable {
    /// The boundary algorithm: `gear-fastcdc-1` (content-defined, over the uncompressed tar stream).
    public var algorithm: String
    /// No chunk but the last is shorter, in uncompressed bytes.
    public var minimum: Int64
    /// The size chunks average on varied content.
    public var average: Int64
    /// No chunk is longer.
    public var maximum: Int64
}
