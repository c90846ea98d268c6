/// The HTTP validator identifying one version of the remote file (RFC 9110 §8.8).
package struct Validator: Sendable, Equatable, Codable {
    /// The strong entity tag, quotes included (`"abc"`); weak tags are never stored.
    package var etag: String?
    /// The `Last-Modified` date as sent, used only when there is no strong ETag.
    package var lastModified: String?

    /// Creates a validator.
    package init(etag: String?, lastModified: String?) {
        self.etag = etag
        self.lastModified = lastModified
    }

    /// The `If-Range` value: the strong ETag, else the date.
    var ifRange: String? { etag ?? lastModified }
}
