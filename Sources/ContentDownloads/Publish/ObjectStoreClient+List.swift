package import Foundation

extension ObjectStoreClient {
    /// One object of a listing.
    package struct ListedObject: Sendable, Equatable {
        /// Its name under the prefix (the key without `prefix/`).
        package var name: String
        /// Its length.
        package var length: Int64
        /// When it was last written (`nil` when the server did not say).
        package var lastModified: Date?
    }

    /// Every object whose name under the prefix starts with `folder` (e.g. `archives/`), page by page
    /// (ListObjectsV2: the one call that needs `s3:ListBucket`).
    func list(_ folder: String) throws(PublishError) -> [ListedObject] {
        let keyPrefix = location.key(folder)
        let strip = location.prefix.isEmpty ? 0 : location.prefix.count + 1
        var objects: [ListedObject] = []
        var token: String?
        repeat {
            var query = [("list-type", "2"), ("prefix", keyPrefix)]
            if let token { query.append(("continuation-token", token)) }
            let response = try send(ObjectRequest(
                .get, url: location.url("", query: query, bucketOnly: true), what: "s3://\(location.bucket)/\(keyPrefix)*"))
            guard response.isSuccess else {
                throw PublishError("listing s3://\(location.bucket)/\(keyPrefix) was refused: \(response.errorSummary); prune needs s3:ListBucket on the bucket")
            }
            let text = String(decoding: response.body, as: UTF8.self)
            for block in XMLFields.blocks("Contents", in: text) {
                guard let key = XMLFields.first("Key", in: block), key.count > strip else { continue }
                objects.append(ListedObject(
                    name: String(key.dropFirst(strip)), length: XMLFields.first("Size", in: block).flatMap { Int64($0) } ?? -1,
                    lastModified: XMLFields.first("LastModified", in: block).flatMap(Self.parseDate)))
            }
            token = XMLFields.first("IsTruncated", in: text) == "true" ? XMLFields.first("NextContinuationToken", in: text) : nil
        } while token != nil
        return objects
    }

    /// S3's ISO 8601 timestamps, with or without fractional seconds.
    static func parseDate(_ text: String) -> Date? {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        if let date = formatter.date(from: text) { return date }
        formatter.formatOptions = [.withInternetDateTime]
        return formatter.date(from: text)
    }
}
