/// Reads the text of an old-style property list byte by byte (see ``OldStylePropertyList`` for the grammar).
struct OldStylePropertyListParser {
    private let bytes: [UInt8]
    private var index = 0
    private var line = 1
    private var depth = 0

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// One value, then nothing but white space and comments.
    mutating func parseDocument() throws(OldStylePropertyListError) -> OldStylePropertyList {
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { index = 3 }  // a UTF-8 byte-order mark
        let value = try parseValue()
        try skipSpace()
        if index < bytes.count { throw failure("unexpected '\(character(at: index))' after the top-level value") }
        return value
    }

    private mutating func parseValue() throws(OldStylePropertyListError) -> OldStylePropertyList {
        try skipSpace()
        guard index < bytes.count else { throw failure("unexpected end of file; a value was expected") }
        switch bytes[index] {
        case UInt8(ascii: "{"): return try nested { parser throws(OldStylePropertyListError) in try parser.parseDictionary() }
        case UInt8(ascii: "("): return try nested { parser throws(OldStylePropertyListError) in try parser.parseArray() }
        case UInt8(ascii: "<"): return .data(try parseData())
        default: return .string(try parseString())
        }
    }

    /// Runs `body` one level deeper, refusing to go past ``OldStylePropertyList/maxDepth``.
    private mutating func nested(
        _ body: (inout OldStylePropertyListParser) throws(OldStylePropertyListError) -> OldStylePropertyList
    ) throws(OldStylePropertyListError) -> OldStylePropertyList {
        depth += 1
        defer { depth -= 1 }
        if depth > OldStylePropertyList.maxDepth {
            throw failure("nested more than \(OldStylePropertyList.maxDepth) levels deep")
        }
        return try body(&self)
    }

    private mutating func parseDictionary() throws(OldStylePropertyListError) -> OldStylePropertyList {
        index += 1  // {
        var entries: [String: OldStylePropertyList] = [:]
        while true {
            try skipSpace()
            guard index < bytes.count else { throw failure("unexpected end of file in a dictionary; '}' was expected") }
            if bytes[index] == UInt8(ascii: "}") {
                index += 1
                return .dictionary(entries)
            }
            let key = try parseString()
            try expect("=", after: "the key '\(key)'")
            entries[key] = try parseValue()
            try expect(";", after: "the value of '\(key)'")
        }
    }

    private mutating func parseArray() throws(OldStylePropertyListError) -> OldStylePropertyList {
        index += 1  // (
        var values: [OldStylePropertyList] = []
        while true {
            try skipSpace()
            guard index < bytes.count else { throw failure("unexpected end of file in an array; ')' was expected") }
            if bytes[index] == UInt8(ascii: ")") {
                index += 1
                return .array(values)
            }
            values.append(try parseValue())
            try skipSpace()
            guard index < bytes.count else { throw failure("unexpected end of file in an array; ')' was expected") }
            if bytes[index] == UInt8(ascii: ",") {
                index += 1
            } else if bytes[index] != UInt8(ascii: ")") {
                throw failure("unexpected '\(character(at: index))' in an array; ',' or ')' was expected")
            }
        }
    }

    private mutating func parseData() throws(OldStylePropertyListError) -> [UInt8] {
        index += 1  // <
        var result: [UInt8] = []
        var high: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            if byte == UInt8(ascii: ">") {
                guard high == nil else { throw failure("data has an odd number of hex digits") }
                return result
            }
            if byte == UInt8(ascii: "\n") { line += 1 }
            if Self.isSpace(byte) { continue }
            guard let nibble = Self.hexValue(byte) else {
                throw failure("'\(Character(Unicode.Scalar(byte)))' in data; only hex digits and spaces may appear between < and >")
            }
            if let first = high {
                result.append(first << 4 | nibble)
                high = nil
            } else {
                high = nibble
            }
        }
        throw failure("unexpected end of file in data; '>' was expected")
    }

    private mutating func parseString() throws(OldStylePropertyListError) -> String {
        guard index < bytes.count else { throw failure("unexpected end of file; a string was expected") }
        if bytes[index] == UInt8(ascii: "\"") { return try parseQuoted() }
        let start = index
        while index < bytes.count, OldStylePropertyList.isBare(bytes[index]) { index += 1 }
        guard index > start else { throw failure("unexpected '\(character(at: index))'; a string was expected") }
        return String(decoding: bytes[start..<index], as: UTF8.self)
    }

    private mutating func parseQuoted() throws(OldStylePropertyListError) -> String {
        let startLine = line
        index += 1  // "
        var utf8: [UInt8] = []
        while index < bytes.count {
            let byte = bytes[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw failure("a quoted string is not valid UTF-8")
                }
                return text
            case UInt8(ascii: "\\"):
                try parseEscape(into: &utf8)
            default:
                if byte == UInt8(ascii: "\n") { line += 1 }
                utf8.append(byte)
            }
        }
        throw OldStylePropertyListError(line: startLine, message: "a quoted string never ends; '\"' was expected")
    }

    private mutating func parseEscape(into utf8: inout [UInt8]) throws(OldStylePropertyListError) {
        guard index < bytes.count else { throw failure("unexpected end of file after '\\'") }
        let byte = bytes[index]
        index += 1
        let simple: [UInt8: UInt8] = [
            UInt8(ascii: "n"): 0x0A, UInt8(ascii: "t"): 0x09, UInt8(ascii: "r"): 0x0D, UInt8(ascii: "a"): 0x07,
            UInt8(ascii: "b"): 0x08, UInt8(ascii: "f"): 0x0C, UInt8(ascii: "v"): 0x0B,
        ]
        if let value = simple[byte] {
            utf8.append(value)
        } else if byte == UInt8(ascii: "U") {
            var value: UInt32 = 0
            for _ in 0..<4 {
                guard index < bytes.count, let nibble = Self.hexValue(bytes[index]) else {
                    throw failure("'\\U' must be followed by four hex digits")
                }
                value = value << 4 | UInt32(nibble)
                index += 1
            }
            guard let scalar = Unicode.Scalar(value) else { throw failure("'\\U\(String(value, radix: 16))' is not a character") }
            utf8.append(contentsOf: Array(String(Character(scalar)).utf8))
        } else if (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(byte) {
            var value = UInt32(byte - UInt8(ascii: "0"))
            for _ in 0..<2 {
                guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "7")).contains(bytes[index]) else { break }
                value = value << 3 | UInt32(bytes[index] - UInt8(ascii: "0"))
                index += 1
            }
            utf8.append(contentsOf: Array(String(Character(Unicode.Scalar(UInt8(truncatingIfNeeded: value)))).utf8))
        } else {
            if byte == UInt8(ascii: "\n") { line += 1 }
            utf8.append(byte)  // \" \\ \' and any other character stand for themselves
        }
    }

    private mutating func expect(_ symbol: Character, after what: String) throws(OldStylePropertyListError) {
        try skipSpace()
        guard index < bytes.count else { throw failure("unexpected end of file; '\(symbol)' was expected after \(what)") }
        guard bytes[index] == symbol.asciiValue! else {
            throw failure("unexpected '\(character(at: index))'; '\(symbol)' was expected after \(what)")
        }
        index += 1
    }

    /// Skips white space, `// …` and `/* … */` comments.
    private mutating func skipSpace() throws(OldStylePropertyListError) {
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "\n") {
                line += 1
                index += 1
            } else if Self.isSpace(byte) {
                index += 1
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "/") {
                while index < bytes.count, bytes[index] != UInt8(ascii: "\n") { index += 1 }
            } else if byte == UInt8(ascii: "/"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "*") {
                let startLine = line
                index += 2
                while index < bytes.count, !(bytes[index] == UInt8(ascii: "*") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "/")) {
                    if bytes[index] == UInt8(ascii: "\n") { line += 1 }
                    index += 1
                }
                guard index < bytes.count else {
                    throw OldStylePropertyListError(line: startLine, message: "a '/*' comment never ends")
                }
                index += 2
            } else {
                return
            }
        }
    }

    private static func isSpace(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D || byte == 0x0B || byte == 0x0C
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }

    /// The character at `position` for a message (a byte that is not ASCII shown as hex).
    private func character(at position: Int) -> String {
        let byte = bytes[position]
        return byte >= 0x20 && byte < 0x7F ? String(Character(Unicode.Scalar(byte))) : "0x" + String(byte, radix: 16)
    }

    private func failure(_ message: String) -> OldStylePropertyListError {
        OldStylePropertyListError(line: line, message: message)
    }
}
