/// A cursor over a compact manifest (its envelope, or its decompressed body): varints, strings, raw digests, each read
/// refused with a ``ManifestFormatError`` naming the field and its body offset when the bytes run out or
/// say something impossible.
///
/// It reads memory the caller owns (the body buffer), or a window an inflater refills as the body is
/// decompressed (``init(inflating:)``), and copies only what a field returns. An inflating reader is not copied:
/// its copies would share the inflater.
struct ManifestBodyReader {
    /// The bytes at hand: the whole input, or the inflater's window.
    private var bytes: UnsafeRawBufferPointer
    /// The offset of `bytes[0]` in the input.
    private var base = 0
    /// The next byte to read in `bytes`.
    private var index: Int
    /// The input's length: the bytes given, or the body length an inflater decodes to.
    private let length: Int
    /// Whether offsets count bytes of the decompressed body (else of the file: the envelope).
    private let inBody: Bool
    /// Where more bytes come from, for a body decompressed as it is read.
    private let inflater: ManifestBodyInflater?

    /// A reader of `bytes` from `position`; `inBody` says what its offsets count in messages.
    init(_ bytes: UnsafeRawBufferPointer, at position: Int = 0, inBody: Bool = true) {
        self.bytes = bytes
        self.index = position
        self.length = bytes.count
        self.inBody = inBody
        inflater = nil
    }

    /// A reader of the body `inflater` decompresses, from its start.
    init(inflating inflater: ManifestBodyInflater) {
        bytes = UnsafeRawBufferPointer(start: nil, count: 0)
        index = 0
        length = inflater.declared
        inBody = true
        self.inflater = inflater
    }

    /// The offset of the next byte to read.
    var position: Int { base + index }

    /// How many bytes are left to read.
    var remaining: Int { length - position }

    /// Makes `count` bytes (no more than are left) readable at `index`, refilling an inflater's window.
    private mutating func make(_ count: Int) throws(ManifestFormatError) {
        guard bytes.count - index < count, let inflater else { return }
        let window = try inflater.refill(keeping: index, of: bytes.count, needing: count)
        base += index
        index = 0
        bytes = window
        guard bytes.count >= count else {
            throw error("body", "the body ends inside this field; the manifest is cut short — fetch or pack it again")
        }
    }

    /// Skips to `offset` of the input (forward only).
    mutating func skip(to offset: Int) throws(ManifestFormatError) {
        while position < offset {
            let step = min(offset - position, ManifestBodyInflater.largestField)
            _ = try raw("body", count: step)
        }
    }

    /// A refusal of `field` at `offset` (the current position by default).
    func error(_ field: String, at offset: Int? = nil, _ reason: String) -> ManifestFormatError {
        ManifestFormatError(field: field, offset: offset ?? position, inBody: inBody, reason: reason)
    }

    /// An unsigned LEB128 varint of at most 10 bytes that fits 64 bits.
    mutating func varint(_ field: @autoclosure () -> String) throws(ManifestFormatError) -> UInt64 {
        let start = position
        var value: UInt64 = 0
        var shift: UInt64 = 0
        while true {
            guard position < length else {
                throw error(field(), at: start, "the body ends inside this number; the manifest is cut short — fetch or pack it again")
            }
            try make(1)
            let byte = bytes[index]
            index += 1
            let part = UInt64(byte & 0x7F)
            // The 10th byte may only carry the 64th bit.
            guard shift < 63 || (shift == 63 && part <= 1) else {
                throw error(field(), at: start, "the number does not fit 64 bits (varint overflow); the manifest is damaged — pack it again")
            }
            value |= part << shift
            if byte & 0x80 == 0 { return value }
            shift += 7
        }
    }

    /// A varint that must lie in `0...limit` (as an `Int64`).
    mutating func count(_ field: @autoclosure () -> String, atMost limit: Int64) throws(ManifestFormatError) -> Int64 {
        let start = position
        let value = try varint(field())
        guard value <= UInt64(limit) else {
            throw error(field(), at: start, "\(value) is more than \(limit); the manifest is damaged or was not written by `iapcontent pack` — pack it again")
        }
        return Int64(value)
    }

    /// A zigzag-coded signed varint.
    mutating func signed(_ field: @autoclosure () -> String) throws(ManifestFormatError) -> Int64 {
        let raw = try varint(field())
        return Int64(bitPattern: (raw >> 1) ^ (0 &- (raw & 1)))
    }

    /// One byte.
    mutating func byte(_ field: @autoclosure () -> String) throws(ManifestFormatError) -> UInt8 {
        guard position < length else {
            throw error(field(), "the body ends here; the manifest is cut short — fetch or pack it again")
        }
        try make(1)
        defer { index += 1 }
        return bytes[index]
    }

    /// The next `count` bytes, in place: valid while the body is, or for an inflating reader until the next read.
    mutating func raw(_ field: @autoclosure () -> String, count: Int) throws(ManifestFormatError) -> UnsafeRawBufferPointer {
        guard count >= 0, count <= remaining else {
            throw error(field(), "needs \(count) bytes but the body has \(remaining) left; the manifest is cut short or lies about a length — fetch or pack it again")
        }
        try make(count)
        defer { index += count }
        return UnsafeRawBufferPointer(rebasing: bytes[index..<(index + count)])
    }

    /// A length-prefixed UTF-8 string of at most `limit` bytes.
    mutating func string(_ field: @autoclosure () -> String, atMost limit: Int) throws(ManifestFormatError) -> String {
        let length = try count(field(), atMost: Int64(limit))
        let start = position
        guard Int(length) > ManifestBodyInflater.largestField else {
            let slice = try raw(field(), count: Int(length))
            guard let text = String(validating: slice, as: UTF8.self) else {
                throw error(field(), at: start, "is not valid UTF-8; the manifest is damaged — pack it again")
            }
            return text
        }
        // Longer than an inflater's window holds at once (a pack declaration may be up to 1 MiB): copied piece by
        // piece, since a window never holds more than one field of ``ManifestBodyInflater/largestField`` bytes.
        var copy: [UInt8] = []
        copy.reserveCapacity(Int(length))
        while copy.count < Int(length) {
            let piece = try raw(field(), count: min(Int(length) - copy.count, ManifestBodyInflater.largestField))
            copy.append(contentsOf: piece)
        }
        guard let text = String(validating: copy, as: UTF8.self) else {
            throw error(field(), at: start, "is not valid UTF-8; the manifest is damaged — pack it again")
        }
        return text
    }

    /// A raw SHA-256 as lowercase hex (the manifest's archive SHA-256).
    mutating func digest(_ field: @autoclosure () -> String) throws(ManifestFormatError) -> String {
        let slice = try raw(field(), count: CompactManifestFormat.digestBytes)
        return Self.hex(slice)
    }

    /// A raw SHA-256 as the model holds a file's or a chunk's: its bytes, no text made.
    mutating func storedDigest(_ field: @autoclosure () -> String) throws(ManifestFormatError) -> StoredSHA256 {
        let slice = try raw(field(), count: CompactManifestFormat.digestBytes)
        func word(_ at: Int) -> UInt64 {
            (0..<8).reduce(UInt64(0)) { $0 << 8 | UInt64(slice[at + $1]) }
        }
        return .digest(word(0), word(8), word(16), word(24))
    }

    /// Lowercase hex of `bytes`, built in one allocation.
    static func hex(_ bytes: UnsafeRawBufferPointer) -> String {
        String(unsafeUninitializedCapacity: bytes.count * 2) { out in
            let digits: StaticString = "0123456789abcdef"
            let table = digits.utf8Start
            for (index, byte) in bytes.enumerated() {
                out[index * 2] = table[Int(byte >> 4)]
                out[index * 2 + 1] = table[Int(byte & 0x0F)]
            }
            return bytes.count * 2
        }
    }
}
