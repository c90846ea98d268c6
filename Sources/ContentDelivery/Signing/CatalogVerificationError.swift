public import Foundation
public import ContentPackaging

/// Why a client refused a catalog (or an offered product version). Each case is distinct so the
/// client can react — and each message says what to do.
public enum CatalogVerificationError: Error, CustomStringConvertible, Sendable, Equatable {
    /// No `catalog.json.sig` although keys are pinned.
    case missingSignature
    /// The signature file is not valid JSON, not ed25519, or not 64 base64 bytes (e.g. truncated).
    case malformedSignature(String)
    /// Signed by a key this app does not pin.
    case unknownKey(String)
    /// Signed by a pinned key ID but the signature does not match the bytes (tampered or wrong key).
    case badSignature(String)
    /// `catalog.json` is not a valid catalog.
    case malformedCatalog(String)
    /// The catalog's `expires` is in the past (freeze attack or a publisher who forgot to re-sign).
    case expired(at: Date)
    /// The catalog's `catalogVersion` is lower than one already seen.
    case rollback(seen: UInt64, got: UInt64)
    /// The catalog offers an older content version than the one installed.
    case downgrade(installed: ContentVersion, offered: ContentVersion)
    /// A pinned public key is not base64 of 32 bytes.
    case invalidPinnedKey(String)

    /// A message naming what failed and what to do next.
    public var description: String {
        switch self {
        case .missingSignature:
            return "catalog.json.sig is missing; the publisher must sign the catalog (`iapcontent catalog --signing-key`)"
        case .malformedSignature(let detail):
            return "catalog.json.sig is malformed (\(detail)); re-download it or ask the publisher to re-sign"
        case .unknownKey(let keyID):
            return "catalog is signed by key \(keyID), which this app does not pin; ship the new public key "
                + "in an app update before rotating to it"
        case .badSignature(let keyID):
            return "catalog signature by key \(keyID) does not match catalog.json; the catalog was altered or "
                + "signed with a different key — do not use it"
        case .malformedCatalog(let detail):
            return "catalog.json is malformed: \(detail)"
        case .expired(let date):
            return "catalog expired at \(CatalogDate.string(from: date)); the publisher must re-sign it "
                + "(`iapcontent catalog --signing-key ... --expires-in ...`)"
        case .rollback(let seen, let got):
            return "catalog version \(got) is older than version \(seen) already seen (rollback); refusing it — "
                + "the server may be serving a stale copy"
        case .downgrade(let installed, let offered):
            return "catalog offers version \(offered) but \(installed) is installed; refusing to downgrade"
        case .invalidPinnedKey(let key):
            return "pinned public key '\(key)' is not base64 of a 32-byte Ed25519 key; copy it from `iapcontent keygen`"
        }
    }
}
