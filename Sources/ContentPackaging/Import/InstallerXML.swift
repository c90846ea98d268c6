/// The little of XML that a package's `Distribution` and `PackageInfo` need: start tags, their attributes
/// and the text right after them.
///
/// Both documents are small, machine-written and flat (`<pkg-ref id="…">#Name.pkg</pkg-ref>`,
/// `<payload numberOfFiles="…" installKBytes="…"/>`), so a scanner that finds start tags by name is enough;
/// it never resolves external entities or DTDs, and comments, processing instructions and CDATA are
/// skipped. Attribute values and text have the five predefined entities and character references decoded.
package enum InstallerXML {
    /// One start tag: its attributes and the text up to the next tag.
    struct Element: Equatable {
        var attributes: [String: String]
        var text: String
    }

    /// Every start tag named `name`, in document order.
    static func elements(named name: String, in document: String) -> [Element] {
        let bytes = Array(document.utf8)
        let open = Array("<\(name)".utf8)
        var result: [Element] = []
        var index = 0
        while index < bytes.count {
            guard bytes[index] == UInt8(ascii: "<") else { index += 1; continue }
            if let end = skipMarkup(bytes, at: index) { index = end; continue }
            guard bytes[index...].starts(with: open), index + open.count < bytes.count,
                  [UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "/"), UInt8(ascii: ">")]
                    .contains(bytes[index + open.count])
            else { index += 1; continue }
            var cursor = index + open.count
            var attributes: [String: String] = [:]
            var selfClosing = false
            while cursor < bytes.count, bytes[cursor] != UInt8(ascii: ">") {
                if bytes[cursor] == UInt8(ascii: "/") { selfClosing = true; cursor += 1; continue }
                guard isNameByte(bytes[cursor]) else { cursor += 1; continue }
                let nameStart = cursor
                while cursor < bytes.count, isNameByte(bytes[cursor]) { cursor += 1 }
                let attribute = String(decoding: bytes[nameStart..<cursor], as: UTF8.self)
                while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "=") else { continue }
                cursor += 1
                while cursor < bytes.count, bytes[cursor] == UInt8(ascii: " ") { cursor += 1 }
                guard cursor < bytes.count, bytes[cursor] == UInt8(ascii: "\"") || bytes[cursor] == UInt8(ascii: "'") else { continue }
                let quote = bytes[cursor]
                let valueStart = cursor + 1
                cursor = valueStart
                while cursor < bytes.count, bytes[cursor] != quote { cursor += 1 }
                attributes[attribute] = decodeEntities(String(decoding: bytes[valueStart..<min(cursor, bytes.count)], as: UTF8.self))
                cursor += 1
                selfClosing = false
            }
            cursor += 1
            var text = ""
            if !selfClosing {
                let textStart = min(cursor, bytes.count)
                var textEnd = textStart
                while textEnd < bytes.count, bytes[textEnd] != UInt8(ascii: "<") { textEnd += 1 }
                text = decodeEntities(String(decoding: bytes[textStart..<textEnd], as: UTF8.self))
            }
            result.append(Element(attributes: attributes, text: text))
            index = cursor
        }
        return result
    }

    /// The end of a comment, processing instruction, CDATA section or declaration starting at `index`.
    private static func skipMarkup(_ bytes: [UInt8], at index: Int) -> Int? {
        for (start, end) in [("<!--", "-->"), ("<?", "?>"), ("<![CDATA[", "]]>"), ("<!", ">")]
        where bytes[index...].starts(with: Array(start.utf8)) {
            let terminator = Array(end.utf8)
            var cursor = index + start.utf8.count
            while cursor < bytes.count, !bytes[cursor...].starts(with: terminator) { cursor += 1 }
            return min(cursor + terminator.count, bytes.count)
        }
        return nil
    }

    private static func isNameByte(_ byte: UInt8) -> Bool {
        OldStylePropertyList.isBare(byte) && byte != UInt8(ascii: "/") && byte != UInt8(ascii: "$") && byte != UInt8(ascii: "+")
    }

    package static func decodeEntities(_ text: String) -> String {
        guard text.contains("&") else { return text }
        var result = ""
        var rest = Substring(text)
        while let amp = rest.firstIndex(of: "&") {
            result += rest[..<amp]
            guard let semicolon = rest[amp...].firstIndex(of: ";"), rest.distance(from: amp, to: semicolon) <= 10 else {
                result += "&"
                rest = rest[rest.index(after: amp)...]
                continue
            }
            let entity = rest[rest.index(after: amp)..<semicolon]
            switch entity {
            case "amp": result += "&"
            case "lt": result += "<"
            case "gt": result += ">"
            case "quot": result += "\""
            case "apos": result += "'"
            default:
                let number = entity.hasPrefix("#x") ? UInt32(entity.dropFirst(2), radix: 16)
                    : entity.hasPrefix("#") ? UInt32(entity.dropFirst(), radix: 10) : nil
                if let number, let scalar = Unicode.Scalar(number) { result.unicodeScalars.append(scalar) } else { result += "&\(entity);" }
            }
            rest = rest[rest.index(after: semicolon)...]
        }
        return result + rest
    }
}
