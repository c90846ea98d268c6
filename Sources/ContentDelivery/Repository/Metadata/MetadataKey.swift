import Crypto
import Foundation

/// A role's public key as TUF metadata lists it: `{"keytype":"ed25519","scheme":"ed25519","keyval":{"public":"<hex>"}}`,
/// known by its key ID, the hex SHA-256 of that object's canonical JSON.
package struct MetadataKey: Sendable, Equatable {
    /// The raw 32-byte Ed25519 public key.
    package let publicKey: [UInt8]

    /// The key of a raw 32-byte Ed25519 public key.
    package init(ed25519PublicKey: [UInt8]) {
        publicKey = ed25519PublicKey
    }

    /// The key as metadata holds it.
    package var json: JSONValue {
        ["keytype": "ed25519", "scheme": "ed25519", "keyval": ["public": .string(Hex.string(publicKey))]]
    }

    /// Hex SHA-256 of the key's canonical JSON.
    package var keyID: String { Hex.string(SHA256.hash(data: json.canonicalBytes)) }

    /// Reads the key listed under `keyID` in `fields` (`signed.keys.<keyid>`).
    ///
    /// - Throws: ``MetadataError`` for another key type or scheme, a public key that is not 64 hex digits, or a
    ///   key ID that is not the SHA-256 of the key.
    package init(_ fields: MetadataFields, keyID: String) throws(MetadataError) {
        let keyType = try fields.string("keytype")
        let scheme = try fields.string("scheme")
        guard keyType == "ed25519", scheme == "ed25519" else {
            throw .unsupportedKey(role: fields.role, keyID: keyID, keyType: keyType, scheme: scheme)
        }
        let value = try fields.object("keyval")
        let hex = try value.hex("public", length: 64)
        publicKey = Hex.bytes(hex)!
        guard self.keyID == keyID else {
            throw .invalidField(
                role: fields.role, field: fields.path,
                problem: "is listed as key \(keyID) but the key's ID (SHA-256 of its canonical JSON) is \(self.keyID)")
        }
    }

    /// Whether `signature` is this key's Ed25519 signature over `message`.
    package func verifies(_ signature: [UInt8], over message: [UInt8]) -> Bool {
        guard let key = try? Curve25519.Signing.PublicKey(rawRepresentation: publicKey) else { return false }
        return key.isValidSignature(signature, for: message)
    }
}

/// The key IDs that speak for a role and how many of them must sign (`{"keyids": […], "threshold": n}`).
package struct RoleKeys: Sendable, Equatable {
    /// The role's key IDs, each distinct.
    package var keyIDs: [String]
    /// How many distinct keys of the role must sign; at least 1.
    package var threshold: Int

    /// The role of `keyIDs` and `threshold`.
    package init(keyIDs: [String], threshold: Int) {
        self.keyIDs = keyIDs
        self.threshold = threshold
    }

    /// Reads `{"keyids", "threshold"}`.
    package init(_ fields: MetadataFields) throws(MetadataError) {
        keyIDs = try fields.distinctStrings("keyids")
        threshold = Int(try fields.integer("threshold", minimum: 1))
    }

    /// The role as metadata holds it.
    package var json: JSONValue {
        ["keyids": .array(keyIDs.map { .string($0) }), "threshold": .integer(Int64(threshold))]
    }
}
