import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// What `serve` knows about a file before sending it: size, strong ETag, Last-Modified.
struct FileValidators {
    /// Exact size in bytes.
    let length: Int64
    /// Strong entity tag, quoted.
    ///
    /// Content-addressed archives (`archives/<64 hex>.tar.zst`) use their SHA-256 (stable across
    /// copies and mirrors); anything else uses `"<size>-<mtime ns>-<inode>"` in hex.
    let entityTag: String
    /// `Last-Modified` as an IMF-fixdate.
    let lastModified: String

    /// Stats `realPath`; `nil` unless it is a regular file.
    init?(realPath: String, relative: String) {
        var info = stat()
        guard stat(realPath, &info) == 0, (info.st_mode & 0o170000) == 0o100000 else { return nil }  // S_ISREG
        length = Int64(info.st_size)
        let name = relative.split(separator: "/").last.map(String.init) ?? relative
        if relative.hasPrefix("archives/"), name.hasSuffix(".tar.zst"),
           case let hex = name.dropLast(".tar.zst".count), hex.count == 64,
           hex.utf8.allSatisfy({ (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || (UInt8(ascii: "a")...UInt8(ascii: "f")).contains($0) })
        {
            entityTag = "\"\(hex)\""
        } else {
            let nanoseconds = Int64(info.st_mtim.tv_sec) * 1_000_000_000 + Int64(info.st_mtim.tv_nsec)
            entityTag = "\"\(String(length, radix: 16))-\(String(nanoseconds, radix: 16))-\(String(info.st_ino, radix: 16))\""
        }
        lastModified = Self.httpDate(info.st_mtim.tv_sec)
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
