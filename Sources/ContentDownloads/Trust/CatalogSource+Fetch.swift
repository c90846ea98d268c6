internal import CCurl
internal import Foundation

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
            if allowMissing, !FileManager.default.fileExists(atPath: url.path) { return nil }
            if let size = (try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? Int, size > limit {
                throw DownloadError(code: .catalog, message: "the \(what) \(url.path) is \(size) bytes, more than the \(limit) bytes a client reads (\(limitName)); check the path")
            }
            do { return try Data(contentsOf: url) } catch {
                throw DownloadError(code: .catalog, message: "cannot read the \(what) \(url.path): \(error.localizedDescription); check the path")
            }
        }
        let (status, data) = try fetch(url, transport: transport, what: what, limit: limit, limitName: limitName)
        if allowMissing, status == 404 || status == 410 { return nil }
        guard (200..<300).contains(status) else {
            throw DownloadError(code: .catalog, message: "cannot fetch the \(what): HTTP \(status) for \(url.absoluteString); check the URL")
        }
        return data
    }

    /// One blocking libcurl request for a document: the status and the body (refused past `limit`).
    private static func fetch(
        _ url: URL, transport: TransferSettings, what: String, limit: Int, limitName: String
    ) throws(DownloadError) -> (status: Int, data: Data) {
        final class Sink {
            var data = Data()
            var overflow = false
            let limit: Int
            init(limit: Int) { self.limit = limit }
        }
        let sink = Sink(limit: limit)
        var status = 0
        do {
            let easy = try EasyHandle()
            try easy.setURL(url.absoluteString)
            try easy.configureTransport(transport, headers: [])
            try easy.set(CURLOPT_TIMEOUT, 60)
            try easy.set(pointer: CURLOPT_WRITEDATA, Unmanaged.passUnretained(sink).toOpaque())
            _ = CCurl_easy_setopt_write_function(easy.raw, CURLOPT_WRITEFUNCTION) { data, size, count, user in
                let sink = Unmanaged<Sink>.fromOpaque(user!).takeUnretainedValue()
                let n = size * count
                guard sink.data.count + n <= sink.limit else {
                    sink.overflow = true
                    return 0
                }
                if let data { sink.data.append(UnsafeRawPointer(data).assumingMemoryBound(to: UInt8.self), count: n) }
                return n
            }
            try easy.perform()
            status = easy.responseCode
        } catch {
            if sink.overflow {
                throw DownloadError(code: .catalog, message: "the \(what) at \(url.absoluteString) is larger than \(limit) bytes (\(limitName)); check the URL")
            }
            throw DownloadError(
                code: .catalog, message: "cannot fetch the \(what): \(error); \(error.trustAdvice ?? "check the URL and the network")")
        }
        return (status, sink.data)
    }
}
