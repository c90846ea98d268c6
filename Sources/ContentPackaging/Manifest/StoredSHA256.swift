/// A SHA-256 as the manifest model keeps it: its 32 bytes inline when the text is 64 lowercase hex digits (what
/// every writer produces), else the text as given, so a malformed value still reads back exactly for the checks
/// that refuse it.
///
/// **Why.** A hex `String` of 64 characters is a heap object of about 112 bytes besides its 16-byte reference;
/// a million files and their chunks held over 200 MB of hash text. Inline, a hash costs 33 bytes and no
/// allocation. The model's `sha256` properties still read and write the hex text, so nothing else changes.
package enum StoredSHA256: Hashable, Sendable {
    /// The digest's bytes as four big-endian words (byte 0 is the top byte of the first).
    case digest(UInt64, UInt64, UInt64, UInt64)
    /// Anything that is not 64 lowercase hex digits (empty while a packer fills it in, or a hostile value).
    case text(String)

    /// Stores `text`, as its bytes when it is 64 lowercase hex digits.
    package init(_ text: String) {
        var words: (UInt64, UInt64, UInt64, UInt64) = (0, 0, 0, 0)
        var utf8 = text.utf8.makeIterator()
        var count = 0
        while let byte = utf8.next() {
            let nibble: UInt64
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): nibble = UInt64(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): nibble = UInt64(byte - UInt8(ascii: "a") + 10)
            default:
                self = .text(text)
                return
            }
            guard count < 64 else {
                self = .text(text)
                return
            }
            switch count / 16 {
            case 0: words.0 = words.0 << 4 | nibble
            case 1: words.1 = words.1 << 4 | nibble
            case 2: words.2 = words.2 << 4 | nibble
            default: words.3 = words.3 << 4 | nibble
            }
            count += 1
        }
        guard count == 64 else {
            self = .text(text)
            return
        }
        self = .digest(words.0, words.1, words.2, words.3)
    }

    /// The same hash whatever the case of its hex digits: text with uppercase digits stored as bytes.
    package var caseFolded: StoredSHA256 {
        if case .text(let text) = self { return StoredSHA256(text.lowercased()) }
        return self
    }

    /// The text it was made from.
    package var text: String {
        switch self {
        case .text(let text): return text
        case .digest(let a, let b, let c, let d):
            return String(unsafeUninitializedCapacity: 64) { buffer in
                let digits: StaticString = "0123456789abcdef"
                for (index, word) in [a, b, c, d].enumerated() {
                    for nibble in 0..<16 {
                        let value = Int((word >> UInt64(60 - 4 * nibble)) & 0xF)
                        buffer[index * 16 + nibble] = digits.utf8Start[value]
                    }
                }
                return 64
            }
        }
    }
}

extension StoredSHA256: Codable {
    /// Reads the hex text a JSON manifest holds.
    package init(from decoder: any Decoder) throws {
        self.init(try decoder.singleValueContainer().decode(String.self))
    }

    /// Writes the hex text.
    package func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(text)
    }
}
