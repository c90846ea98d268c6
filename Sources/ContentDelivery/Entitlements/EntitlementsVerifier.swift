public import Foundation

/// Checks a downloaded entitlements document before the client acts on it, with the catalog's trust
/// rules: signature by a pinned key over the exact bytes → decode → expiry → rollback per subject.
///
/// The signature check is the catalog's (``CatalogVerifier``), so one set of pinned keys and one key
/// rotation procedure serve both documents.
public struct EntitlementsVerifier: Sendable {
    let signatures: CatalogVerifier

    /// A verifier that accepts documents signed by any of `pinnedPublicKeys` (base64 raw Ed25519 keys).
    ///
    /// - Throws: ``EntitlementsVerificationError/invalidPinnedKey(_:)`` for a key that is not 32 base64 bytes.
    public init(pinnedPublicKeys: [String]) throws(EntitlementsVerificationError) {
        do throws(CatalogVerificationError) {
            signatures = try CatalogVerifier(pinnedPublicKeys: pinnedPublicKeys)
        } catch {
            guard case .invalidPinnedKey(let key) = error else { throw .invalidPinnedKey("\(error)") }
            throw .invalidPinnedKey(key)
        }
    }

    private init(unsigned: ()) {
        signatures = .allowingUnsigned
    }

    /// A verifier that skips the signature check but still enforces expiry and rollback.
    ///
    /// For development only: whoever controls the server then controls what is restored and removed.
    public static let allowingUnsigned = EntitlementsVerifier(unsigned: ())

    /// Whether a signature is checked (keys were pinned).
    public var requiresSignature: Bool { signatures.requiresSignature }

    /// Verifies and decodes a document.
    ///
    /// - Parameters:
    ///   - data: The exact bytes of the document.
    ///   - signatureData: The bytes of `<document>.sig`, or `nil` when the server had none.
    ///   - document: The file or URL, named in every error.
    ///   - subject: The subject the document must be for, when the client knows it (refuses replayed documents).
    ///   - highestSeenSequence: The highest `sequence` accepted before for a subject (persist it).
    ///   - now: The current time.
    /// - Throws: One distinct ``EntitlementsVerificationError`` per failure.
    public func verify(
        _ data: Data, signatureData: Data?, document: String, subject: String? = nil,
        highestSeenSequence: (_ subject: String) -> UInt64? = { _ in nil }, now: Date = Date()
    ) throws(EntitlementsVerificationError) -> Entitlements {
        if signatures.requiresSignature {
            do throws(CatalogVerificationError) {
                try signatures.checkSignature(catalogData: data, signatureData: signatureData)
            } catch {
                throw Self.signatureFailure(error, document: document)
            }
        }
        let entitlements = try Entitlements.load(from: data, document: document)
        if let subject, entitlements.subject != subject {
            throw .wrongSubject(document: document, expected: subject, got: entitlements.subject)
        }
        if let expires = entitlements.expires, expires <= now {
            throw .expired(document: document, at: expires)
        }
        if let seen = highestSeenSequence(entitlements.subject), entitlements.sequence < seen {
            throw .rollback(document: document, subject: entitlements.subject, seen: seen, got: entitlements.sequence)
        }
        return entitlements
    }

    /// The catalog's signature failure in the entitlements document's terms.
    static func signatureFailure(_ error: CatalogVerificationError, document: String) -> EntitlementsVerificationError {
        switch error {
        case .missingSignature: return .missingSignature(document: document)
        case .malformedSignature(let detail): return .malformedSignature(document: document, detail: detail)
        case .unknownKey(let keyID): return .unknownKey(document: document, keyID: keyID)
        case .badSignature(let keyID): return .badSignature(document: document, keyID: keyID)
        default: return .malformedSignature(document: document, detail: "\(error)")
        }
    }
}
