internal import CurlTransport
internal import Foundation
import Glibc

/// The requests of one repository update: every metadata file and snapshot-tree node, each bounded by the size a
/// client reads for it, conditional (`If-None-Match`) when the caller knows the file's ETag, and counted, so an
/// update check reports what it cost on the wire instead of guessing.
///
/// Used by one update on one thread, then dropped: it is not shared.
final class RepositoryFetch {
    /// What a request returned.
    enum Response {
        /// HTTP 2xx (or a local file): the body and its ETag, when the server sent one.
        case body(Data, etag: String?)
        /// HTTP 304: the file is the one whose ETag was sent.
        case notModified
        /// HTTP 404 or 410, or no such local file.
        case missing
    }

    /// The repository's folder URL (`…/repo/`, holding `metadata/` and `targets/`).
    let base: URL
    /// The connection settings the archives use.
    let transport: TransferSettings
    /// Requests made.
    private(set) var requests = 0
    /// Bytes received: response headers and bodies.
    private(set) var bytesReceived = 0
    /// The signature checks of this update.
    let signatures = SignatureTimer()
    /// Snapshot-tree nodes read during this update, by hash (a node never changes).
    var nodes: [String: [UInt8]] = [:]

    init(base: URL, transport: TransferSettings) {
        self.base = base
        self.transport = transport
    }

    /// `base` + `relative`, as a display string too.
    func url(_ relative: String) -> URL { URL(string: relative, relativeTo: base)?.absoluteURL ?? base.appendingPathComponent(relative) }

    /// Attempts per file: a dropped connection, a 429 or a 5xx is tried again (a CDN edge or one server of a pool
    /// failing for a moment), after ``retryDelays``; a TLS or certificate failure is not.
    static let retryDelays: [Double] = [0.2, 0.6]

    /// Fetches `relative` (under the repository), refusing more than `limit` bytes with `.metadataTooLarge`.
    func get(_ relative: String, limit: Int, etag: String? = nil) throws(DownloadError) -> Response {
        let url = url(relative)
        if url.isFileURL {
            requests += 1
            return try readLocal(url, limit: limit)
        }
        var attempt = 0
        while true {
            requests += 1
            let (response, failure) = DocumentRequest.get(
                url, transport: transport, headers: etag.map { ["If-None-Match: \($0)"] } ?? [], limit: limit)
            let transient = (failure != nil && !response.overflow && failure?.trustAdvice == nil)
                || response.status == 429 || (500...599).contains(response.status)
            guard transient, attempt < Self.retryDelays.count else {
                return try outcome(response, failure, relative: relative, url: url, limit: limit)
            }
            bytesReceived += response.bytesReceived
            Thread.sleep(forTimeInterval: Self.retryDelays[attempt])
            attempt += 1
        }
    }

    /// What one request's answer means: a body, a 304, a missing file, or the error it names.
    private func outcome(
        _ response: DocumentRequest.Response, _ failure: CurlError?, relative: String, url: URL, limit: Int
    ) throws(DownloadError) -> Response {
        bytesReceived += response.bytesReceived
        if response.overflow {
            throw .repository(
                .metadataTooLarge, file: relative, repository: base.absoluteString,
                "it is larger than the \(limit) bytes a client reads for it; the server may be sending endless data")
        }
        if let failure {
            throw DownloadError(
                code: .catalog,
                message: "cannot fetch \(url.absoluteString): \(failure); \(failure.trustAdvice ?? "check the URL and the network")")
        }
        switch response.status {
        case 304: return .notModified
        case 404, 410: return .missing
        case 200..<300: return .body(response.body, etag: response.etag)
        default:
            throw DownloadError(
                code: .catalog, message: "cannot fetch \(url.absoluteString): HTTP \(response.status); check the repository URL and the server")
        }
    }

    /// A local file, refused past `limit` (checked before reading, and again by the bounded read).
    private func readLocal(_ url: URL, limit: Int) throws(DownloadError) -> Response {
        var info = stat()
        if stat(url.path, &info) == 0, info.st_size > limit {
            throw .repository(
                .metadataTooLarge, file: url.lastPathComponent, repository: base.absoluteString,
                "it is \(info.st_size) bytes, more than the \(limit) bytes a client reads for it")
        }
        guard let data = try CatalogSource.read(url, transport: transport, what: "repository file", allowMissing: true, limit: limit)
        else { return .missing }
        bytesReceived += data.count
        return .body(data, etag: nil)
    }
}
