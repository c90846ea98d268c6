package import Foundation

/// The object-store calls a publisher makes, each one blocking request on the caller's thread: read (GET, HEAD),
/// conditional writes (create-only `If-None-Match: *`, compare-and-swap `If-Match`), delete and list.
///
/// Transient failures (connection errors, 5xx, 429) are retried three times with growing pauses; a retried
/// conditional write that had in fact landed comes back as 412, which every caller checks against what it wrote.
/// Every request has a connect timeout (``connectTimeout``) and a stall timeout (``stallTimeout``); a request
/// that hits one fails at once with a message saying which, and is not retried.
///
/// - Important: Not thread-safe; one thread uses it (the multipart upload runs its parts in one multi handle
///   on that same thread).
package final class ObjectStoreClient {
    /// Where the objects live.
    package let location: ObjectStoreLocation
    /// What requests are signed with.
    let credentials: ObjectStoreCredentials
    /// Called after every request the server answered (or that failed), with the request; a test hook counts them.
    let afterRequest: (ObjectRequest) -> Void
    /// The CA certificates https endpoints are checked against (`AWS_CA_BUNDLE`); `nil`: the system's.
    let caFile: String?
    /// The largest body read from an answer (a catalog, a listing page, an error document).
    static let responseLimit = 16 << 20
    /// Seconds a connection may take to open before the request fails (15 by default; a test sets 1).
    package var connectTimeout: TimeInterval = 15
    /// Seconds a request may move less than one byte a second before it fails as stalled (30 by default; a
    /// test sets 1). Together with ``connectTimeout``, a server that never answers stops a command with a message
    /// naming it instead of holding it forever.
    package var stallTimeout: TimeInterval = 30
    /// Pages one listing may take (10 000 by default, ten million objects at S3's 1 000 a page): a server that
    /// answers "more follows" forever is refused, not followed.
    package var maximumListPages = 10_000
    /// Objects one listing may hold (one million by default, about 200 MB of names in memory); more is refused.
    package var maximumListedObjects = 1_000_000

    /// A client for `location`, signing with `credentials`, trusting `caFile` (else the system's CAs) for https;
    /// `afterRequest` sees every request once done.
    package init(
        location: ObjectStoreLocation, credentials: ObjectStoreCredentials, caFile: String? = nil,
        afterRequest: @escaping (ObjectRequest) -> Void = { _ in }
    ) {
        self.location = location
        self.credentials = credentials
        self.caFile = caFile
        self.afterRequest = afterRequest
    }

    /// Runs `request`, retrying transient failures; the last answer, whatever its status.
    func send(_ request: ObjectRequest) throws(PublishError) -> ObjectResponse {
        var attempt = 0
        while true {
            attempt += 1
            let transfer = try ObjectTransfer(request, client: self, limit: Self.responseLimit)
            let outcome: Result<ObjectResponse, PublishError>
            do throws(PublishError) { outcome = .success(try transfer.perform()) } catch { outcome = .failure(error) }
            afterRequest(request)
            switch outcome {
            case .success(let response) where !Self.isTransient(response.status) || attempt >= 4:
                return response
            case .failure(let error) where attempt >= 4 || transfer.isFinal:
                // A timeout is not retried: a server that does not answer for the connect or stall time is
                // reported at once, not after four times that; nor is a failure of trust (certificate, CA file).
                throw error
            default:
                Thread.sleep(forTimeInterval: 0.25 * Double(1 << attempt))
            }
        }
    }

    /// 5xx and 429 are worth another try.
    static func isTransient(_ status: Int) -> Bool { status >= 500 || status == 429 }

    /// HEAD of `name`: its length and ETag, or `nil` when there is none: 404, or 403, which is how S3 answers for a
    /// missing object to credentials without `s3:ListBucket` (publishing needs none; a real refusal shows at the
    /// write that follows, which is conditional).
    func head(_ name: String) throws(PublishError) -> (length: Int64, etag: String?)? {
        let response = try send(.headObject(url: location.url(name), what: location.displayName(name)))
        if response.status == 404 || response.status == 403 { return nil }
        guard response.isSuccess else { throw refusal(response, "HEAD", name) }
        return (response.contentLength ?? -1, response.etag)
    }

    /// GET of `name`: its bytes and ETag, or `nil` when there is none: 404, or 403 `AccessDenied` (see ``head(_:)``).
    func get(_ name: String) throws(PublishError) -> (data: Data, etag: String?)? {
        let response = try send(.getObject(url: location.url(name), what: location.displayName(name)))
        if response.status == 404 { return nil }
        if response.status == 403, S3XML.error(in: response.body)?.code == "AccessDenied" {
            return nil
        }
        guard response.isSuccess else { throw refusal(response, "GET", name) }
        return (response.body, response.etag)
    }

    /// How a conditional write went.
    enum WriteOutcome: Equatable {
        /// Written; the new ETag.
        case written(etag: String?)
        /// 412: the condition did not hold (create-only: the object exists; compare-and-swap: it changed).
        case preconditionFailed
    }

    /// The write conditions the publisher uses.
    enum Condition: Equatable {
        /// `If-None-Match: *`: only if there is no such object yet.
        case createOnly
        /// `If-Match: <etag>`: only if the object is still the one with this ETag.
        case ifMatch(String)
        /// No condition (the probe's stand-in check only).
        case none

        var header: [String] {
            switch self {
            case .createOnly: ["If-None-Match: *"]
            case .ifMatch(let etag): ["If-Match: \(etag)"]
            case .none: []
            }
        }
    }

    /// PUT of `body` as `name` under `condition`, with the object's `Cache-Control` and `Content-Type`.
    func put(_ name: String, body: ObjectRequest.Body, condition: Condition, headers: [String]) throws(PublishError) -> WriteOutcome {
        let request = ObjectRequest.putObject(
            url: location.url(name), conditions: condition.header, headers: headers, body: body, what: location.displayName(name))
        let response = try send(request)
        if response.status == 412 { return .preconditionFailed }
        guard response.isSuccess else { throw refusal(response, "PUT", name) }
        return .written(etag: response.etag)
    }

    /// DELETE of `name` (a missing object is fine).
    func delete(_ name: String) throws(PublishError) {
        let response = try send(.deleteObject(url: location.url(name), what: location.displayName(name)))
        guard response.isSuccess || response.status == 404 else { throw refusal(response, "DELETE", name) }
    }

    /// The error for an unexpected answer to `method` on `name`, with the server's own code and what to do.
    func refusal(_ response: ObjectResponse, _ method: String, _ name: String) -> PublishError {
        let hint: String
        switch response.status {
        case 401, 403: hint = "check the credentials and that their policy allows this call on \(location.displayName(name))"
        case 404: hint = "check that the bucket \(location.bucket) exists at \(location.serverName)"
        case 301, 307:
            hint = "check --region (the bucket may live in another region)"
        case 400 where response.errorSummary.lowercased().contains("region"):
            hint = "check --region (the bucket may live in another region)"
        default: hint = "check the endpoint \(location.serverName)"
        }
        return PublishError("\(method) \(location.displayName(name)) was refused: \(response.errorSummary); \(hint)")
    }
}
