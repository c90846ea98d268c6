public import Foundation
import Crypto

/// The shared secret behind purchaser-only URLs: 32 random bytes, stored base64 in a 0600 file.
///
/// The backend that checks entitlements holds it to sign URLs; `iapcontent serve --token-key`
/// (or an edge function) holds it to check them.
public struct URLTokenKey: Sendable {
    let key: SymmetricKey

    /// A fresh random 256-bit key.
    public static func generate() -> URLTokenKey {
        URLTokenKey(key: SymmetricKey(size: .bits256))
    }

    init(key: SymmetricKey) {
        self.key = key
    }

    /// A key from raw bytes (at least 32).
    public init?(rawRepresentation: Data) {
        guard rawRepresentation.count >= 32 else { return nil }
        self.key = SymmetricKey(data: rawRepresentation)
    }

    /// The raw key bytes (keep secret).
    public var rawRepresentation: Data { key.withUnsafeBytes { Data($0) } }

    /// Writes the key base64 to a new 0600 file; never overwrites.
    public func write(to url: URL) throws(KeyFileError) {
        try SecretFile.create(Data((rawRepresentation.base64EncodedString() + "\n").utf8), at: url)
    }

    /// Reads a key file written by ``write(to:)`` (`iapcontent keygen --token-key`).
    ///
    /// - Throws: ``KeyFileError`` when the file is group/other accessible or not 32+ base64 bytes.
    public static func read(from url: URL) throws(KeyFileError) -> URLTokenKey {
        let text = String(decoding: try SecretFile.read(url), as: UTF8.self)
            .trimmingCharacters(in: .whitespacesAndNewlines)
        guard let raw = Data(base64Encoded: text), let key = URLTokenKey(rawRepresentation: raw) else {
            throw .malformed(path: url.path, detail: "expected base64 of 32 random bytes (`iapcontent keygen --token-key`)")
        }
        return key
    }
}
