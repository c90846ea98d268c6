import Glibc

/// OLPC canonical JSON, the bytes TUF signs: object keys sorted by code point, no whitespace, in strings only
/// `\` and `"` escaped (every other character, control characters included, written as its UTF-8 bytes),
/// integers only.
///
/// The same bytes as securesystemslib's `encode_canonical`, which python-tuf signs and verifies with.
extension JSONValue {
    /// The canonical bytes of this value.
    package var canonicalBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendCanonical(to: &bytes)
        return bytes
    }

    /// The bytes a metadata file holds: the canonical bytes, except that control characters in strings are
    /// escaped (`\u0009`), which canonical JSON leaves raw but strict JSON readers (Python's `json`) refuse. Parsing
    /// them gives this value back, and so the same canonical bytes.
    package var fileBytes: [UInt8] {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(256)
        appendCanonical(to: &bytes, escapingControlCharacters: true)
        return bytes
    }

    /// Appends the canonical bytes of this value to `bytes` (with control characters escaped for a file).
    ///
    /// A bin of a large store is a few hundred targets and is written for every publish: the literals, integers and
    /// strings are appended without a temporary array each, and a string with nothing to escape is copied whole.
    package func appendCanonical(to bytes: inout [UInt8], escapingControlCharacters: Bool = false) {
        switch self {
        case .null:
            bytes.append(contentsOf: "null".utf8)
        case .bool(let value):
            bytes.append(contentsOf: (value ? "true" : "false").utf8)
        case .integer(let value):
            Self.appendCanonical(integer: value, to: &bytes)
        case .string(let value):
            Self.appendCanonical(string: value, to: &bytes, escapingControlCharacters: escapingControlCharacters)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            var first = true
            for element in elements {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                element.appendCanonical(to: &bytes, escapingControlCharacters: escapingControlCharacters)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            // UTF-8 byte order is code point order, which is how Python sorts the keys.
            var first = true
            for (key, value) in members.sorted(by: { Self.precedes($0.key, $1.key) }) {
                if !first { bytes.append(UInt8(ascii: ",")) }
                first = false
                Self.appendCanonical(string: key, to: &bytes, escapingControlCharacters: escapingControlCharacters)
                bytes.append(UInt8(ascii: ":"))
                value.appendCanonical(to: &bytes, escapingControlCharacters: escapingControlCharacters)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    /// Whether `a` sorts before `b` by their UTF-8 bytes (code point order).
    static func precedes(_ a: String, _ b: String) -> Bool {
        let fast = a.utf8.withContiguousStorageIfAvailable { a in
            b.utf8.withContiguousStorageIfAvailable { b in
                let common = min(a.count, b.count)
                let order = common == 0 ? 0 : memcmp(a.baseAddress!, b.baseAddress!, common)
                return order != 0 ? order < 0 : a.count < b.count
            }
        }
        if let fast, let fast { return fast }
        return a.utf8.lexicographicallyPrecedes(b.utf8)
    }

    /// Appends the decimal digits of `value`, with its sign.
    private static func appendCanonical(integer value: Int64, to bytes: inout [UInt8]) {
        if value < 0 { bytes.append(UInt8(ascii: "-")) }
        var magnitude = value.magnitude
        var digits: (UInt64, UInt64, UInt64) = (0, 0, 0)  // 24 bytes: Int64's 19 digits fit
        withUnsafeMutableBytes(of: &digits) { buffer in
            var index = buffer.count
            repeat {
                index -= 1
                buffer[index] = UInt8(ascii: "0") + UInt8(magnitude % 10)
                magnitude /= 10
            } while magnitude > 0
            bytes.append(contentsOf: buffer[index...])
        }
    }

    private static func appendCanonical(string: String, to bytes: inout [UInt8], escapingControlCharacters: Bool) {
        bytes.append(UInt8(ascii: "\""))
        let copied: Bool? = string.utf8.withContiguousStorageIfAvailable { utf8 in
            guard !utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 < 0x20 }) else { return false }
            bytes.append(contentsOf: utf8)
            return true
        }
        if copied != true {
            for byte in string.utf8 {
                if escapingControlCharacters, byte < 0x20 {
                    let low = byte & 0x0F
                    bytes.append(contentsOf: "\\u00".utf8)
                    bytes.append(UInt8(ascii: "0") + byte >> 4)  // 0 or 1: the byte is below 0x20
                    bytes.append(low < 10 ? UInt8(ascii: "0") + low : UInt8(ascii: "a") + low - 10)
                    continue
                }
                if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
                bytes.append(byte)
            }
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
