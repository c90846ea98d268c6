internal import ContentPackaging
internal import Foundation

/// The few fields the publisher reads from S3's XML answers (`UploadId`, `ETag`, `Key`, `Code`, list results),
/// taken by element name: S3's documents are flat enough that no XML parser (and its library) is needed.
enum XMLFields {
    /// The text of the first `<name>…</name>` in `text`, entities decoded.
    static func first(_ name: String, in text: String) -> String? {
        all(name, in: text).first
    }

    /// The text of every `<name>…</name>` in `text`, in order, entities decoded.
    static func all(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        let open = "<\(name)>"
        let close = "</\(name)>"
        while let start = rest.range(of: open), let end = rest.range(of: close, range: start.upperBound..<rest.endIndex) {
            found.append(decode(String(rest[start.upperBound..<end.lowerBound])))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// Every `<name>…</name>` block of `text`, unparsed (e.g. each `<Contents>` of a listing).
    static func blocks(_ name: String, in text: String) -> [String] {
        var found: [String] = []
        var rest = text[...]
        while let start = rest.range(of: "<\(name)>"), let end = rest.range(of: "</\(name)>", range: start.upperBound..<rest.endIndex) {
            found.append(String(rest[start.upperBound..<end.lowerBound]))
            rest = rest[end.upperBound...]
        }
        return found
    }

    /// XML's predefined entities and numeric character references, decoded (the import's reader of Apple's XML
    /// does the same, ``InstallerXML/decodeEntities(_:)``).
    static func decode(_ text: String) -> String { InstallerXML.decodeEntities(text) }

    /// `text` with `&`, `<`, `>` and `"` escaped, for the one XML body the publisher writes.
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
