import SystemSupport
public import Foundation
import ContentPackaging
import Crypto

/// An Ed25519 private key that signs catalogs, with its public half and key ID.
///
/// The key ID is the first 16 hex digits of SHA-256 over the raw 32-byte public key, so anyone
/// holding only the public key computes the same ID (clients match signatures to pinned keys by it).
public struct SigningKey: Sendable {
    let privateKey: Curve25519.Signing.PrivateKey

    /// A fresh random key.
    public static func generate() -> SigningKey {
        SigningKey(privateKey: Curve25519.Signing.PrivateKey())
    }

    init(privateKey: Curve25519.Signing.PrivateKey) {
        self.privateKey = privateKey
    }

    /// Restores a key from its raw 32-byte private representation.
    ///
    /// - Throws: when the bytes are not a valid Ed25519 private key.
    public init(rawRepresentation: Data) throws {
        self.privateKey = try Curve25519.Signing.PrivateKey(rawRepresentation: rawRepresentation)
    }

    /// The raw 32-byte private key (keep secret).
    public var rawRepresentation: Data { privateKey.rawRepresentation }

    /// The raw 32-byte public key.
    public var publicKeyRaw: Data { privateKey.publicKey.rawRepresentation }

    /// The public key, base64 — what apps pin.
    public var publicKeyBase64: String { publicKeyRaw.base64EncodedString() }

    /// First 16 hex digits of SHA-256 of the raw public key.
    public var keyID: String { SigningKey.keyID(forPublicKey: publicKeyRaw) }

    /// The key ID of a raw 32-byte Ed25519 public key.
    public static func keyID(forPublicKey raw: Data) -> String {
        String(SHA256.hash(data: raw).lowercaseHex.prefix(16))
    }

    /// Signs `data` (Ed25519, 64-byte signature).
    public func signature(for data: Data) throws -> Data {
        try privateKey.signature(for: data)
    }
}
