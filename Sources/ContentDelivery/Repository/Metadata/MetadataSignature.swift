/// One signature of a metadata document: `{"keyid": "<hex>", "sig": "<hex>"}`, over the canonical JSON of `signed`.
package struct MetadataSignature: Sendable, Equatable {
    /// The ID of the key that signed.
    package var keyID: String
    /// The signature bytes.
    package var signature: [UInt8]

    /// The signature `signature` by `keyID`.
    package init(keyID: String, signature: [UInt8]) {
        self.keyID = keyID
        self.signature = signature
    }

    /// Reads one entry of `signatures`.
    package init(_ fields: MetadataFields) throws(MetadataError) {
        keyID = try fields.string("keyid")
        let hex = try fields.string("sig")
        guard let bytes = Hex.bytes(hex) else {
            throw fields.invalid("sig", "of key \(keyID) is not hex")
        }
        signature = bytes
    }

    /// The signature as metadata holds it.
    package var json: JSONValue { ["keyid": .string(keyID), "sig": .string(Hex.string(signature))] }
}
