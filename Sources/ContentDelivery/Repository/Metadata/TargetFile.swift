/// One target file a targets role lists: its exact length, its hashes, and publisher facts in `custom`.
package struct TargetFile: Sendable, Equatable {
    /// Exact length in bytes.
    package var length: Int64
    /// Lowercase hex digests by algorithm; `sha256` is always there.
    package var hashes: [String: String]
    /// What the publisher says about the file beyond its bytes (for a product's archive: the catalog entry).
    package var custom: JSONValue?

    /// A target of `length` bytes hashing to `sha256`.
    package init(length: Int64, sha256: String, custom: JSONValue? = nil) {
        self.length = length
        self.hashes = ["sha256": sha256]
        self.custom = custom
    }

    /// Its SHA-256.
    package var sha256: String { hashes["sha256"] ?? "" }

    /// Reads `{"length", "hashes", "custom"?}`.
    package init(_ fields: MetadataFields) throws(MetadataError) {
        length = try fields.integer("length", minimum: 0)
        hashes = try Self.readHashes(fields.object("hashes"))
        guard hashes["sha256"] != nil else { throw fields.invalid("hashes", "has no sha256") }
        custom = fields.members["custom"]
    }

    /// Reads a `hashes` object: every value hex, `sha256` 64 digits and `sha512` 128 when present.
    static func readHashes(_ fields: MetadataFields) throws(MetadataError) -> [String: String] {
        guard !fields.members.isEmpty else {
            throw .invalidField(role: fields.role, field: fields.path, problem: "must name at least one hash")
        }
        var hashes: [String: String] = [:]
        for algorithm in fields.members.keys {
            let length: Int? = switch algorithm {
            case "sha256": 64
            case "sha512": 128
            default: nil
            }
            hashes[algorithm] = try fields.hex(algorithm, length: length)
        }
        return hashes
    }

    /// The target as metadata holds it.
    package var json: JSONValue {
        var members: [String: JSONValue] = [
            "length": .integer(length), "hashes": .object(hashes.mapValues { .string($0) }),
        ]
        if let custom { members["custom"] = custom }
        return .object(members)
    }
}
