import Foundation
import Glibc

/// One file about to be sent: size, strong ETag and Last-Modified.
///
/// Small mutable files (`catalog.json`, `.sig`: anything outside `archives/` up to
/// ``snapshotLimit``) are read whole, between two stats that must agree (size, mtime, inode), so a
/// publish that renames a new catalog into place mid-request can never mix the old ETag/length
/// with new bytes. Archives are immutable (content-addressed) and are streamed from disk instead.
struct ServedFile {
    /// Files outside `archives/` up to this size are snapshotted in memory.
    static let snapshotLimit: Int64 = 4 << 20

    /// Exact size in bytes.
    let length: Int64
    /// Strong entity tag, quoted.
    ///
    /// Content-addressed archives (`archives/<64 hex>.tar.zst`) use their SHA-256 (stable across
    /// copies and mirrors); anything else uses `"<size>-<mtime µs>-<inode>"` in hex.
    let entityTag: String
    /// `Last-Modified` as an IMF-fixdate.
    let lastModified: String
    /// The whole content, read between two agreeing stats (small mutable files only).
    let snapshot: Data?

    /// What identifies one version of a file on disk.
    struct Identity: Equatable {
        var size: Int64
        var modified: Date
        var inode: UInt64

        init?(path: String) {
            guard let attributes = try? FileManager.default.attributesOfItem(atPath: path),
                  attributes[.type] as? FileAttributeType == .typeRegular,
                  let size = (attributes[.size] as? NSNumber)?.int64Value,
                  let modified = attributes[.modificationDate] as? Date,
                  let inode = (attributes[.systemFileNumber] as? NSNumber)?.uint64Value
            else { return nil }
            self.size = size
            self.modified = modified
            self.inode = inode
        }
    }

    /// Stats (and for small mutable files reads) `realPath`; `nil` unless it is a readable regular file.
    init?(realPath: String, relative: String) {
        let isArchive = relative.hasPrefix("archives/")
        for _ in 0..<3 {
            guard let before = Identity(path: realPath) else { return nil }
            var snapshot: Data?
            if !isArchive, before.size <= Self.snapshotLimit {
                guard let data = FileManager.default.contents(atPath: realPath) else { return nil }
                // Replaced while reading: try again with the new file.
                guard Identity(path: realPath) == before, Int64(data.count) == before.size else { continue }
                snapshot = data
            }
            self.init(identity: before, relative: relative, snapshot: snapshot)
            return
        }
        return nil
    }

    private init(identity: Identity, relative: String, snapshot: Data?) {
        length = identity.size
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        if relative.hasPrefix("archives/"), name.hasSuffix(".tar.zst"),
           case let hex = name.dropLast(".tar.zst".count), hex.count == 64,
           hex.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        {
            entityTag = "\"\(hex)\""
        } else {
            let microseconds = Int64((identity.modified.timeIntervalSince1970 * 1_000_000).rounded())
            entityTag = "\"\(String(length, radix: 16))-\(String(microseconds, radix: 16))-\(String(identity.inode, radix: 16))\""
        }
        lastModified = Self.httpDate(time_t(identity.modified.timeIntervalSince1970.rounded(.down)))
        self.snapshot = snapshot
    }

    /// RFC 9110 IMF-fixdate, e.g. `Sun, 06 Nov 1994 08:49:37 GMT`.
    static func httpDate(_ seconds: time_t) -> String {
        var time = seconds
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
