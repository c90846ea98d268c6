/// A value of an old-style (OpenStep) property list, the text format of Xcode's `project.pbxproj`.
///
/// The grammar: a dictionary `{ key = value; … }`, an array `( value, value, )` (a trailing comma is
/// allowed), a string quoted (`"…"` with `\\`, `\"`, `\n`, `\t`, `\r`, `\a`, `\b`, `\f`, `\v`, `\Uhhhh` and
/// octal `\ooo` escapes) or bare (letters, digits and `_$+/:.-`), and data `<hex bytes>`. Comments are
/// `// …` to the end of the line and `/* … */`; the `// !$*UTF8*$!` first line of a pbxproj is one.
/// Dictionary keys are strings; a repeated key keeps its last value, as Foundation's reader does.
package indirect enum OldStylePropertyList: Sendable, Equatable {
    /// A quoted or bare string.
    case string(String)
    /// `<hex>` data.
    case data([UInt8])
    /// `( … )`.
    case array([OldStylePropertyList])
    /// `{ … }`.
    case dictionary([String: OldStylePropertyList])

    /// The deepest nesting accepted: a hostile file cannot exhaust the stack (real projects nest about 5 deep).
    package static let maxDepth = 256

    /// The string, or `nil` for any other kind of value.
    package var string: String? {
        if case .string(let value) = self { return value }
        return nil
    }

    /// The array, or `nil` for any other kind of value.
    package var array: [OldStylePropertyList]? {
        if case .array(let value) = self { return value }
        return nil
    }

    /// The dictionary, or `nil` for any other kind of value.
    package var dictionary: [String: OldStylePropertyList]? {
        if case .dictionary(let value) = self { return value }
        return nil
    }

    /// Parses one value (with comments and white space around it) from UTF-8 text.
    ///
    /// - Throws: ``OldStylePropertyListError`` with the line and what was expected there.
    package static func parse(_ bytes: [UInt8]) throws(OldStylePropertyListError) -> OldStylePropertyList {
        var parser = OldStylePropertyListParser(bytes: bytes)
        return try parser.parseDocument()
    }

    /// The value as old-style text that ``parse(_:)`` reads back as an equal value.
    ///
    /// Strings are quoted unless every character is allowed bare; dictionary keys are sorted.
    package var text: String {
        switch self {
        case .string(let value):
            return Self.quoted(value)
        case .data(let bytes):
            let digits = Array("0123456789abcdef")
            return "<" + String(bytes.flatMap { [digits[Int($0 >> 4)], digits[Int($0 & 15)]] }) + ">"
        case .array(let values):
            return "(" + values.map { $0.text + ", " }.joined() + ")"
        case .dictionary(let entries):
            return "{" + entries.keys.sorted().map { "\(Self.quoted($0)) = \(entries[$0]!.text); " }.joined() + "}"
        }
    }

    /// Whether `byte` may appear in a bare (unquoted) string.
    static func isBare(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        case UInt8(ascii: "_"), UInt8(ascii: "$"), UInt8(ascii: "+"), UInt8(ascii: "/"), UInt8(ascii: ":"),
             UInt8(ascii: "."), UInt8(ascii: "-"):
            true
        default:
            false
        }
    }

    private static func quoted(_ value: String) -> String {
        if !value.isEmpty, value.utf8.allSatisfy(isBare), !value.hasPrefix("//"), !value.hasPrefix("/*") { return value }
        var result = "\""
        for scalar in value.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\t": result += "\\t"
            case "\r": result += "\\r"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\U" + String(repeating: "0", count: 4 - String(scalar.value, radix: 16).count)
                        + String(scalar.value, radix: 16)
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}

/// Why an old-style property list could not be read: the line and what was wrong there.
package struct OldStylePropertyListError: Error, Sendable, Equatable, CustomStringConvertible {
    /// 1-based line of the problem.
    package var line: Int
    /// What was found and what was expected.
    package var message: String

    /// `line N: message`
    package var description: String { "line \(line): \(message)" }
}
