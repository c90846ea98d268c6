package import Foundation

/// A metadata document: `{"signed": …, "signatures": [{"keyid", "sig"}]}`, the signatures over the canonical JSON
/// of `signed`.
///
/// A parsed document keeps the `signed` object exactly as read (``signedJSON``), unknown fields included, so a
/// signature is checked over what the signer signed, not over this code's re-encoding of it.
package struct SignedMetadata<Role: RoleMetadata>: Sendable {
    /// The role's fields.
    package var signed: Role
    /// The `signed` object as read (or as ``signed`` encodes it, for a document made here).
    package private(set) var signedJSON: JSONValue
    /// The signatures, in document order.
    package var signatures: [MetadataSignature]
    /// ``signedBytes`` as the last ``sign(with:)`` made them, kept for ``fileBytes``: a bin is hundreds of targets,
    /// and encoding it once instead of twice is a tenth of a large store's build.
    private var signedCanonical: [UInt8]?

    /// A new, unsigned document of `signed`.
    package init(_ signed: Role) {
        self.signed = signed
        self.signedJSON = signed.signedJSON
        self.signatures = []
        self.signedCanonical = nil
    }

    /// Parses a document of `Role`, named `roleName` in errors (`root`, `snapshot`, `bins-3f`).
    ///
    /// Checks the syntax and every field; not the signatures or the expiry (``verify(keys:role:roleName:)``,
    /// ``MetadataHeader/checkNotExpired(role:now:)``).
    package init(parsing bytes: some Collection<UInt8>, roleName: String) throws(MetadataError) {
        let document: JSONValue
        do { document = try JSONParser.parse(bytes) } catch { throw .syntax(role: roleName, detail: error.description) }
        let top = try MetadataFields(document, role: roleName, path: "")
        signedJSON = try top.value("signed")
        let fields = try MetadataFields(signedJSON, role: roleName, path: "signed")
        signed = try Role(fields: fields, header: MetadataHeader(fields, type: Role.type))
        guard case .array(let entries) = try top.value("signatures") else {
            throw .invalidField(role: roleName, field: "signatures", problem: "must be an array")
        }
        signatures = []
        for (index, entry) in entries.enumerated() {
            signatures.append(try MetadataSignature(MetadataFields(entry, role: roleName, path: "signatures[\(index)]")))
        }
    }

    /// The bytes every signature covers: the canonical JSON of `signed`.
    package var signedBytes: [UInt8] { signedJSON.canonicalBytes }

    /// Adds a signature by `signer` over ``signedBytes`` (replacing an earlier one by the same key), after encoding
    /// ``signed`` afresh.
    package mutating func sign(with signer: any MetadataSigner) throws {
        signedJSON = signed.signedJSON
        let message = signedBytes
        signedCanonical = message
        let signature = try signer.sign(message)
        signatures.removeAll { $0.keyID == signer.key.keyID }
        signatures.append(MetadataSignature(keyID: signer.key.keyID, signature: signature))
    }

    /// The file's bytes: the document in canonical JSON (control characters escaped, ``JSONValue/fileBytes``).
    package var fileBytes: Data {
        let signedBytes = signedCanonical ?? self.signedBytes
        // Canonical bytes hold no byte below 0x20 outside strings, so without one at all they are the file's bytes
        // too; `signatures` sorts before `signed`.
        guard !signedBytes.contains(where: { $0 < 0x20 }) else {
            let document: JSONValue = ["signed": signedJSON, "signatures": .array(signatures.map(\.json))]
            return Data(document.fileBytes)
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(signedBytes.count + 64 + 160 * signatures.count)
        bytes.append(contentsOf: #"{"signatures":"#.utf8)
        JSONValue.array(signatures.map(\.json)).appendCanonical(to: &bytes, escapingControlCharacters: true)
        bytes.append(contentsOf: #","signed":"#.utf8)
        bytes.append(contentsOf: signedBytes)
        bytes.append(UInt8(ascii: "}"))
        return Data(bytes)
    }

    /// Throws unless at least `role.threshold` distinct keys of `role`, found in `keys`, signed ``signedBytes``.
    /// A key that signed twice counts once; a signature by a key outside the role, or an invalid one, counts none.
    package func verify(keys: [String: MetadataKey], role: RoleKeys, roleName: String) throws(MetadataError) {
        let valid = validSignerCount(keys: keys, role: role)
        guard valid >= role.threshold else {
            throw .thresholdNotMet(role: roleName, valid: valid, threshold: role.threshold)
        }
    }

    /// How many distinct keys of `role` made a valid signature.
    package func validSignerCount(keys: [String: MetadataKey], role: RoleKeys) -> Int {
        let message = signedBytes
        let allowed = Set(role.keyIDs)
        var counted: Set<String> = []
        for signature in signatures where allowed.contains(signature.keyID) && !counted.contains(signature.keyID) {
            guard let key = keys[signature.keyID], key.verifies(signature.signature, over: message) else { continue }
            counted.insert(signature.keyID)
        }
        return counted.count
    }
}

extension SignedMetadata where Role == RootMetadata {
    /// Verifies a root by its own keys and threshold.
    package func verifySelf(roleName: String = "root") throws(MetadataError) {
        try verify(keys: signed.keys, role: signed.role("root"), roleName: roleName)
    }

    /// Verifies this root as the link after `trusted` in the root chain: exactly one version above it, signed by a
    /// threshold of `trusted`'s root keys and by a threshold of its own.
    package func verifyAsSuccessor(of trusted: RootMetadata) throws(MetadataError) {
        let name = "root version \(signed.version)"
        guard signed.version == trusted.version + 1 else {
            throw .invalidField(
                role: name, field: "signed.version",
                problem: "is \(signed.version); the root after version \(trusted.version) must be \(trusted.version + 1)")
        }
        try verify(keys: trusted.keys, role: trusted.role("root"), roleName: "\(name) (by the keys of version \(trusted.version))")
        try verifySelf(roleName: name)
    }
}

/// Something that signs metadata with one Ed25519 key: a key file today; a PKCS#11 token or other hardware key
/// later, behind the same two members.
package protocol MetadataSigner: Sendable {
    /// The public key whose ID the signature carries.
    var key: MetadataKey { get }
    /// The Ed25519 signature over `message`.
    func sign(_ message: [UInt8]) throws -> [UInt8]
}
