public import Foundation

/// Why a client refused an entitlements document. Each message names the document and what to do.
public enum EntitlementsVerificationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No `<document>.sig` although keys are pinned.
    case missingSignature(document: String)
    /// The signature file is not valid JSON, not ed25519, or not 64 base64 bytes.
    case malformedSignature(document: String, detail: String)
    /// Signed by a key this app does not pin.
    case unknownKey(document: String, keyID: String)
    /// The signature does not match the bytes (tampered or wrong key).
    case badSignature(document: String, keyID: String)
    /// The bytes are not an entitlements document.
    case malformedDocument(document: String, detail: String)
    /// The document is another subject's than the one the client asked for (a replayed document).
    case wrongSubject(document: String, expected: String, got: String)
    /// The document's `expires` is in the past.
    case expired(document: String, at: Date)
    /// The document's `sequence` is lower than one already seen for its subject.
    case rollback(document: String, subject: String, seen: UInt64, got: UInt64)
    /// A pinned public key is not base64 of 32 bytes.
    case invalidPinnedKey(String)

    /// A message naming the document, what failed and what to do next.
    public var description: String {
        switch self {
        case .missingSignature(let document):
            return "\(document).sig is missing; the server must sign the entitlements "
                + "(`iapcontent entitlements sign --signing-key`)"
        case .malformedSignature(let document, let detail):
            return "\(document).sig is malformed (\(detail)); fetch it again or ask the server to re-sign"
        case .unknownKey(let document, let keyID):
            return "\(document) is signed by key \(keyID), which this app does not pin; pin the server's public key"
        case .badSignature(let document, let keyID):
            return "the signature by key \(keyID) does not match \(document); the entitlements were altered or "
                + "signed with a different key — do not use them"
        case .malformedDocument(let document, let detail):
            return "\(document) is not an entitlements document: \(detail)"
        case .wrongSubject(let document, let expected, let got):
            return "\(document) lists the entitlements of \(got), not of \(expected); check the URL — the server "
                + "must serve each customer their own document"
        case .expired(let document, let date):
            return "\(document) expired at \(CatalogDate.string(from: date)); the server must issue and sign a fresh one"
        case .rollback(let document, let subject, let seen, let got):
            return "\(document) has sequence \(got) for \(subject), older than sequence \(seen) already seen "
                + "(rollback); refusing it — the server may be serving a stale copy"
        case .invalidPinnedKey(let key):
            return "pinned public key '\(key)' is not base64 of a 32-byte Ed25519 key; copy it from `iapcontent keygen`"
        }
    }
}
