/// One 512-byte ustar header block, decoded without libarchive: what a client installing a
/// chunk-indexed archive reads from the verified tar stream to check each entry against the manifest.
///
/// Only what the pax (restricted) format of `iapcontent pack` uses is understood: ustar headers
/// (POSIX `ustar\0` magic, or GNU's `ustar  `), octal or base-256 numbers, the `prefix` field, and
/// `x` extended headers whose records (``PaxRecords``) override the path, link target and size.
/// Anything else is reported as what it is, and the caller refuses it with the installer's usual words.
package struct TarHeaderBlock: Sendable, Equatable {
    /// Length of a tar block.
    package static let length = 512

    /// `prefix/name` as stored (no pax override applied).
    package var name: [UInt8]
    /// The type flag byte (`0` or NUL regular, `5` directory, `x` pax extended header, …).
    package var typeFlag: UInt8
    /// Declared data size.
    package var size: Int64
    /// Permission bits.
    package var mode: UInt32
    /// The link target field.
    package var linkName: [UInt8]

    /// True when all 512 bytes are zero (an end-of-archive block).
    package static func isZero(_ block: UnsafeRawBufferPointer) -> Bool {
        block.allSatisfy { $0 == 0 }
    }

    /// Decodes `block` (exactly 512 bytes).
    /// - Throws: ``TarHeaderError`` for a bad checksum, a magic other than ustar's, or a number
    ///   field that is neither octal nor positive base-256.
    package init(_ block: UnsafeRawBufferPointer) throws(TarHeaderError) {
        precondition(block.count == Self.length, "a tar header block is 512 bytes")
        let stored = try Self.number(block, 148, 8, field: "checksum")
        var sum: Int64 = 0
        for index in 0..<Self.length { sum += Int64((148..<156).contains(index) ? 0x20 : block[index]) }
        guard stored == sum else { throw TarHeaderError(reason: "header checksum is \(stored) but the block sums to \(sum)") }
        let magic = Array(block[257..<263])
        guard magic == Array("ustar\0".utf8) || magic == Array("ustar ".utf8) else {
            throw TarHeaderError(reason: "not a ustar header (magic \(magic.map { String($0, radix: 16) }.joined(separator: " ")))")
        }
        let name = Self.string(block, 0, 100)
        let prefix = Self.string(block, 345, 155)
        self.name = prefix.isEmpty ? name : prefix + [UInt8(ascii: "/")] + name
        typeFlag = block[156]
        size = try Self.number(block, 124, 12, field: "size")
        mode = UInt32(truncatingIfNeeded: try Self.number(block, 100, 8, field: "mode"))
        linkName = Self.string(block, 157, 100)
    }

    /// A NUL-terminated field.
    private static func string(_ block: UnsafeRawBufferPointer, _ start: Int, _ length: Int) -> [UInt8] {
        let field = block[start..<(start + length)]
        return Array(field.prefix { $0 != 0 })
    }

    /// An octal field (spaces and NULs around the digits), or base-256 when the first byte has bit 7 set.
    private static func number(
        _ block: UnsafeRawBufferPointer, _ start: Int, _ length: Int, field: String
    ) throws(TarHeaderError) -> Int64 {
        let bytes = block[start..<(start + length)]
        if let first = bytes.first, first & 0x80 != 0 {
            guard first == 0x80, bytes.dropFirst().prefix(max(0, length - 9)).allSatisfy({ $0 == 0 }) else {
                throw TarHeaderError(reason: "the \(field) field is a negative or oversized base-256 number")
            }
            return bytes.suffix(8).reduce(Int64(0)) { ($0 << 8) | Int64($1) } & Int64.max
        }
        var value: Int64 = 0
        var digits = 0
        var ended = false
        for byte in bytes {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "7") where !ended:
                guard value <= (Int64.max >> 3) else { throw TarHeaderError(reason: "the \(field) field overflows") }
                value = value << 3 | Int64(byte - UInt8(ascii: "0"))
                digits += 1
            case UInt8(ascii: " ") where digits == 0:
                continue
            case 0, UInt8(ascii: " "):
                ended = true
            default:
                throw TarHeaderError(reason: "the \(field) field holds byte \(byte), not an octal digit")
            }
        }
        return value
    }
}

/// A tar header block that could not be decoded, and why.
package struct TarHeaderError: Error, Sendable, Equatable {
    /// What was wrong.
    package var reason: String
}

/// The records of a pax extended header (`x`): `"<length> <key>=<value>\n"`, each length counting the whole record.
package enum PaxRecords {
    /// The records of `data` in order, values as raw bytes.
    /// - Throws: ``TarHeaderError`` for a record whose length does not add up.
    package static func parse(_ data: [UInt8]) throws(TarHeaderError) -> [(key: String, value: [UInt8])] {
        var records: [(key: String, value: [UInt8])] = []
        var start = 0
        while start < data.count {
            if data[start] == 0 { break }  // NUL padding after the last record
            guard let space = data[start...].firstIndex(of: UInt8(ascii: " ")), space > start,
                  let length = Int(String(decoding: data[start..<space], as: UTF8.self)), length > space - start,
                  start + length <= data.count, data[start + length - 1] == UInt8(ascii: "\n"),
                  let equals = data[(space + 1)..<(start + length)].firstIndex(of: UInt8(ascii: "="))
            else {
                throw TarHeaderError(reason: "pax extended header record at byte \(start) is malformed")
            }
            let key = String(decoding: data[(space + 1)..<equals], as: UTF8.self)
            records.append((key, Array(data[(equals + 1)..<(start + length - 1)])))
            start += length
        }
        return records
    }
}
