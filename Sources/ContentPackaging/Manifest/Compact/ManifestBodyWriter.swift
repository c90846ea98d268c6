/// Appends the fields of a compact manifest's body: varints, strings, raw digests.
///
/// Either it keeps the whole body (``init(reserving:)``), or it hands the bytes on in pieces of about
/// ``handOnSize`` (``init(handingOnTo:)``) whenever the encoder calls ``handOnIfFull()`` between records, so a
/// manifest of a million files is compressed and written as it is made instead of held whole (about 50 MB).
struct ManifestBodyWriter {
    /// The size of the pieces handed on: a few compressor blocks.
    static let handOnSize = 256 << 10

    /// The bytes not handed on yet: the whole body so far when nothing takes them.
    private(set) var bytes: [UInt8] = []
    /// Bytes already handed on.
    private var handedOn = 0
    /// What takes each piece, if anything.
    private let taker: ((UnsafeRawBufferPointer) throws -> Void)?

    /// A writer that keeps the whole body, with room for `count` bytes so a large one grows its buffer once.
    init(reserving count: Int) {
        taker = nil
        bytes.reserveCapacity(count)
    }

    /// A writer that hands its bytes to `taker` in pieces (``handOnIfFull()``, ``handOnRest()``).
    init(handingOnTo taker: @escaping (UnsafeRawBufferPointer) throws -> Void) {
        self.taker = taker
        bytes.reserveCapacity(Self.handOnSize + 4096)
    }

    /// The body's length so far, handed on or not: where the next byte goes.
    var offset: Int { handedOn + bytes.count }

    /// Hands the bytes on when a piece is full (with a taker; otherwise keeps them).
    /// - Throws: what the taker throws.
    mutating func handOnIfFull() throws {
        if taker != nil, bytes.count >= Self.handOnSize { try handOnRest() }
    }

    /// Hands every byte not handed on yet to the taker (with a taker; otherwise keeps them).
    /// - Throws: what the taker throws.
    mutating func handOnRest() throws {
        guard let taker, !bytes.isEmpty else { return }
        try bytes.withUnsafeBytes { try taker($0) }
        handedOn += bytes.count
        bytes.removeAll(keepingCapacity: true)
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
