/// Cuts a byte stream into newline-delimited messages (JSON-RPC 2.0 over a stream socket, one request a line),
/// never holding more than ``limit`` bytes of one line.
///
/// Bytes arrive in any pieces; ``append(_:)`` returns what became complete. A line longer than the limit is
/// reported once as ``Piece/oversized`` and its remaining bytes are skipped up to its newline, so one huge
/// request costs the reader at most `limit` bytes and the next line is read normally. A `\r` before the
/// newline is dropped (clients written for CRLF framing work too); empty lines are skipped.
struct LineFramer: Sendable {
    /// One result of cutting.
    enum Piece: Equatable, Sendable {
        /// A whole line, without its newline.
        case line([UInt8])
        /// A line longer than the limit was dropped.
        case oversized
    }

    /// The most bytes one line may have (its newline not counted).
    let limit: Int
    /// The start of the line not yet complete.
    private var pending: [UInt8] = []
    /// True while skipping the rest of an oversized line.
    private var skipping = false

    /// A framer for lines of at most `limit` bytes (1 MiB for the daemon).
    init(limit: Int) {
        precondition(limit > 0)
        self.limit = limit
    }

    /// Bytes held for the incomplete line (at most ``limit``).
    var bufferedCount: Int { pending.count }

    /// Feeds `bytes`; returns the lines (and oversize reports) they completed, in order.
    mutating func append(_ bytes: some Collection<UInt8>) -> [Piece] {
        var pieces: [Piece] = []
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let newline = bytes[start...].firstIndex(of: UInt8(ascii: "\n"))
            let segment = bytes[start..<(newline ?? bytes.endIndex)]
            if skipping {
                // The rest of a line already reported: dropped until its newline.
            } else if pending.count + segment.count > limit {
                pending.removeAll(keepingCapacity: false)
                skipping = true
                pieces.append(.oversized)
            } else {
                pending.append(contentsOf: segment)
            }
            guard let newline else { break }
            if !skipping {
                if pending.last == UInt8(ascii: "\r") { pending.removeLast() }
                if !pending.isEmpty { pieces.append(.line(pending)) }
            }
            pending.removeAll(keepingCapacity: true)
            skipping = false
            start = bytes.index(after: newline)
        }
        return pieces
    }
}
