package import Foundation

/// One request to the object store: method, URL (already canonical for SigV4), extra headers and body.
package struct ObjectRequest: Sendable {
    /// The HTTP methods the publisher uses.
    package enum Method: String, Sendable {
        case get = "GET", head = "HEAD", put = "PUT", post = "POST", delete = "DELETE"
    }

    /// Where a request body comes from: nothing, bytes in memory, or a slice of a file read as it is sent.
    package enum Body: Sendable {
        /// No body.
        case none
        /// These bytes.
        case data(Data)
        /// `length` bytes of the file at `path` from `offset` (read with `pread` while sending: bounded memory).
        case file(path: String, offset: Int64, length: Int64)

        /// The body's size in bytes.
        var length: Int64 {
            switch self {
            case .none: 0
            case .data(let data): Int64(data.count)
            case .file(_, _, let length): length
            }
        }
    }

    /// The method.
    package var method: Method
    /// The full URL, query canonical (see ``ObjectStoreLocation/url(_:query:bucketOnly:)``).
    package var url: String
    /// Extra headers, `Name: value` each (conditions, Cache-Control, Content-Type).
    package var headers: [String]
    /// The body.
    package var body: Body
    /// The object as messages name it (`s3://bucket/key`).
    package var what: String

    /// A request.
    package init(_ method: Method, url: String, headers: [String] = [], body: Body = .none, what: String) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.what = what
    }
}

/// What the object store answered: the status, the response headers (names lowercased) and the body (bounded).
package struct ObjectResponse: Sendable {
    /// The HTTP status.
    package var status: Int
    /// Response headers by lowercased name (the last of repeated ones).
    package var headers: [String: String]
    /// The body (at most the request's limit).
    package var body: Data

    /// The `ETag` header as sent (quotes kept), if any.
    package var etag: String? { headers["etag"] }
    /// `Content-Length`, if sent.
    package var contentLength: Int64? { headers["content-length"].flatMap { Int64($0) } }
    /// Whether the status is 2xx.
    package var isSuccess: Bool { (200..<300).contains(status) }

    /// The S3 error `Code` and `Message` of an XML error body, for messages (`HTTP <status>` when there are none).
    package var errorSummary: String {
        guard let error = S3XML.error(in: body.prefix(64 << 10)) else { return "HTTP \(status)" }
        return "HTTP \(status) \(error.code)" + (error.message.map { ": \($0)" } ?? "")
    }
}
