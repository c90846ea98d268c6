package import Foundation

/// One request to the object store: the S3 operation, URL (already canonical for SigV4), extra headers and body.
///
/// Requests are made only through the factories below, one per S3 operation the publisher and the pruner use, so
/// the method, the conditions and the content type of each follow the S3 API reference in this one place (see
/// ``Operation`` and ``wireHeaders``).
package struct ObjectRequest: Sendable {
    /// The HTTP methods the publisher uses.
    package enum Method: String, Sendable {
        case get = "GET", head = "HEAD", put = "PUT", post = "POST", delete = "DELETE"
    }

    /// The S3 operations sent, each with the method the S3 API reference gives it.
    package enum Operation: String, Sendable, CaseIterable {
        /// `GET /key`: GetObject.
        case getObject = "GetObject"
        /// `HEAD /key`: HeadObject.
        case headObject = "HeadObject"
        /// `PUT /key` with the object as body: PutObject.
        case putObject = "PutObject"
        /// `POST /key?uploads`, no body: CreateMultipartUpload (its `Content-Type` is the object's).
        case createMultipartUpload = "CreateMultipartUpload"
        /// `PUT /key?partNumber=N&uploadId=ID` with the part as body: UploadPart.
        case uploadPart = "UploadPart"
        /// `POST /key?uploadId=ID` with a `CompleteMultipartUpload` XML body: CompleteMultipartUpload.
        case completeMultipartUpload = "CompleteMultipartUpload"
        /// `DELETE /key?uploadId=ID`: AbortMultipartUpload.
        case abortMultipartUpload = "AbortMultipartUpload"
        /// `GET /?list-type=2&prefix=…` on the bucket: ListObjectsV2.
        case listObjectsV2 = "ListObjectsV2"
        /// `DELETE /key`: DeleteObject.
        case deleteObject = "DeleteObject"

        /// The HTTP method of the operation.
        package var method: Method {
            switch self {
            case .getObject, .listObjectsV2: .get
            case .headObject: .head
            case .putObject, .uploadPart: .put
            case .createMultipartUpload, .completeMultipartUpload: .post
            case .abortMultipartUpload, .deleteObject: .delete
            }
        }

        /// The `Content-Type` the operation is sent with when the caller gives none, for the two POSTs (libcurl's
        /// default for a POST, `application/x-www-form-urlencoded`, is wrong for both: moto reads such a body as a
        /// form and fails, and CreateMultipartUpload would store it as the object's type): `application/xml` for the
        /// XML body of CompleteMultipartUpload, as the AWS SDKs send it, and `application/octet-stream` for
        /// CreateMultipartUpload. Every other operation sends the caller's `Content-Type` or none (libcurl adds
        /// none to a PUT, GET, HEAD or DELETE).
        var defaultContentType: String? {
            switch self {
            case .completeMultipartUpload: "application/xml"
            case .createMultipartUpload: "application/octet-stream"
            default: nil
            }
        }
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

    /// The S3 operation.
    package let operation: Operation
    /// The method (the operation's).
    package var method: Method { operation.method }
    /// The full URL, query canonical (see ``ObjectStoreLocation/url(_:query:bucketOnly:)``).
    package let url: String
    /// Extra headers, `Name: value` each (conditions, Cache-Control, Content-Type).
    package let headers: [String]
    /// The body.
    package let body: Body
    /// The object as messages name it (`s3://bucket/key`).
    package let what: String

    private init(_ operation: Operation, url: String, headers: [String] = [], body: Body = .none, what: String) {
        self.operation = operation
        self.url = url
        self.headers = headers
        self.body = body
        self.what = what
    }

    /// The headers as sent, before libcurl's signature headers: ``headers``, plus the operation's default
    /// `Content-Type` (``Operation/defaultContentType``) when they have none.
    package var wireHeaders: [String] {
        guard let type = operation.defaultContentType, !headers.contains(where: { $0.lowercased().hasPrefix("content-type:") }) else {
            return headers
        }
        return headers + ["Content-Type: \(type)"]
    }

    /// GetObject of the object at `url`.
    package static func getObject(url: String, what: String) -> ObjectRequest { ObjectRequest(.getObject, url: url, what: what) }

    /// HeadObject of the object at `url`.
    package static func headObject(url: String, what: String) -> ObjectRequest { ObjectRequest(.headObject, url: url, what: what) }

    /// PutObject of `body` at `url`, `conditions` (`If-None-Match: *`, `If-Match: <etag>`) first, then `headers`
    /// (`Cache-Control`, `Content-Type`).
    package static func putObject(url: String, conditions: [String], headers: [String], body: Body, what: String) -> ObjectRequest {
        ObjectRequest(.putObject, url: url, headers: conditions + headers, body: body, what: what)
    }

    /// CreateMultipartUpload at `url` (`?uploads`), with the object's `Cache-Control` and `Content-Type`.
    package static func createMultipartUpload(url: String, headers: [String], what: String) -> ObjectRequest {
        ObjectRequest(.createMultipartUpload, url: url, headers: headers, what: what)
    }

    /// UploadPart of `body` at `url` (`?partNumber=N&uploadId=ID`).
    package static func uploadPart(url: String, body: Body, what: String) -> ObjectRequest {
        ObjectRequest(.uploadPart, url: url, body: body, what: what)
    }

    /// CompleteMultipartUpload at `url` (`?uploadId=ID`) with the `CompleteMultipartUpload` document `xml`, under
    /// `conditions` (`If-None-Match: *`, or none for a server that cannot complete conditionally).
    package static func completeMultipartUpload(url: String, xml: String, conditions: [String], what: String) -> ObjectRequest {
        ObjectRequest(.completeMultipartUpload, url: url, headers: conditions, body: .data(Data(xml.utf8)), what: what)
    }

    /// AbortMultipartUpload at `url` (`?uploadId=ID`).
    package static func abortMultipartUpload(url: String, what: String) -> ObjectRequest {
        ObjectRequest(.abortMultipartUpload, url: url, what: what)
    }

    /// ListObjectsV2 at `url` (the bucket, `?list-type=2&prefix=…`).
    package static func listObjectsV2(url: String, what: String) -> ObjectRequest { ObjectRequest(.listObjectsV2, url: url, what: what) }

    /// DeleteObject of the object at `url`.
    package static func deleteObject(url: String, what: String) -> ObjectRequest { ObjectRequest(.deleteObject, url: url, what: what) }
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
