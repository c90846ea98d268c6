package import Crypto

extension Sequence<UInt8> {
    /// Lowercase hexadecimal, two digits per byte: how manifests, catalogs and the journal spell SHA-256
    /// digests. One shared spelling, so digests compare as strings, and no `String(format:)` per byte.
    package var lowercaseHex: String {
        let digits = Array("0123456789abcdef".utf8)
        var bytes: [UInt8] = []
        for byte in self {
            bytes.append(digits[Int(byte >> 4)])
            bytes.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}

extension SHA256 {
    /// Finishes the hash and returns it as lowercase hex (``Swift/Sequence/lowercaseHex``).
    package consuming func finalizeHex() -> String {
        finalize().lowercaseHex
    }
}
