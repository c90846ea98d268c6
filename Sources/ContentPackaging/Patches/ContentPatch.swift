internal import SystemSupport
package import Foundation

/// A content patch, read and checked for shape (``PatchFormat``): which manifest it patches from and to, and where
/// each frame lies. Nothing is decoded yet; ``PatchApplier`` decodes and verifies.
///
/// Every count and length is checked against the file before it is used: the entries fit, the frames add up to
/// exactly the bytes after them, the entries name each new file at most once in ascending order.
package struct ContentPatch: Sendable, Equatable {
    /// One new file the patch carries.
    package struct Entry: Sendable, Equatable {
        /// The new file: its index in the new manifest's files.
        package var newFile: Int
        /// The old file its frame is compressed against (index in the old manifest's files), `nil` for none.
        package var oldFile: Int?
        /// Where its frame lies in the patch.
        package var frame: Range<Int>
    }

    /// SHA-256 (lowercase hex) of the manifest this patch applies to, byte for byte.
    package var fromManifestSHA256: String
    /// SHA-256 (lowercase hex) of the manifest it makes.
    package var toManifestSHA256: String
    /// Length of the manifest it makes.
    package var toManifestLength: Int
    /// Where the new manifest's frame lies in the patch.
    package var manifestFrame: Range<Int>
    /// The files it carries, by ascending new file.
    package var entries: [Entry]

    /// Reads the header and the entries of the patch `data`.
    /// - Throws: ``PatchError`` naming the field and its offset.
    package static func read(_ data: Data) throws(PatchError) -> ContentPatch {
        var reader = PatchFieldReader(data: data)
        guard try reader.bytes(8, "the magic") == PatchFormat.magic else {
            throw PatchError("not a content patch (no IAPPATCH magic)", offset: 0)
        }
        let version = try reader.uint16("the format version")
        guard version == PatchFormat.version else {
            throw PatchError("format version \(version); this client reads version \(PatchFormat.version) — update iapcontent, or the update fetches the changed chunks instead", offset: 8)
        }
        guard try reader.uint16("the reserved field") == 0 else { throw PatchError("the reserved field is not 0", offset: 10) }
        let count = Int(try reader.uint32("the entry count"))
        let from = try reader.bytes(32, "the old manifest's SHA-256").lowercaseHex
        let to = try reader.bytes(32, "the new manifest's SHA-256").lowercaseHex
        let manifestLength = try reader.uint64("the new manifest's length")
        let manifestFrameLength = Int(try reader.uint32("the manifest frame's length"))
        guard manifestLength <= UInt64(Int32.max) else {
            throw PatchError("the new manifest's length, \(manifestLength), is past the largest a client reads", offset: 80)
        }
        guard count <= (data.count - PatchFormat.headerLength) / PatchFormat.entryLength else {
            throw PatchError("\(count) entries do not fit in a patch of \(data.count) bytes", offset: 12)
        }
        var layout: [(newFile: Int, oldFile: Int?, length: Int, at: Int)] = []
        layout.reserveCapacity(count)
        for index in 0..<count {
            let at = reader.offset
            let newFile = Int(try reader.uint32("entry \(index)'s new file"))
            let oldFile = try reader.uint32("entry \(index)'s old file")
            let length = Int(try reader.uint32("entry \(index)'s frame length"))
            if let previous = layout.last, previous.newFile >= newFile {
                throw PatchError("entry \(index) names new file \(newFile) after \(previous.newFile): entries must name each file once, in ascending order", offset: at)
            }
            layout.append((newFile, oldFile == PatchFormat.noOldFile ? nil : Int(oldFile), length, at))
        }
        var start = reader.offset
        let manifestFrame = start..<(start + manifestFrameLength)
        start = manifestFrame.upperBound
        var entries: [Entry] = []
        entries.reserveCapacity(count)
        for entry in layout {
            guard entry.length > 0, start <= data.count - entry.length else {
                throw PatchError("entry for new file \(entry.newFile): a frame of \(entry.length) bytes at \(start) does not fit in the patch's \(data.count) bytes", offset: entry.at)
            }
            entries.append(Entry(newFile: entry.newFile, oldFile: entry.oldFile, frame: start..<(start + entry.length)))
            start += entry.length
        }
        guard manifestFrameLength > 0, manifestFrame.upperBound <= data.count, start == data.count else {
            throw PatchError("the frames take \(start - reader.offset) bytes after the entries, the patch has \(data.count - reader.offset): cut short or with bytes after its end", offset: reader.offset)
        }
        return ContentPatch(
            fromManifestSHA256: from, toManifestSHA256: to, toManifestLength: Int(manifestLength), manifestFrame: manifestFrame,
            entries: entries)
    }
}

/// Reads the fixed-size little-endian fields of a patch one after another, refusing a read past its end.
struct PatchFieldReader {
    let data: Data
    private(set) var offset = 0

    init(data: Data) { self.data = data }

    mutating func bytes(_ count: Int, _ what: String) throws(PatchError) -> [UInt8] {
        guard offset <= data.count - count else {
            throw PatchError("the patch ends (\(data.count) bytes) before \(what)", offset: offset)
        }
        let start = data.startIndex + offset
        defer { offset += count }
        return Array(data[start..<(start + count)])
    }

    mutating func uint16(_ what: String) throws(PatchError) -> UInt16 {
        try bytes(2, what).reversed().reduce(0) { $0 << 8 | UInt16($1) }
    }

    mutating func uint32(_ what: String) throws(PatchError) -> UInt32 {
        try bytes(4, what).reversed().reduce(0) { $0 << 8 | UInt32($1) }
    }

    mutating func uint64(_ what: String) throws(PatchError) -> UInt64 {
        try bytes(8, what).reversed().reduce(0) { $0 << 8 | UInt64($1) }
    }
}
