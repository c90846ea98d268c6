package import Foundation

/// Typed reads of one JSON object inside a metadata document, each failure a ``MetadataError/invalidField(role:field:problem:)``
/// naming the role and the field's full path (`signed.roles.root.threshold`).
package struct MetadataFields {
    /// The role whose document this is (for errors).
    package let role: String
    /// The object's path in the document (`signed`, `signed.keys.<keyid>`).
    package let path: String
    /// The object's members.
    package let members: [String: JSONValue]

    /// The object `value` at `path`, or an error when it is no object.
    package init(_ value: JSONValue, role: String, path: String) throws(MetadataError) {
        guard case .object(let members) = value else {
            throw .invalidField(role: role, field: path, problem: "must be an object, found \(value.typeName)")
        }
        self.role = role
        self.path = path
        self.members = members
    }

    /// The error for member `key`.
    package func invalid(_ key: String, _ problem: String) -> MetadataError {
        .invalidField(role: role, field: "\(path).\(key)", problem: problem)
    }

    /// Member `key`, which must be present.
    package func value(_ key: String) throws(MetadataError) -> JSONValue {
        guard let value = members[key] else { throw invalid(key, "is missing") }
        return value
    }

    /// A string member.
    package func string(_ key: String) throws(MetadataError) -> String {
        guard case .string(let text) = try value(key) else { throw invalid(key, "must be a string") }
        return text
    }

    /// An integer member of at least `minimum`.
    package func integer(_ key: String, minimum: Int64) throws(MetadataError) -> Int64 {
        guard case .integer(let number) = try value(key) else { throw invalid(key, "must be an integer") }
        guard number >= minimum else { throw invalid(key, "is \(number), must be at least \(minimum)") }
        return number
    }

    /// A boolean member, `nil` when absent.
    package func optionalBool(_ key: String) throws(MetadataError) -> Bool? {
        guard let value = members[key] else { return nil }
        guard case .bool(let flag) = value else { throw invalid(key, "must be true or false") }
        return flag
    }

    /// An object member.
    package func object(_ key: String) throws(MetadataError) -> MetadataFields {
        try MetadataFields(value(key), role: role, path: "\(path).\(key)")
    }

    /// An array of strings, each distinct.
    package func distinctStrings(_ key: String) throws(MetadataError) -> [String] {
        guard case .array(let elements) = try value(key) else { throw invalid(key, "must be an array") }
        var strings: [String] = []
        var seen: Set<String> = []
        for element in elements {
            guard case .string(let text) = element else { throw invalid(key, "must hold only strings") }
            guard seen.insert(text).inserted else { throw invalid(key, "lists \(text) twice") }
            strings.append(text)
        }
        return strings
    }

    /// A lowercase-hex string member of exactly `length` digits.
    package func hex(_ key: String, length: Int? = nil) throws(MetadataError) -> String {
        let text = try string(key)
        guard Hex.isLowercaseHex(text), length.map({ text.utf8.count == $0 }) ?? (text.utf8.count % 2 == 0) else {
            throw invalid(key, "must be lowercase hex" + (length.map { " of \($0) digits" } ?? ""))
        }
        return text
    }

    /// A `YYYY-MM-DDTHH:MM:SSZ` date member.
    package func date(_ key: String) throws(MetadataError) -> Date {
        let text = try string(key)
        guard text.utf8.count == 20, text.hasSuffix("Z"), let date = CatalogDate.date(from: text) else {
            throw invalid(key, "is \"\(text)\", must be a UTC date YYYY-MM-DDTHH:MM:SSZ")
        }
        return date
    }
}

/// Lowercase hex, as metadata writes key material, hashes and signatures.
package enum Hex {
    /// Whether `text` is non-empty and only `0-9a-f`.
    package static func isLowercaseHex(_ text: String) -> Bool {
        !text.isEmpty && text.utf8.allSatisfy { (0x30...0x39).contains($0) || (0x61...0x66).contains($0) }
    }

    /// The bytes of lowercase or uppercase hex text; `nil` for odd length or a non-hex digit.
    package static func bytes(_ text: String) -> [UInt8]? {
        let digits = Array(text.utf8)
        guard digits.count % 2 == 0 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(digits.count / 2)
        var index = 0
        while index < digits.count {
            guard let high = value(digits[index]), let low = value(digits[index + 1]) else { return nil }
            bytes.append(high << 4 | low)
            index += 2
        }
        return bytes
    }

    /// Lowercase hex of `bytes`.
    package static func string(_ bytes: some Sequence<UInt8>) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var out: [UInt8] = []
        for byte in bytes {
            out.append(digits[Int(byte >> 4)])
            out.append(digits[Int(byte & 0x0F)])
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static func value(_ digit: UInt8) -> UInt8? {
        switch digit {
        case 0x30...0x39: digit - 0x30
        case 0x61...0x66: digit - 0x61 + 10
        case 0x41...0x46: digit - 0x41 + 10
        default: nil
        }
    }
}
