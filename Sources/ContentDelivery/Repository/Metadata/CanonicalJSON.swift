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
    package func appendCanonical(to bytes: inout [UInt8], escapingControlCharacters: Bool = false) {
        switch self {
        case .null:
            bytes += Array("null".utf8)
        case .bool(let value):
            bytes += Array((value ? "true" : "false").utf8)
        case .integer(let value):
            bytes += Array(String(value).utf8)
        case .string(let value):
            Self.appendCanonical(string: value, to: &bytes, escapingControlCharacters: escapingControlCharacters)
        case .array(let elements):
            bytes.append(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                element.appendCanonical(to: &bytes, escapingControlCharacters: escapingControlCharacters)
            }
            bytes.append(UInt8(ascii: "]"))
        case .object(let members):
            bytes.append(UInt8(ascii: "{"))
            // UTF-8 byte order is code point order, which is how Python sorts the keys.
            let keys = members.keys.sorted { $0.utf8.lexicographicallyPrecedes($1.utf8) }
            for (index, key) in keys.enumerated() {
                if index > 0 { bytes.append(UInt8(ascii: ",")) }
                Self.appendCanonical(string: key, to: &bytes, escapingControlCharacters: escapingControlCharacters)
                bytes.append(UInt8(ascii: ":"))
                members[key]!.appendCanonical(to: &bytes, escapingControlCharacters: escapingControlCharacters)
            }
            bytes.append(UInt8(ascii: "}"))
        }
    }

    private static func appendCanonical(string: String, to bytes: inout [UInt8], escapingControlCharacters: Bool) {
        bytes.append(UInt8(ascii: "\""))
        for byte in string.utf8 {
            if escapingControlCharacters, byte < 0x20 {
                let digits = Array("0123456789abcdef".utf8)
                bytes += Array("\\u00".utf8) + [digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]]
                continue
            }
            if byte == UInt8(ascii: "\\") || byte == UInt8(ascii: "\"") { bytes.append(UInt8(ascii: "\\")) }
            bytes.append(byte)
        }
        bytes.append(UInt8(ascii: "\""))
    }
}
