/// The constants of the compact manifest format (docs/MANIFEST-FORMAT.md): its magic, version, flags
/// and limits. Encoder and decoder share them, so the two cannot drift apart.
enum CompactManifestFormat {
    /// The first eight bytes: `\x89IAPM\r\n\x1a`. The high first byte marks the file as binary (it is never
    /// the first byte of a JSON manifest, which starts with `{`), and the CR LF and Ctrl-Z expose a transfer
    /// that rewrote line ends.
    static let magic: [UInt8] = [0x89, 0x49, 0x41, 0x50, 0x4D, 0x0D, 0x0A, 0x1A]
    /// The version of the layout this code writes and reads. A reader refuses another version.
    static let version: UInt8 = 1
    /// The one body compression: a zstd frame (with its content checksum).
    static let zstdCompression: UInt8 = 1
    /// The zstd level of the body: past it the bytes barely shrink (SHA-256s are most of the body and do
    /// not compress) while the time grows.
    static let zstdLevel: Int32 = 12

    /// The presence flags of the optional fields.
    enum Flag {
        static let archiveSHA256: UInt64 = 1 << 0
        static let directories: UInt64 = 1 << 1
        static let chunking: UInt64 = 1 << 2
        static let chunks: UInt64 = 1 << 3
        static let dataOffsets: UInt64 = 1 << 4
        static let packs: UInt64 = 1 << 5
        static let linkedFiles: UInt64 = 1 << 6
        static let dictionary: UInt64 = 1 << 7
        static let all: UInt64 = (1 << 8) - 1
    }

    /// The longest header string (product, version, archive name, chunking algorithm), in bytes.
    static let maxHeaderString = 1024
    /// The longest pack declaration (canonical JSON), in bytes: a hundred packs with a few paths each.
    static let maxPacksJSON = 1 << 20
    /// The bytes a SHA-256 takes, raw.
    static let digestBytes = 32
    /// The fewest bytes one file takes in the body: a path (shared-prefix varint, length varint, at least
    /// one byte), a size, and a SHA-256; a data offset adds one more.
    static let minimumFileBytes = 3 + 1 + digestBytes
    /// The fewest bytes one linked file takes: its index's distance from the previous one and its source's.
    static let minimumLinkBytes = 2
    /// The fewest bytes one directory takes: a path.
    static let minimumDirectoryBytes = 3
    /// The fewest bytes one chunk takes: two lengths and a SHA-256.
    static let minimumChunkBytes = 2 + digestBytes
}
