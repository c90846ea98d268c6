/// Appends the fields of a compact manifest's body: varints, strings, raw digests.
struct ManifestBodyWriter {
    /// The body so far.
    private(set) var bytes: [UInt8] = []

    /// Room for `count` bytes, so a large manifest grows its buffer once.
    init(reserving count: Int) {
        bytes.reserveCapacity(count)
    }

    /// An unsigned LEB128 varint.
    mutating func varint(_ value: UInt64) {
        var value = value
        while value >= 0x80 {
            bytes.append(UInt8(truncatingIfNeeded: value) | 0x80)
            value >>= 7
        }
        bytes.append(UInt8(value))
    }

    /// A non-negative number as a varint.
    mutating func varint(_ value: Int64) { varint(UInt64(bitPattern: value)) }

    /// A signed number, zigzag-coded so small magnitudes of either sign stay short.
    mutating func signed(_ value: Int64) {
        varint(UInt64(bitPattern: (value << 1) ^ (value >> 63)))
    }

    /// One byte.
    mutating func byte(_ value: UInt8) { bytes.append(value) }

    /// A length-prefixed UTF-8 string.
    mutating func string(_ value: String) {
        varint(UInt64(value.utf8.count))
        bytes.append(contentsOf: value.utf8)
    }

    /// Raw bytes.
    mutating func raw(_ value: some Sequence<UInt8>) { bytes.append(contentsOf: value) }

    /// A path front-coded against `previous`: the bytes shared with it, then the rest.
    mutating func path(_ path: some Collection<UInt8>, after previous: some Collection<UInt8>) {
        let shared = zip(path, previous).prefix { $0 == $1 }.count
        varint(UInt64(shared))
        varint(UInt64(path.count - shared))
        bytes.append(contentsOf: path.dropFirst(shared))
    }
}
