/// The variant a path component belongs to: `Voices#language=de` is the folder `Voices` for German.
///
/// A component ends in `#<axis>=<value>`; its install name is what comes before `#`. The variants of one
/// folder or file (`Voices#language=de`, `Voices#language=fr`, and `Voices` untagged as the fallback) install
/// at one path, `Voices`, and a device gets exactly one of them. Play Asset Delivery marks texture variants
/// the same way (`textures#tcf_astc`); naming the axis makes every axis read alike.
public struct VariantTag: Sendable, Hashable, Codable {
    /// The axis: `language`, `arch`, `texture`, or a custom axis declared in `ContentInfo.plist`.
    public var axis: String
    /// The value on that axis: `de`, `pt-BR`, `x86_64`, `astc`, …
    public var value: String

    /// Creates a tag.
    public init(axis: String, value: String) {
        self.axis = axis
        self.value = value
    }

    /// The axes every device profile has without a declaration.
    public static let standardAxes = ["language", "arch", "texture"]

    /// Splits a path component into its install name and tag; `nil` tag for a component without a well-formed
    /// `#<axis>=<value>` suffix (a `#` elsewhere in a name is just a character, as it always was).
    public static func split(component: Substring) -> (name: Substring, tag: VariantTag?) {
        guard let hash = component.lastIndex(of: "#") else { return (component, nil) }
        let name = component[..<hash], suffix = component[component.index(after: hash)...]
        let parts = suffix.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard !name.isEmpty, parts.count == 2, isAxisName(parts[0]), isValue(parts[1]) else { return (component, nil) }
        return (name, VariantTag(axis: String(parts[0]), value: String(parts[1])))
    }

    /// Whether `text` is an axis name: a lowercase letter, then lowercase letters, digits or `-`, at most 32.
    public static func isAxisName(_ text: Substring) -> Bool {
        guard let first = text.utf8.first, (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(first), text.utf8.count <= 32 else {
            return false
        }
        return text.utf8.allSatisfy { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: "-") }
    }

    /// Whether `text` is a value: letters, digits, `-`, `_` or `.`, 1 to 64 of them, not `.` or `..`.
    public static func isValue(_ text: Substring) -> Bool {
        guard !text.isEmpty, text.utf8.count <= 64, text != ".", text != ".." else { return false }
        return text.utf8.allSatisfy { byte in
            (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte) || (UInt8(ascii: "A")...UInt8(ascii: "Z")).contains(byte)
                || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "_")
                || byte == UInt8(ascii: ".")
        }
    }
}
