import Crypto

/// Succinct hashed-bin delegation (TAP 15): the delegator names a bit length and a name prefix instead of
/// listing 2ⁿ bins. A target path belongs to the bin numbered by the first `bitLength` bits of SHA-256(path),
/// named `<prefix>-<number in lowercase hex, zero-padded to ceil(bitLength/4) digits>`; every bin is signed by
/// the same keys and threshold.
package struct SuccinctRoles: Sendable, Equatable {
    /// The bins' key IDs and threshold.
    package var keys: RoleKeys
    /// How many leading bits of a path's SHA-256 pick its bin: 1 to 32.
    package var bitLength: Int
    /// The bins' name prefix.
    package var namePrefix: String

    /// Bins of `bitLength` bits named `<namePrefix>-…`, signed by `keys`.
    package init(keys: RoleKeys, bitLength: Int, namePrefix: String) {
        self.keys = keys
        self.bitLength = bitLength
        self.namePrefix = namePrefix
    }

    /// Reads `{"keyids", "threshold", "bit_length", "name_prefix"}`.
    package init(_ fields: MetadataFields) throws(MetadataError) {
        keys = try RoleKeys(fields)
        let bits = try fields.integer("bit_length", minimum: 1)
        guard bits <= 32 else { throw fields.invalid("bit_length", "is \(bits), must be at most 32") }
        bitLength = Int(bits)
        namePrefix = try fields.string("name_prefix")
    }

    /// The delegation as metadata holds it.
    package var json: JSONValue {
        guard case .object(var members) = keys.json else { return keys.json }
        members["bit_length"] = .integer(Int64(bitLength))
        members["name_prefix"] = .string(namePrefix)
        return .object(members)
    }

    /// How many bins there are: 2^bitLength.
    package var binCount: Int { 1 << bitLength }

    /// The number of the bin that holds `targetPath`.
    package func binNumber(for targetPath: String) -> Int {
        let digest = Array(SHA256.hash(data: Array(targetPath.utf8)))
        let prefix = UInt32(digest[0]) << 24 | UInt32(digest[1]) << 16 | UInt32(digest[2]) << 8 | UInt32(digest[3])
        return Int(prefix >> UInt32(32 - bitLength))
    }

    /// The name of bin `number`.
    package func binName(_ number: Int) -> String {
        let digits = String(number, radix: 16)
        let width = (bitLength + 3) / 4
        return "\(namePrefix)-" + String(repeating: "0", count: max(0, width - digits.count)) + digits
    }

    /// The name of the bin that holds `targetPath`.
    package func binName(for targetPath: String) -> String { binName(binNumber(for: targetPath)) }

    /// Whether `name` is one of the bins.
    package func isBin(_ name: String) -> Bool {
        let prefix = namePrefix + "-"
        guard name.hasPrefix(prefix) else { return false }
        let suffix = name.dropFirst(prefix.count)
        guard suffix.count == (bitLength + 3) / 4, let number = Int(suffix, radix: 16), Hex.isLowercaseHex(String(suffix)) else {
            return false
        }
        return number < binCount
    }
}
