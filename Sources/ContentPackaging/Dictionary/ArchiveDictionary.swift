/// The zstd dictionary a chunk-indexed archive's frames were compressed with (`pack --dictionary`), as the signed
/// manifest names it: the dictionary is stored at the very start of the archive, in a zstd skippable frame, and every
/// chunk's frame after it refers to it by ``id``.
///
/// **Why.** Small files are grouped into frames of at most 64 KiB so that a changed file drags few neighbours into
/// an update, but each frame starts without history, which costs the ratio (Django's 3 660 files: 1.12× one frame of
/// the same tree). A dictionary trained on the archive's own small files gives every frame that history back at the
/// cost of its stored bytes once (docs/PERFORMANCE.md, "Small files' frames").
///
/// **Trust.** A client uses the dictionary only after the stored frame's ``length`` and ``sha256`` match this record,
/// which the signed catalog vouches for through the manifest's SHA-256; chunks decoded with it are then checked
/// against their own SHA-256s as always. A standard tool needs the dictionary too: docs/MANIFEST-FORMAT.md shows
/// `zstd -D` reading such an archive.
public struct ArchiveDictionary: Codable, Sendable, Equatable {
    /// The stored frame's bytes, from archive byte 0: its 8-byte skippable-frame header and the dictionary,
    /// zstd-compressed. The first chunk starts right after it.
    public var length: Int64
    /// The dictionary's own bytes once decompressed.
    public var size: Int64
    /// The dictionary's zstd ID, which each frame compressed with it carries in its header.
    public var id: UInt32
    /// Lowercase hex SHA-256 of the stored frame (the archive's first ``length`` bytes).
    public var sha256: String

    /// The largest dictionary a reader loads: 1 MiB (zstd's own trainer suggests about 100 KiB).
    public static let largestSize: Int64 = 1 << 20
    /// The largest stored frame a reader fetches: the largest dictionary, stored without gain, with its headers.
    public static let largestLength: Int64 = largestSize + largestSize / 128 + 1024

    /// Creates a record.
    public init(length: Int64, size: Int64, id: UInt32, sha256: String) {
        self.length = length
        self.size = size
        self.id = id
        self.sha256 = sha256
    }

    /// What is wrong with the record for an archive of `archiveSize` bytes, one sentence each; empty when sound.
    public func problems(archiveSize: Int64) -> [String] {
        var problems: [String] = []
        if length <= 8 || length > Self.largestLength || length > archiveSize {
            problems.append("the dictionary's stored frame of \(length) bytes is outside 9…\(min(Self.largestLength, archiveSize)) bytes")
        }
        if size <= 0 || size > Self.largestSize {
            problems.append("the dictionary's size of \(size) bytes is outside 1…\(Self.largestSize) bytes")
        }
        if id == 0 { problems.append("the dictionary's ID is 0, which zstd reserves for no dictionary") }
        if sha256.utf8.count != 64 || !sha256.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) {
            problems.append("the dictionary has no valid SHA-256 ('\(sha256)')")
        }
        return problems
    }
}
