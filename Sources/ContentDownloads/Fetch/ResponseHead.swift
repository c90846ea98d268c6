/// The parts of an HTTP response head the engine decides on, parsed line by line.
///
/// Redirects produce several heads; each status line starts a fresh one.
struct ResponseHead: Equatable {
    /// The status code (0 until a status line arrives; stays 0 for `file://`).
    var status: Int = 0
    /// `Content-Range: bytes first-last/complete` → (first, last, complete?).
    var contentRange: (first: Int64, last: Int64, complete: Int64?)?
    /// `Content-Range: bytes */complete` (416 replies).
    var unsatisfiedRangeLength: Int64?
    /// `Content-Length`.
    var contentLength: Int64?
    /// The strong `ETag` (weak tags are ignored: they cannot drive `If-Range`).
    var etag: String?
    /// `Last-Modified`, verbatim.
    var lastModified: String?
    /// `Retry-After` in seconds (delta-seconds form only).
    var retryAfter: Double?
    /// `Content-Type`, verbatim (a reply to several ranges is `multipart/byteranges; boundary=…`).
    var contentType: String?

    static func == (lhs: ResponseHead, rhs: ResponseHead) -> Bool {
        lhs.status == rhs.status && lhs.contentRange?.first == rhs.contentRange?.first
            && lhs.contentRange?.last == rhs.contentRange?.last
            && lhs.contentRange?.complete == rhs.contentRange?.complete
            && lhs.unsatisfiedRangeLength == rhs.unsatisfiedRangeLength && lhs.contentLength == rhs.contentLength
            && lhs.etag == rhs.etag && lhs.lastModified == rhs.lastModified && lhs.retryAfter == rhs.retryAfter
    }

    /// Applies one raw header line (CRLF included or not). Returns `true` if it began a new head.
    @discardableResult
    mutating func consume(line raw: String) -> Bool {
        let line = raw.trimmingTrailingNewline()
        if line.hasPrefix("HTTP/") {
            self = ResponseHead()
            let parts = line.split(separator: " ", maxSplits: 2)
            if parts.count >= 2, let code = Int(parts[1]) { status = code }
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return false }
        let name = line[..<colon].lowercased()
        let value = line[line.index(after: colon)...].trimmingSpaces()
        switch name {
        case "content-range": parseContentRange(value)
        case "content-length": contentLength = Int64(value)
        case "etag": etag = value.hasPrefix("W/") ? nil : value
        case "last-modified": lastModified = value
        case "retry-after": retryAfter = Double(value)
        case "content-type": contentType = value
        default: break
        }
        return false
    }

    private mutating func parseContentRange(_ value: String) {
        guard value.lowercased().hasPrefix("bytes ") else { return }
        let spec = value.dropFirst(6).trimmingSpaces()
        let halves = spec.split(separator: "/", maxSplits: 1).map(String.init)
        guard halves.count == 2 else { return }
        let complete = halves[1] == "*" ? nil : Int64(halves[1])
        if halves[0] == "*" {
            unsatisfiedRangeLength = complete
            return
        }
        let bounds = halves[0].split(separator: "-", maxSplits: 1)
        guard bounds.count == 2, let first = Int64(bounds[0]), let last = Int64(bounds[1]) else { return }
        contentRange = (first, last, complete)
    }

    /// The validator this response identifies the file by: strong ETag, else Last-Modified.
    var validator: Validator? {
        if etag == nil && lastModified == nil { return nil }
        return Validator(etag: etag, lastModified: etag == nil ? lastModified : nil)
    }
}

extension StringProtocol {
    func trimmingTrailingNewline() -> String {
        var s = String(self)
        while let last = s.last, last.isNewline { s.removeLast() }
        return s
    }

    func trimmingSpaces() -> String {
        var s = Substring(self)
        while let first = s.first, first == " " || first == "\t" { s.removeFirst() }
        while let last = s.last, last == " " || last == "\t" || last.isNewline { s.removeLast() }
        return String(s)
    }
}
