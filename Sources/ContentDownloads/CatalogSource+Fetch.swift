internal import CCurl
internal import Foundation

extension CatalogSource {
    /// The bytes at `url` (at most ``maxCatalogBytes``); `nil` for a missing file or HTTP 404/410
    /// when `allowMissing`, otherwise a `.catalog` error naming `what`. Catalogs, their signatures and
    /// manifests all come through here, with the archives' connection settings (`transport`).
    static func read(
        _ url: URL, transport: TransferSettings, what: String, allowMissing: Bool = false
    ) throws(DownloadError) -> Data? {
        if url.isFileURL {
            if allowMissing, !FileManager.default.fileExists(atPath: url.path) { return nil }
            do { return try Data(contentsOf: url) } catch {
                throw DownloadError(code: .catalog, message: "cannot read the \(what) \(url.path): \(error.localizedDescription); check the path")
            }
        }
        let (status, data) = try fetch(url, transport: transport, what: what)
        if allowMissing, status == 404 || status == 410 { return nil }
        guard (200..<300).contains(status) else {
            throw DownloadError(code: .catalog, message: "cannot fetch the \(what): HTTP \(status) for \(url.absoluteString); check the URL")
        }
        return data
    }

    /// One blocking libcurl request for a small document: the status and the body (refused past ``maxCatalogBytes``).
    private static func fetch(
        _ url: URL, transport: TransferSettings, what: String
    ) throws(DownloadError) -> (status: Int, data: Data) {
        final class Sink {
            var data = Data()
            var overflow = false
        }
        let sink = Sink()
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
                guard sink.data.count + n <= CatalogSource.maxCatalogBytes else {
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
                throw DownloadError(code: .catalog, message: "the \(what) at \(url.absoluteString) is larger than \(maxCatalogBytes) bytes; check the URL")
            }
            throw DownloadError(code: .catalog, message: "cannot fetch the \(what): \(error); check the URL and the network")
        }
        return (status, sink.data)
    }
}
