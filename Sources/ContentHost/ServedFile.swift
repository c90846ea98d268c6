import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// One file about to be sent: size, strong ETag and Last-Modified, taken from `fstat` of the
/// descriptor that is read.
///
/// Small mutable files (`catalog.json`, `.sig`: anything outside `archives/` up to
/// ``snapshotLimit``) are read whole from that same descriptor, so a publish that renames a new
/// catalog into place mid-request can never mix the old ETag/length with new bytes. Archives are
/// immutable (content-addressed) and are streamed from disk instead.
struct ServedFile {
    /// Files outside `archives/` up to this size are snapshotted in memory.
    static let snapshotLimit: Int64 = 4 << 20

    /// Exact size in bytes.
    let length: Int64
    /// Strong entity tag, quoted.
    ///
    /// Content-addressed archives (`archives/<64 hex>.tar.zst`) use their SHA-256 (stable across
    /// copies and mirrors); anything else uses `"<size>-<mtime ns>-<inode>"` in hex.
    let entityTag: String
    /// `Last-Modified` as an IMF-fixdate.
    let lastModified: String
    /// The whole content, read from the same descriptor as the validators (small mutable files).
    let snapshot: Data?

    /// Opens and stats `realPath`; `nil` unless it is a readable regular file.
    init?(realPath: String, relative: String) {
        let fd = open(realPath, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = Glibc.stat()
        guard fstat(fd, &info) == 0, (info.st_mode & 0o170000) == 0o100000 else { return nil }  // S_ISREG
        length = Int64(info.st_size)
        let isArchive = relative.hasPrefix("archives/")
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        if isArchive, name.hasSuffix(".tar.zst"),
           case let hex = name.dropLast(".tar.zst".count), hex.count == 64,
           hex.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        {
            entityTag = "\"\(hex)\""
        } else {
            let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            entityTag = "\"\(String(length, radix: 16))-\(String(nanoseconds, radix: 16))-\(String(info.st_ino, radix: 16))\""
        }
        lastModified = Self.httpDate(info.st_mtim.tv_sec)
        if !isArchive, length <= Self.snapshotLimit {
            guard let data = Self.readAll(fd, length: Int(length)) else { return nil }
            snapshot = data
        } else {
            snapshot = nil
        }
    }

    /// Reads exactly `length` bytes from the start of `fd` (nil on error or short file).
    static func readAll(_ fd: Int32, length: Int) -> Data? {
        var data = Data(count: length)
        let complete = data.withUnsafeMutableBytes { buffer -> Bool in
            var offset = 0
            while offset < length {
                let count = pread(fd, buffer.baseAddress! + offset, length - offset, off_t(offset))
                if count < 0, errno == EINTR { continue }
                if count <= 0 { return false }
                offset += count
            }
            return true
        }
        return complete ? data : nil
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
