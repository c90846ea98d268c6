public import Foundation

/// The detached signature file `catalog.json.sig`.
///
/// ```json
/// { "algorithm": "ed25519", "keyID": "3f2a…", "signature": "<base64 64 bytes>" }
/// ```
/// The signature covers the EXACT bytes of `catalog.json` — no canonicalisation, so never
/// re-encode a catalog before verifying it.
public struct CatalogSignature: Codable, Sendable, Equatable {
    /// The signing key's ID (see ``SigningKey/keyID``).
    public var keyID: String
    /// Always `ed25519`.
    public var algorithm: String
    /// Base64 of the 64-byte Ed25519 signature.
    public var signature: String

    /// Creates a signature record.
    public init(keyID: String, algorithm: String = "ed25519", signature: String) {
        self.keyID = keyID
        self.algorithm = algorithm
        self.signature = signature
    }

    /// Deterministic JSON bytes with a trailing newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .prettyPrinted, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }
}

/// Signs catalog bytes with a ``SigningKey``.
public struct CatalogSigner: Sendable {
    /// The key every signature is made with.
    public let key: SigningKey

    /// Creates a signer for `key`.
    public init(key: SigningKey) {
        self.key = key
    }

    /// Signs the exact `catalogData` bytes.
    public func sign(_ catalogData: Data) throws -> CatalogSignature {
        CatalogSignature(keyID: key.keyID, signature: try key.signature(for: catalogData).base64EncodedString())
    }
}
