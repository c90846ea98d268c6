internal import CurlTransport
internal import Foundation
import Glibc

extension CatalogSource {
    /// The bytes at `url` (at most `limit`, named `limitName` in the refusal; by default ``maxCatalogBytes``);
    /// `nil` for a missing file or HTTP 404/410 when `allowMissing`, otherwise a `.catalog` error naming
    /// `what`. Catalogs, their signatures and manifests all come through here, with the archives' connection
    /// settings (`transport`).
    static func read(
        _ url: URL, transport: TransferSettings, what: String, allowMissing: Bool = false,
        limit: Int = maxCatalogBytes, limitName: String = "CatalogSource.maxCatalogBytes"
    ) throws(DownloadError) -> Data? {
        if url.isFileURL {
            return try readLocal(url.path, what: what, allowMissing: allowMissing, limit: limit, limitName: limitName)
        }
        let (status, data) = try fetch(url, transport: transport, what: what, limit: limit, limitName: limitName)
        if allowMissing, status == 404 || status == 410 { return nil }
        guard (200..<300).contains(status) else {
            throw DownloadError(code: .catalog, message: "cannot fetch the \(what): HTTP \(status) for \(url.absoluteString); check the URL")
        }
        return data
    }

    /// The local file at `path`: opened without blocking (a FIFO would block `open()` until a writer came, deaf to
    /// signals), refused unless a regular file of at most `limit` bytes, read to its end but never past the limit.
    private static func readLocal(
        _ path: String, what: String, allowMissing: Bool, limit: Int, limitName: String
    ) throws(DownloadError) -> Data? {
        let fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            if allowMissing, code == ENOENT { return nil }
            throw DownloadError(code: .catalog, message: "cannot read the \(what) \(path): \(String(cString: strerror(code))); check the path")
        }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else {
            throw DownloadError(code: .catalog, message: "the \(what) \(path) is not a regular file (a FIFO, device or folder); check the path")
        }
        guard info.st_size <= limit else {
            throw DownloadError(code: .catalog, message: "the \(what) \(path) is \(info.st_size) bytes, more than the \(limit) bytes a client reads (\(limitName)); check the path")
        }
        var data = Data(count: Int(info.st_size) + 1)  // one byte more: a file that grew is seen, not cut
        var filled = 0
        while filled < data.count {
            let count = data.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress! + filled, $0.count - filled) }
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else {
                throw DownloadError(code: .catalog, message: "cannot read the \(what) \(path): \(String(cString: strerror(errno))); check the path")
            }
            if count == 0 { break }
            filled += count
        }
        guard filled <= limit, filled <= Int(info.st_size) else {
            throw DownloadError(code: .catalog, message: "the \(what) \(path) grew while it was read (past \(info.st_size) bytes); read it again when it is written")
        }
        return data.prefix(filled)
    }

    /// One blocking libcurl request for a document: the status and the body (refused past `limit`).
    private static func fetch(
        _ url: URL, transport: TransferSettings, what: String, limit: Int, limitName: String
    ) throws(DownloadError) -> (status: Int, data: Data) {
        let (response, failure) = DocumentRequest.get(url, transport: transport, limit: limit)
        if response.overflow {
            throw DownloadError(code: .catalog, message: "the \(what) at \(url.absoluteString) is larger than \(limit) bytes (\(limitName)); check the URL")
        }
        if let failure {
            throw DownloadError(
                code: .catalog, message: "cannot fetch the \(what): \(failure); \(failure.trustAdvice ?? "check the URL and the network")")
        }
        return (response.status, response.body)
    }
}
