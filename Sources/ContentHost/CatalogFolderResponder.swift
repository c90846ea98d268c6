import ContentDelivery
import Foundation
import Hummingbird
import Logging

/// Serves a catalog folder read-only: GET and HEAD, single byte ranges, strong ETags, `If-Range`,
/// `If-None-Match`, cache headers, optional URL tokens on `archives/*` and `manifests/*`, and an access log.
///
/// Headers on every file response: `Accept-Ranges: bytes`, `ETag`, `Last-Modified`,
/// `Content-Type`, `Content-Length`, and `Cache-Control` — `public, max-age=31536000, immutable`
/// for `archives/*` and `manifests/*` (content-addressed, never change; a manifest lists the files of paid
/// content, so it is protected like its archive) and `no-cache` for everything else
/// (`catalog.json` and its `.sig` change on every publish).
struct CatalogFolderResponder: HTTPResponder {
    typealias Context = BasicRequestContext

    let folder: FolderPath
    let tokenVerifier: URLTokenVerifier?
    let logger: Logger
    let fileIO = FileIO()

    static let immutableCacheControl = "public, max-age=31536000, immutable"
    static let revalidateCacheControl = "no-cache"

    func respond(to request: Request, context: Context) async throws -> Response {
        let response = try await makeResponse(request, context: context)
        // Path only: the query may carry a purchaser's token, which must never reach a log.
        logger.info(
            "\(request.method) \(request.uri.path) \(response.status.code)",
            metadata: [
                "range": .string(request.headers[.range] ?? "-"),
                "length": .string(response.headers[.contentLength] ?? "-"),
            ])
        return response
    }

    /// Whether `relative` (a path inside the catalog folder) is content-addressed, immutable and, with a
    /// token key, purchaser-only: an archive or a published manifest.
    static func isProtected(_ relative: String) -> Bool {
        relative.hasPrefix("archives/") || relative.hasPrefix("manifests/")
    }

    /// The response to one request, before logging: a refusal, or what ``respond(with:to:context:)`` makes.
    func makeResponse(_ request: Request, context: Context) async throws -> Response {
        guard request.method == .get || request.method == .head else {
            return Self.text(.methodNotAllowed, "only GET and HEAD are served\n", extra: [.allow: "GET, HEAD"])
        }
        // Tokens are checked before the file system is consulted, so an unauthorised client learns
        // nothing about which archives exist.
        let claimsArchive = Self.isProtected(String(request.uri.path.dropFirst()))
        if claimsArchive, let refusal = checkToken(request) {
            return refusal
        }
        let (realPath, relative): (String, String)
        switch folder.resolve(request.uri.path) {
        case .invalid: return Self.text(.badRequest, "malformed or escaping path\n")
        case .notFound: return Self.text(.notFound, "not found\n")
        case .file(let path, let rel): (realPath, relative) = (path, rel)
        }
        let isArchive = Self.isProtected(relative)
        // A symlink elsewhere in the folder that points into archives/ or manifests/ still needs a token.
        if isArchive, !claimsArchive, let refusal = checkToken(request) {
            return refusal
        }
        guard let file = ServedFile(realPath: realPath, relative: relative) else {
            return Self.text(.notFound, "not found\n")
        }
        let target = Target(file: file, realPath: realPath, relative: relative, isArchive: isArchive)
        return try await respond(with: target, to: request, context: context)
    }

    /// A file found for a request, and where it lies.
    struct Target {
        /// What was read about the file (length, tags, snapshot).
        let file: ServedFile
        /// The resolved path on disk.
        let realPath: String
        /// The path inside the catalog folder (`archives/…`, `catalog.json`).
        let relative: String
        /// Whether it lies in `archives/` (immutable, token-protected).
        let isArchive: Bool
    }

    /// The response for a found file: 304 when the client's tag is current, 416 for a range past
    /// the end, else 206 or 200 with the bytes asked for (none for HEAD).
    func respond(with target: Target, to request: Request, context: Context) async throws -> Response {
        let file = target.file
        var headers = Self.fileHeaders(for: target)
        if let ifNoneMatch = request.headers[.ifNoneMatch], Self.matches(ifNoneMatch, file.entityTag) {
            return Response(status: .notModified, headers: headers, body: .init())
        }
        var range = ByteRangeRequest(header: request.headers[.range], length: file.length)
        // If-Range (RFC 9110 §13.1.5): honour the range only while the client's strong ETag is
        // current; a date or a different tag means "send me the whole new thing".
        if range != .full, let ifRange = request.headers[.ifRange], ifRange != file.entityTag {
            range = .full
        }
        let status: HTTPResponse.Status
        let bytes: ClosedRange<Int64>?
        switch range {
        case .unsatisfiable:
            headers[.contentRange] = "bytes */\(file.length)"
            headers[.contentLength] = "0"
            headers[.cacheControl] = Self.revalidateCacheControl
            return Response(status: .rangeNotSatisfiable, headers: headers, body: .init())
        case .partial(let partial):
            status = .partialContent
            bytes = partial
            headers[.contentRange] = "bytes \(partial.lowerBound)-\(partial.upperBound)/\(file.length)"
            headers[.contentLength] = String(partial.count)
        case .full:
            status = .ok
            bytes = file.length > 0 ? 0...(file.length - 1) : nil
            headers[.contentLength] = String(file.length)
        }
        guard request.method == .get, let bytes else {
            return Response(status: status, headers: headers, body: .init())
        }
        return Response(status: status, headers: headers, body: try await body(of: target, bytes: bytes, context: context))
    }

    /// Headers every response for a found file carries (before any range headers).
    static func fileHeaders(for target: Target) -> HTTPFields {
        var headers = HTTPFields()
        headers[.acceptRanges] = "bytes"
        headers[.eTag] = target.file.entityTag
        headers[.lastModified] = target.file.lastModified
        headers[.cacheControl] = target.isArchive ? immutableCacheControl : revalidateCacheControl
        headers[.contentType] = contentType(target.relative)
        return headers
    }

    /// The bytes `bytes` of the file: from its in-memory snapshot when it has one, else streamed from disk.
    func body(of target: Target, bytes: ClosedRange<Int64>, context: Context) async throws -> ResponseBody {
        if let snapshot = target.file.snapshot {
            let slice = snapshot[Int(bytes.lowerBound)...Int(bytes.upperBound)]
            return ResponseBody(byteBuffer: ByteBuffer(bytes: slice))
        }
        return try await fileIO.loadFile(
            path: target.realPath, range: Int(bytes.lowerBound)...Int(bytes.upperBound), context: context)
    }

    /// `nil` when no token key is configured or the request's token is valid; else the refusal.
    func checkToken(_ request: Request) -> Response? {
        guard let tokenVerifier else { return nil }
        let query = Dictionary(
            request.uri.queryParameters.map { (String($0.key), String($0.value)) }, uniquingKeysWith: { a, _ in a })
        switch tokenVerifier.verify(path: request.uri.path, query: query) {
        case .ok: return nil
        case .missing: return Self.text(.forbidden, "this archive needs a purchase token (product, expires, token)\n")
        case .forged: return Self.text(.forbidden, "invalid purchase token\n")
        case .expired: return Self.text(.gone, "purchase token expired; ask the store backend for a new URL\n")
        }
    }

    /// `If-None-Match` list or `*` against our strong tag (weak comparison, as RFC 9110 §13.1.2 says).
    static func matches(_ header: String, _ entityTag: String) -> Bool {
        header.split(separator: ",").contains { candidate in
            let tag = candidate.trimmingCharacters(in: .whitespaces)
            return tag == "*" || tag == entityTag || tag == "W/" + entityTag
        }
    }

    static func contentType(_ relative: String) -> String {
        if relative.hasSuffix(".json") || relative.hasSuffix(".sig") { return "application/json" }
        return "application/octet-stream"
    }

    static func text(
        _ status: HTTPResponse.Status, _ message: String, extra: HTTPFields = [:]
    ) -> Response {
        var headers = extra
        headers[.contentType] = "text/plain; charset=utf-8"
        headers[.cacheControl] = "no-store"
        return Response(status: status, headers: headers, body: .init(byteBuffer: ByteBuffer(string: message)))
    }
}
