package import Foundation

extension ObjectStoreClient {
    /// One object of a listing.
    package struct ListedObject: Sendable, Equatable {
        /// Its name under the prefix (the key without `prefix/`).
        package var name: String
        /// Its full key in the bucket, as listed (`prefix/` + ``name``).
        package var key: String
        /// Its length.
        package var length: Int64
        /// When it was last written (`nil` when the server did not say).
        package var lastModified: Date?
    }

    /// Every object whose name under the prefix starts with `folder` (e.g. `archives/`), page by page
    /// (ListObjectsV2: the one call that needs `s3:ListBucket`).
    ///
    /// A listing is believed only when it is one: every page well-formed XML whose root is `ListBucketResult`, and
    /// every key in it under the exact key prefix asked for (`<prefix>/<folder>`) with no empty, `.` or `..`
    /// segment (nor one that is so once percent-decoded), no backslash and no control character. A server or a
    /// proxy that ignores `prefix=` or lies gets the whole listing refused, naming the key and the server: a
    /// caller that deletes what it lists never deletes outside the folder it asked for.
    ///
    /// Pagination is bounded: a continuation token seen before, a truncated page without a token, more than
    /// ``maximumListPages`` pages or more than ``maximumListedObjects`` objects is refused with a message.
    /// - Throws: ``PublishError`` naming the listing, the server and what was wrong; nothing is returned then.
    func list(_ folder: String) throws(PublishError) -> [ListedObject] {
        let keyPrefix = location.key(folder)
        let listing = "the listing of s3://\(location.bucket)/\(keyPrefix) from \(location.serverName)"
        var objects: [ListedObject] = []
        var token: String?
        var seenTokens = Set<String>()
        var pages = 0
        repeat {
            pages += 1
            guard pages <= maximumListPages else {
                throw PublishError("\(listing) ran past \(maximumListPages) pages (\(objects.count) objects): the server keeps answering that more follow; nothing was deleted. Check the endpoint (a proxy that ignores continuation-token?), or prune a smaller prefix")
            }
            var query = [("list-type", "2"), ("prefix", keyPrefix)]
            if let token { query.append(("continuation-token", token)) }
            let response = try send(.listObjectsV2(
                url: location.url("", query: query, bucketOnly: true), what: "s3://\(location.bucket)/\(keyPrefix)*"))
            guard response.isSuccess else {
                throw PublishError("listing s3://\(location.bucket)/\(keyPrefix) was refused: \(response.errorSummary); prune needs s3:ListBucket on the bucket")
            }
            let page: ListPage
            switch ListPage.parse(response.body) {
            case .success(let parsed): page = parsed
            case .failure(let failure):
                throw PublishError("\(listing) is not a ListObjectsV2 answer: \(failure) (page \(pages), HTTP \(response.status)); nothing was deleted. Check the endpoint \(location.serverName)")
            }
            for entry in page.entries {
                if let problem = Self.keyProblem(entry.key, under: keyPrefix) {
                    throw PublishError("\(listing) named the key \(Self.quoted(entry.key)), which \(problem): the server or a proxy in front of it ignores prefix= or lies, so the whole listing is refused and nothing was deleted. Check the endpoint \(location.serverName)")
                }
                let name = String(decoding: entry.key.utf8.dropFirst(location.key("").utf8.count), as: UTF8.self)
                objects.append(ListedObject(name: name, key: entry.key, length: entry.size ?? -1, lastModified: entry.lastModified))
                guard objects.count <= maximumListedObjects else {
                    throw PublishError("\(listing) holds more than \(maximumListedObjects) objects; nothing was deleted. Prune a smaller prefix, or check the endpoint \(location.serverName)")
                }
            }
            if page.isTruncated {
                guard let next = page.nextToken, !next.isEmpty else {
                    throw PublishError("\(listing) says more objects follow page \(pages) but gives no NextContinuationToken; nothing was deleted. Check the endpoint \(location.serverName)")
                }
                guard seenTokens.insert(next).inserted else {
                    throw PublishError("\(listing) repeats the continuation token \(Self.quoted(next)) at page \(pages): it would never end; nothing was deleted. Check the endpoint \(location.serverName) (a proxy that ignores continuation-token?)")
                }
                token = next
            } else {
                token = nil
            }
        } while token != nil
        return objects
    }

    /// Why `key` cannot be an object of a listing of `keyPrefix`, or `nil` when it can: it must start with
    /// `keyPrefix` (byte for byte), name something below it, and no segment of it may be empty, `.` or `..`
    /// (also once percent-decoded), hold a backslash or a control character.
    static func keyProblem(_ key: String, under keyPrefix: String) -> String? {
        guard key.utf8.starts(with: keyPrefix.utf8) else { return "is not under \(quoted(keyPrefix))" }
        guard key.utf8.count > keyPrefix.utf8.count else { return "is the folder itself, not an object in it" }
        if key.unicodeScalars.contains(where: { $0.value < 0x20 || (0x7F...0x9F).contains($0.value) }) {
            return "holds a control character"
        }
        if key.contains("\\") { return "holds a backslash" }
        for segment in key.split(separator: "/", omittingEmptySubsequences: false) {
            let decoded = percentDecoded(String(segment))
            if segment.isEmpty || decoded.isEmpty { return "has an empty segment" }
            if decoded == "." || decoded == ".." { return "has a '\(segment)' segment" }
            if decoded.contains("/") || decoded.contains("\\") { return "has a segment that percent-decodes to a path (\(segment))" }
        }
        return nil
    }

    /// `segment` percent-decoded until it no longer changes (at most four times: a proxy may decode twice).
    static func percentDecoded(_ segment: String) -> String {
        var text = segment
        for _ in 0..<4 {
            guard let decoded = text.removingPercentEncoding, decoded != text else { break }
            text = decoded
        }
        return text
    }

    /// `text` in quotes with control characters and non-ASCII escaped, so a message shows a key as it is.
    static func quoted(_ text: String) -> String {
        "\"" + text.unicodeScalars.map { $0.escaped(asASCII: true) }.joined() + "\""
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

/// One page of a ListObjectsV2 answer, read from its XML.
struct ListPage: Equatable {
    /// One `<Contents>`.
    struct Entry: Equatable {
        /// `Key`.
        var key: String
        /// `Size`, when given.
        var size: Int64?
        /// `LastModified`, when given and readable.
        var lastModified: Date?
    }

    /// The objects of the page.
    var entries: [Entry]
    /// `IsTruncated`: more pages follow.
    var isTruncated: Bool
    /// `NextContinuationToken`.
    var nextToken: String?

    /// Reads a page: the root must be `ListBucketResult` (an `<Error>` document, even with 200, is refused with its
    /// code), every `Contents` must have a `Key`, `IsTruncated` must be `true` or `false` when present.
    static func parse(_ body: Data) -> Result<ListPage, S3XML.ParseFailure> {
        let root: S3XML.Element
        switch S3XML.parse(body) {
        case .success(let parsed): root = parsed
        case .failure(let failure): return .failure(failure)
        }
        if root.name == "Error" {
            let code = root.value("Code") ?? "no code"
            let message = root.value("Message").map { ": \($0)" } ?? ""
            return .failure(S3XML.ParseFailure("the body is an S3 error document (\(code)\(message))"))
        }
        guard root.name == "ListBucketResult" else {
            return .failure(S3XML.ParseFailure("the root element is <\(root.name)>, not <ListBucketResult>"))
        }
        var entries: [Entry] = []
        for contents in root.children("Contents") {
            guard let key = contents.value("Key") else {
                return .failure(S3XML.ParseFailure("an entry <Contents> has no <Key>"))
            }
            entries.append(Entry(
                key: key, size: contents.value("Size").flatMap { Int64($0.trimmingCharacters(in: .whitespacesAndNewlines)) },
                lastModified: contents.value("LastModified").flatMap {
                    ObjectStoreClient.parseDate($0.trimmingCharacters(in: .whitespacesAndNewlines))
                }))
        }
        let truncated: Bool
        switch root.value("IsTruncated")?.trimmingCharacters(in: .whitespacesAndNewlines) {
        case nil, "false": truncated = false
        case "true": truncated = true
        case let other?:
            return .failure(S3XML.ParseFailure("<IsTruncated> is \(ObjectStoreClient.quoted(other)), not true or false"))
        }
        return .success(ListPage(entries: entries, isTruncated: truncated, nextToken: root.value("NextContinuationToken")))
    }
}
