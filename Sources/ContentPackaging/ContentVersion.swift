/// A hosted-content version: dot-separated non-negative integers (`1`, `1.0`, `1.2.3`).
///
/// StoreKit's `contentVersion` is "a series of integers separated by periods". Versions compare
/// numerically component by component, so `1.10 > 1.9`, and missing trailing components count as
/// zero, so `1 == 1.0` for ordering purposes. The original spelling is kept in ``description``
/// because it names archives (`<product>-<version>.tar.zst`).
public struct ContentVersion: Sendable, Hashable, Comparable, CustomStringConvertible, Codable {
    /// The numeric components, most significant first.
    public let components: [UInt64]
    /// The version exactly as the author wrote it.
    public let description: String

    /// Parses a version string; returns `nil` unless it is dot-separated non-negative integers.
    ///
    /// Each component must be 1–9 ASCII digits (no signs, spaces or empty parts).
    public init?(_ string: String) {
        guard !string.isEmpty, string.utf8.count <= 64 else { return nil }
        var parts: [UInt64] = []
        for part in string.split(separator: ".", omittingEmptySubsequences: false) {
            guard !part.isEmpty, part.utf8.count <= 9,
                  part.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") }),
                  let value = UInt64(part)
            else { return nil }
            parts.append(value)
        }
        self.components = parts
        self.description = string
    }

    /// Numeric ordering; trailing zero components are insignificant.
    public static func < (lhs: ContentVersion, rhs: ContentVersion) -> Bool {
        let count = max(lhs.components.count, rhs.components.count)
        for index in 0..<count {
            let l = index < lhs.components.count ? lhs.components[index] : 0
            let r = index < rhs.components.count ? rhs.components[index] : 0
            if l != r { return l < r }
        }
        return false
    }

    /// Equality is numeric (`1.0 == 1`), consistent with ordering.
    public static func == (lhs: ContentVersion, rhs: ContentVersion) -> Bool {
        !(lhs < rhs) && !(rhs < lhs)
    }

    /// Hashes the numeric value with trailing zeros dropped, consistent with `==`.
    public func hash(into hasher: inout Hasher) {
        var trimmed = components
        while trimmed.last == 0 { trimmed.removeLast() }
        hasher.combine(trimmed)
    }

    /// Decodes from a JSON string, rejecting malformed versions.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let string = try container.decode(String.self)
        guard let version = ContentVersion(string) else {
            throw DecodingError.dataCorruptedError(
                in: container,
                debugDescription: "'\(string)' is not a content version (dot-separated integers such as 1.2)")
        }
        self = version
    }

    /// Encodes as the original string.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
