import Foundation

/// What a `Range` request header asks for, judged against a representation of known length.
///
/// Policy (RFC 9110 §14): one `bytes=` range is honoured (`a-b`, open-ended `a-`, suffix `-n`);
/// a range starting at or beyond the end is unsatisfiable (416 with `Content-Range: bytes */len`).
/// Several ranges, another unit, or a malformed header are ignored and the full representation
/// is sent with 200 — RFC 9110 allows a server to ignore `Range`. Our client asks a server for several ranges
/// only after a `HEAD` for several came back as `multipart/byteranges`; this server answers that `HEAD` 200, so its
/// clients ask for one range per request.
enum ByteRangeRequest: Equatable {
    /// No usable range: answer 200 with the full body.
    case full
    /// One satisfiable range (inclusive offsets, already clamped to the length).
    case partial(ClosedRange<Int64>)
    /// A syntactically valid range that no byte satisfies: 416.
    case unsatisfiable

    /// Interprets `header` (the `Range` value) for a representation of `length` bytes.
    init(header: String?, length: Int64) {
        guard let header else {
            self = .full
            return
        }
        let trimmed = header.trimmingCharacters(in: .whitespaces)
        guard let equals = trimmed.firstIndex(of: "="),
              trimmed[..<equals].trimmingCharacters(in: .whitespaces).lowercased() == "bytes"
        else {
            self = .full
            return
        }
        let specs = trimmed[trimmed.index(after: equals)...].split(separator: ",", omittingEmptySubsequences: false)
        guard specs.count == 1 else {
            self = .full  // multiple ranges: documented 200 full
            return
        }
        self = Self.single(specs[0].trimmingCharacters(in: .whitespaces), length: length)
    }

    private static func single(_ spec: String, length: Int64) -> ByteRangeRequest {
        guard let dash = spec.firstIndex(of: "-") else { return .full }
        let first = spec[..<dash]
        let last = spec[spec.index(after: dash)...]
        if first.isEmpty {
            // Suffix range: the last n bytes.
            guard let count = number(last) else { return .full }
            guard count > 0, length > 0 else { return .unsatisfiable }
            return .partial(max(0, length - count)...(length - 1))
        }
        guard let start = number(first) else { return .full }
        var end = length - 1
        if !last.isEmpty {
            guard let requestedEnd = number(last), requestedEnd >= start else { return .full }
            end = min(requestedEnd, length - 1)
        }
        guard start < length else { return .unsatisfiable }
        return .partial(start...end)
    }

    /// Digits only; values too large for Int64 saturate (they are past any end anyway).
    private static func number(_ text: Substring) -> Int64? {
        guard !text.isEmpty, text.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }) else {
            return nil
        }
        return Int64(text) ?? Int64.max
    }
}
