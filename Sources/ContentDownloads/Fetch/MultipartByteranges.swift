/// Reads a `multipart/byteranges` body (RFC 9110 §14.6, the reply to a request for several ranges) as it streams
/// in, in pieces cut anywhere: each part's `Content-Range`, then its bytes.
///
/// Each part is a delimiter line (`--` and the boundary), header lines up to an empty line, then exactly as many
/// bytes as its `Content-Range` says; after the last part comes the close delimiter (`--boundary--`). Part bodies
/// are passed through by length, never scanned for the boundary. A header block over 8 KiB, a part without a byte
/// range, or bytes that are not a delimiter where one must be are malformed: the reader says why and stops.
///
/// - Important: Single-owner (a ``ChunkConnection`` on the transfer thread).
struct MultipartByteranges {
    /// What a piece of body held, in order.
    enum Event {
        /// A part begins: the archive bytes it holds.
        case part(Range<Int64>)
        /// Bytes of the current part (valid only during the call).
        case data(UnsafeRawBufferPointer)
    }

    private enum State {
        /// Gathering the delimiter and header lines of the next part.
        case head([UInt8])
        /// Inside a part's bytes: how many are left.
        case body(Int64)
        /// After the close delimiter: the rest (an epilogue) is ignored.
        case done
        /// Malformed: nothing more is read.
        case failed
    }

    static let headLimit = 8 << 10
    private let delimiter: [UInt8]
    private var state = State.head([])

    /// A reader for the body of a reply whose `Content-Type` is `contentType`; `nil` unless it is
    /// `multipart/byteranges` with a boundary.
    init?(contentType: String) {
        let parameters = contentType.split(separator: ";").map { $0.trimmingSpaces() }
        guard parameters.first?.lowercased() == "multipart/byteranges" else { return nil }
        guard let boundary = parameters.dropFirst().first(where: { $0.lowercased().hasPrefix("boundary=") })?.dropFirst(9),
              !boundary.isEmpty
        else { return nil }
        let unquoted = boundary.count >= 2 && boundary.hasPrefix("\"") && boundary.hasSuffix("\"") ? boundary.dropFirst().dropLast() : boundary
        delimiter = Array("--\(unquoted)".utf8)
    }

    /// Whether the close delimiter has been read (every part is complete).
    var isComplete: Bool {
        if case .done = state { return true }
        return false
    }

    /// Reads `bytes`, handing each event to `handle`, which returns `false` to stop reading. Returns why the body
    /// is malformed, or `nil`.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, _ handle: (Event) -> Bool) -> String? {
        var rest = bytes[...]
        while !rest.isEmpty {
            switch state {
            case .done, .failed:
                return nil
            case .body(let remaining):
                let count = Int(min(Int64(rest.count), remaining))
                state = remaining - Int64(count) == 0 ? .head([]) : .body(remaining - Int64(count))
                let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(count))
                rest = rest.dropFirst(count)
                guard handle(.data(piece)) else { return nil }
            case .head(var gathered):
                let before = gathered.count
                gathered.append(contentsOf: rest.prefix(Self.headLimit + 1 - before))
                switch parseHead(gathered) {
                case .needMore:
                    guard gathered.count <= Self.headLimit else { return fail("a part's header block runs past \(Self.headLimit) bytes") }
                    state = .head(gathered)
                    rest = rest.dropFirst(gathered.count - before)
                case .closed:
                    state = .done
                    return nil
                case .malformed(let reason):
                    return fail(reason)
                case .part(let range, let headLength):
                    rest = rest.dropFirst(headLength - before)
                    state = range.isEmpty ? .head([]) : .body(Int64(range.count))
                    guard handle(.part(range)) else { return nil }
                }
            }
        }
        return nil
    }

    private mutating func fail(_ reason: String) -> String {
        state = .failed
        return "the multipart reply is malformed: \(reason)"
    }

    private enum Head {
        case needMore
        case closed
        case malformed(String)
        /// A part's range, and the bytes its delimiter and headers took (the body starts after them).
        case part(Range<Int64>, Int)
    }

    /// Parses gathered head bytes: optional line breaks, the delimiter line, header lines, an empty line.
    private func parseHead(_ bytes: [UInt8]) -> Head {
        var start = 0
        while start < bytes.count, bytes[start] == 0x0D || bytes[start] == 0x0A { start += 1 }
        let available = bytes.count - start
        let prefix = min(available, delimiter.count + 2)
        let closing = delimiter + [0x2D, 0x2D]  // "--boundary--"
        guard bytes[start..<(start + prefix)].elementsEqual(closing.prefix(prefix)) || bytes[start..<(start + min(available, delimiter.count))]
            .elementsEqual(delimiter.prefix(min(available, delimiter.count)))
        else {
            return .malformed("expected the boundary delimiter, found other bytes")
        }
        if available >= closing.count, bytes[start..<(start + closing.count)].elementsEqual(closing) { return .closed }
        guard let end = Self.find([0x0D, 0x0A, 0x0D, 0x0A], in: bytes, from: start) else { return .needMore }
        let text = String(decoding: bytes[start..<end], as: UTF8.self)
        let lines = text.split(separator: "\r\n", omittingEmptySubsequences: false)
        guard lines.first.map({ $0.trimmingSpaces() }) == String(decoding: delimiter, as: UTF8.self) else {
            return .malformed("expected the boundary delimiter line, found \"\(lines.first?.prefix(80) ?? "")\"")
        }
        var head = ResponseHead()
        for line in lines.dropFirst() { head.consume(line: String(line)) }
        guard let range = head.contentRange, range.first >= 0, range.last >= range.first else {
            return .malformed("a part has no byte range in its Content-Range")
        }
        return .part(range.first..<(range.last + 1), end + 4)
    }

    private static func find(_ needle: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard bytes.count - start >= needle.count else { return nil }
        for index in start...(bytes.count - needle.count) where bytes[index..<(index + needle.count)].elementsEqual(needle) {
            return index
        }
        return nil
    }
}
