public import Foundation
public import ContentPackaging
import Crypto

/// Checks a downloaded catalog before anything in it is trusted (client side).
///
/// Order (TUF-style): signature over the exact bytes → decode → expiry → rollback. Several public
/// keys may be pinned at once so a publisher can rotate keys: ship the new key in an app update,
/// then start signing with it.
public struct CatalogVerifier: Sendable {
    let keys: [String: Curve25519.Signing.PublicKey]
    let requiresSignature: Bool

    /// A verifier that accepts catalogs signed by any of `pinnedPublicKeys` (base64 raw Ed25519 keys).
    ///
    /// - Throws: ``CatalogVerificationError/invalidPinnedKey(_:)`` for a key that is not 32 base64 bytes.
    public init(pinnedPublicKeys: [String]) throws(CatalogVerificationError) {
        var keys: [String: Curve25519.Signing.PublicKey] = [:]
        for text in pinnedPublicKeys {
            guard let raw = Data(base64Encoded: text.trimmingCharacters(in: .whitespacesAndNewlines)),
                  let key = try? Curve25519.Signing.PublicKey(rawRepresentation: raw)
            else { throw .invalidPinnedKey(text) }
            keys[SigningKey.keyID(forPublicKey: raw)] = key
        }
        self.keys = keys
        self.requiresSignature = true
    }

    private init(unsigned: ()) {
        self.keys = [:]
        self.requiresSignature = false
    }

    /// A verifier that skips the signature check but still enforces expiry and rollback.
    ///
    /// For development and demos only: anyone who controls the server controls the content.
    public static let allowingUnsigned = CatalogVerifier(unsigned: ())

    /// Verifies and decodes a catalog.
    ///
    /// - Parameters:
    ///   - catalogData: The exact bytes of `catalog.json`.
    ///   - signatureData: The bytes of `catalog.json.sig`, or `nil` if the server had none.
    ///   - highestSeenVersion: The highest `catalogVersion` this client accepted before (persist it).
    ///   - now: The current time.
    /// - Returns: The verified catalog.
    /// - Throws: One distinct ``CatalogVerificationError`` per failure.
    public func verify(
        catalogData: Data, signatureData: Data?, highestSeenVersion: UInt64? = nil, now: Date = Date()
    ) throws(CatalogVerificationError) -> Catalog {
        if requiresSignature {
            try checkSignature(catalogData: catalogData, signatureData: signatureData)
        }
        let catalog = try Catalog.load(from: catalogData)
        if let expires = catalog.expires, expires <= now {
            throw .expired(at: expires)
        }
        if let seen = highestSeenVersion, catalog.catalogVersion < seen {
            throw .rollback(seen: seen, got: catalog.catalogVersion)
        }
        return catalog
    }

    /// Checks a detached signature over the exact `catalogData` bytes against the pinned keys; shared by
    /// every signed document (the catalog, entitlements), which name the failure in their own terms.
    func checkSignature(catalogData: Data, signatureData: Data?) throws(CatalogVerificationError) {
        guard let signatureData, !signatureData.isEmpty else { throw .missingSignature }
        let record: CatalogSignature
        do { record = try JSONDecoder().decode(CatalogSignature.self, from: signatureData) } catch {
            throw .malformedSignature("not JSON with keyID, algorithm and signature")
        }
        guard record.algorithm == "ed25519" else {
            throw .malformedSignature("algorithm \(record.algorithm) is not ed25519")
        }
        guard let signature = Data(base64Encoded: record.signature), signature.count == 64 else {
            throw .malformedSignature("signature is not base64 of 64 bytes")
        }
        guard let key = keys[record.keyID] else { throw .unknownKey(record.keyID) }
        guard key.isValidSignature(signature, for: catalogData) else { throw .badSignature(record.keyID) }
    }

    /// Refuses to replace installed content with an older version.
    ///
    /// Equal versions pass (a re-download of the same content).
    /// - Throws: ``CatalogVerificationError/downgrade(installed:offered:)``.
    public static func checkNoDowngrade(installed: ContentVersion, offered: ContentVersion)
        throws(CatalogVerificationError)
    {
        if offered < installed { throw .downgrade(installed: installed, offered: offered) }
    }
}
