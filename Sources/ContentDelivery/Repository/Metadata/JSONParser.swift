/// A strict JSON reader for metadata: RFC 8259 syntax, integers only (a fraction or exponent is refused, as
/// canonical JSON has none), an integer beyond 64 bits refused, a key repeated in one object refused (two readers
/// must never see two documents), nesting at most ``maximumDepth`` deep.
package struct JSONParser {
    /// The deepest nesting accepted.
    package static let maximumDepth = 64

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

    /// Parses `bytes` as one JSON document (whitespace around it allowed).
    ///
    /// - Throws: ``JSONSyntaxError`` naming the byte offset and what was wrong there.
    package static func parse(_ bytes: some Collection<UInt8>) throws(JSONSyntaxError) -> JSONValue {
        var parser = JSONParser(bytes: Array(bytes))
        parser.skipWhitespace()
        let value = try parser.value()
        parser.skipWhitespace()
        guard parser.index == parser.bytes.count else { throw parser.error("unexpected data after the document") }
        return value
    }

    private init(bytes: [UInt8]) { self.bytes = bytes }

    private func error(_ message: String) -> JSONSyntaxError { JSONSyntaxError(offset: index, message: message) }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 { index += 1 }
    }

    private mutating func expect(_ literal: String) throws(JSONSyntaxError) {
        for byte in literal.utf8 {
            guard current == byte else { throw error("expected \(literal)") }
            index += 1
        }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of data (truncated?)") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try expect("true"); return .bool(true)
        case UInt8(ascii: "f"): try expect("false"); return .bool(false)
        case UInt8(ascii: "n"): try expect("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .integer(try integer())
        default: throw error("unexpected character \(Self.describe(byte))")
        }
    }

    private mutating func enter() throws(JSONSyntaxError) {
        depth += 1
        guard depth <= Self.maximumDepth else { throw error("nested deeper than \(Self.maximumDepth) levels") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var members: [String: JSONValue] = [:]
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            return .object(members)
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            try expect(":")
            skipWhitespace()
            let member = try value()
            guard members.updateValue(member, forKey: key) == nil else {
                throw JSONSyntaxError(offset: keyOffset, message: "key \"\(key)\" appears twice in one object")
            }
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("}")
            return .object(members)
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try enter()
        defer { depth -= 1 }
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            if current == UInt8(ascii: ",") {
                index += 1
                continue
            }
            try expect("]")
            return .array(elements)
        }
    }

    private mutating func integer() throws(JSONSyntaxError) -> Int64 {
        let start = index
        var negative = false
        if current == UInt8(ascii: "-") {
            negative = true
            index += 1
        }
        guard let first = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(first) else {
            throw error("expected a digit")
        }
        if first == UInt8(ascii: "0"), let next = current(at: index + 1), (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(next) {
            throw error("a number must not start with 0")
        }
        var magnitude: UInt64 = 0
        while let byte = current, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) {
            let (times, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times.addingReportingOverflow(UInt64(byte - UInt8(ascii: "0")))
            guard !overflow1, !overflow2 else {
                index = start
                throw error("integer too large (more than 64 bits)")
            }
            magnitude = sum
            index += 1
        }
        if let byte = current, byte == UInt8(ascii: ".") || byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") {
            index = start
            throw error("only integers are allowed (canonical JSON has no fractions or exponents)")
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else {
                index = start
                throw error("integer too large (more than 64 bits)")
            }
            return magnitude == UInt64(Int64.max) + 1 ? Int64.min : -Int64(magnitude)
        }
        guard magnitude <= UInt64(Int64.max) else {
            index = start
            throw error("integer too large (more than 64 bits)")
        }
        return Int64(magnitude)
    }

    private func current(at position: Int) -> UInt8? { position < bytes.count ? bytes[position] : nil }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        var scalars: [UInt8] = []
        while true {
            guard let byte = current else { throw error("unterminated string (truncated?)") }
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: scalars, as: UTF8.self) else {
                    throw error("string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                guard let escape = current else { throw error("unterminated escape (truncated?)") }
                index += 1
                switch escape {
                case UInt8(ascii: "\""): scalars.append(0x22)
                case UInt8(ascii: "\\"): scalars.append(0x5C)
                case UInt8(ascii: "/"): scalars.append(0x2F)
                case UInt8(ascii: "b"): scalars.append(0x08)
                case UInt8(ascii: "f"): scalars.append(0x0C)
                case UInt8(ascii: "n"): scalars.append(0x0A)
                case UInt8(ascii: "r"): scalars.append(0x0D)
                case UInt8(ascii: "t"): scalars.append(0x09)
                case UInt8(ascii: "u"):
                    var code = try hex4()
                    if (0xD800...0xDBFF).contains(code) {
                        guard current == UInt8(ascii: "\\"), current(at: index + 1) == UInt8(ascii: "u") else {
                            throw error("unpaired surrogate in \\u escape")
                        }
                        index += 2
                        let low = try hex4()
                        guard (0xDC00...0xDFFF).contains(low) else { throw error("unpaired surrogate in \\u escape") }
                        code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00)
                    } else if (0xDC00...0xDFFF).contains(code) {
                        throw error("unpaired surrogate in \\u escape")
                    }
                    scalars += Array(String(Unicode.Scalar(code)!).utf8)
                default:
                    throw error("unknown escape \\\(Self.describe(escape))")
                }
            case 0x00..<0x20:
                throw error("control character \(Self.describe(byte)) inside a string must be escaped")
            default:
                scalars.append(byte)
            }
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        var code: UInt32 = 0
        for _ in 0..<4 {
            guard let byte = current, let digit = Self.hexDigit(byte) else { throw error("bad \\u escape") }
            code = code << 4 | UInt32(digit)
            index += 1
        }
        return code
    }

    private static func hexDigit(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    private static func describe(_ byte: UInt8) -> String {
        (0x21..<0x7F).contains(byte) ? "'\(Character(Unicode.Scalar(byte)))'" : "0x" + String(byte, radix: 16)
    }
}

/// Why bytes are not the JSON a metadata file must be: where, and what.
package struct JSONSyntaxError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The byte offset of the problem.
    package var offset: Int
    /// What is wrong there.
    package var message: String

    /// "at byte 12: …".
    package var description: String { "at byte \(offset): \(message)" }
}
