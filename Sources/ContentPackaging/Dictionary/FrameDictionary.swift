import CZstd
import Crypto
import SystemSupport

/// A zstd dictionary ready for an archive's frames: its bytes, the frame that stores it at the archive's start, and
/// libzstd's digested form for decoding (``ArchiveDictionary`` is the manifest's record of it).
///
/// Immutable once made: the digested dictionary (`ZSTD_DDict`) is only read by libzstd, so decoders on several
/// threads share one (libzstd documents a `ZSTD_DDict` as shareable between contexts), which is why the class is
/// `Sendable`. It is freed with the last decoder that holds it.
package final class FrameDictionary: @unchecked Sendable {
    /// The magic of the skippable frame that stores the dictionary (zstd skips frames of 0x184D2A50–0x184D2A5F).
    package static let skippableMagic: UInt32 = 0x184D_2A5E
    /// The skippable frame's header: magic and payload length, little-endian.
    package static let headerLength = 8

    /// The dictionary's bytes, as trained (`ZDICT_trainFromBuffer`).
    package let bytes: [UInt8]
    /// The frame stored at the archive's start: header, then the dictionary zstd-compressed.
    package let storedFrame: [UInt8]
    /// What the manifest says of it.
    package let record: ArchiveDictionary
    private let digested: OpaquePointer

    /// The dictionary `bytes` as `pack` stores it.
    /// - Throws: ``DictionaryError`` when the bytes are no zstd dictionary or libzstd cannot compress them.
    package convenience init(trained bytes: [UInt8]) throws(DictionaryError) {
        let id = Self.dictionaryID(bytes)
        guard id != 0, !bytes.isEmpty, Int64(bytes.count) <= ArchiveDictionary.largestSize else {
            throw DictionaryError("the trained dictionary of \(bytes.count) bytes has no dictionary ID or is too large")
        }
        var payload = [UInt8](repeating: 0, count: ZSTD_compressBound(bytes.count))
        let written = payload.withUnsafeMutableBytes { out in
            bytes.withUnsafeBytes { ZSTD_compress(out.baseAddress, out.count, $0.baseAddress, $0.count, 19) }
        }
        guard ZSTD_isError(written) == 0 else {
            throw DictionaryError("libzstd could not compress the dictionary: \(String(cString: ZSTD_getErrorName(written)))")
        }
        var frame: [UInt8] = []
        frame.reserveCapacity(Self.headerLength + written)
        Self.appendLittleEndian(Self.skippableMagic, to: &frame)
        Self.appendLittleEndian(UInt32(written), to: &frame)
        frame.append(contentsOf: payload[0..<written])
        try self.init(bytes: bytes, storedFrame: frame, record: ArchiveDictionary(
            length: Int64(frame.count), size: Int64(bytes.count), id: id, sha256: SHA256.hash(data: frame).lowercaseHex))
    }

    /// The dictionary in `stored`, the archive's first bytes as fetched, once they are exactly what `record` (from the
    /// signed manifest) names: its length and SHA-256 first, then the frame's header, the decompressed size and the
    /// dictionary's ID. Nothing of `stored` is decoded before its hash matched.
    /// - Throws: ``DictionaryError`` naming what differs.
    package convenience init(stored: [UInt8], record: ArchiveDictionary) throws(DictionaryError) {
        guard Int64(stored.count) == record.length else {
            throw DictionaryError("the archive's first \(stored.count) bytes are not the \(record.length)-byte dictionary frame the manifest names")
        }
        let actual = SHA256.hash(data: stored).lowercaseHex
        guard actual == record.sha256 else {
            throw DictionaryError("the archive's dictionary frame (bytes 0–\(record.length - 1)) has SHA-256 \(actual), the manifest says \(record.sha256)")
        }
        let bytes = try Self.decode(frame: stored, expectedSize: record.size, expectedID: record.id)
        try self.init(bytes: bytes, storedFrame: stored, record: record)
    }

    /// The dictionary an archive stores at its start, read from the archive alone (`inspect`), for an archive whose
    /// first bytes (`head`, at least ``headerLength`` of them) are the skippable frame; `nil` when it starts otherwise.
    /// `readFrame` reads the archive's first bytes, as many as it is asked for.
    /// - Throws: ``DictionaryError`` for a stored frame that is cut short or holds no dictionary.
    package static func stored(atStartOf head: [UInt8], readFrame: (Int) -> [UInt8]) throws(DictionaryError) -> FrameDictionary? {
        guard head.count >= headerLength, littleEndian(head, 0) == skippableMagic else { return nil }
        let payload = Int(littleEndian(head, 4))
        guard Int64(headerLength + payload) <= ArchiveDictionary.largestLength else {
            throw DictionaryError("the archive's dictionary frame declares \(payload) bytes, more than the \(ArchiveDictionary.largestLength) a reader takes")
        }
        let frame = readFrame(headerLength + payload)
        guard frame.count == headerLength + payload else { throw DictionaryError("the archive ends inside its dictionary frame") }
        let bytes = try decode(frame: frame, expectedSize: nil, expectedID: nil)
        let record = ArchiveDictionary(
            length: Int64(frame.count), size: Int64(bytes.count), id: dictionaryID(bytes), sha256: SHA256.hash(data: frame).lowercaseHex)
        return try FrameDictionary(bytes: bytes, storedFrame: frame, record: record)
    }

    /// The dictionary in a stored frame, of `expectedSize` bytes and ID `expectedID` when those are known.
    private static func decode(frame: [UInt8], expectedSize: Int64?, expectedID: UInt32?) throws(DictionaryError) -> [UInt8] {
        guard frame.count > headerLength, littleEndian(frame, 0) == skippableMagic,
              Int(littleEndian(frame, 4)) == frame.count - headerLength
        else { throw DictionaryError("the archive's dictionary frame has no skippable-frame header of its length") }
        let limit = UInt64(expectedSize ?? ArchiveDictionary.largestSize)
        let declared = frame.withUnsafeBytes { ZSTD_getFrameContentSize($0.baseAddress! + headerLength, $0.count - headerLength) }
        guard declared != ZSTD_CONTENTSIZE_ERROR, declared != ZSTD_CONTENTSIZE_UNKNOWN, declared > 0, declared <= limit,
              expectedSize.map({ UInt64($0) == declared }) ?? true
        else { throw DictionaryError("the archive's dictionary frame does not declare the dictionary's \(expectedSize.map(String.init) ?? "size of at most \(limit)") bytes") }
        var bytes = [UInt8](repeating: 0, count: Int(declared))
        let produced = bytes.withUnsafeMutableBytes { out in
            frame.withUnsafeBytes { ZSTD_decompress(out.baseAddress, out.count, $0.baseAddress! + headerLength, $0.count - headerLength) }
        }
        guard ZSTD_isError(produced) == 0, produced == bytes.count else {
            throw DictionaryError("the archive's dictionary frame does not decode to its \(declared) bytes")
        }
        let id = dictionaryID(bytes)
        guard id != 0, expectedID.map({ $0 == id }) ?? true else {
            throw DictionaryError("the archive's dictionary has ID \(id), the manifest says \(expectedID ?? 0)")
        }
        return bytes
    }

    /// The zstd dictionary ID `bytes` declare (0: none, not a dictionary).
    private static func dictionaryID(_ bytes: [UInt8]) -> UInt32 {
        bytes.withUnsafeBytes { ZDICT_getDictID($0.baseAddress, $0.count) }
    }

    private init(bytes: [UInt8], storedFrame: [UInt8], record: ArchiveDictionary) throws(DictionaryError) {
        guard let digested = bytes.withUnsafeBytes({ ZSTD_createDDict($0.baseAddress, $0.count) }) else {
            throw DictionaryError("libzstd could not load the dictionary (out of memory?)")
        }
        self.bytes = bytes
        self.storedFrame = storedFrame
        self.record = record
        self.digested = digested
    }

    deinit { ZSTD_freeDDict(digested) }

    /// Makes `context` decode frames with this dictionary until it is reset with its parameters; the dictionary must
    /// outlive the context's use of it (a decoder keeps a reference).
    package func attach(to context: OpaquePointer) {
        ZSTD_DCtx_refDDict(context, digested)
    }

    private static func littleEndian(_ bytes: [UInt8], _ offset: Int) -> UInt32 {
        (0..<4).reduce(UInt32(0)) { $0 | UInt32(bytes[offset + $1]) << (8 * $1) }
    }

    private static func appendLittleEndian(_ value: UInt32, to bytes: inout [UInt8]) {
        for shift in stride(from: 0, to: 32, by: 8) { bytes.append(UInt8(truncatingIfNeeded: value >> UInt32(shift))) }
    }
}

/// A dictionary that could not be made, stored, fetched or trusted, in words that say which and why.
package struct DictionaryError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What went wrong.
    package var message: String

    /// An error saying `message`.
    package init(_ message: String) { self.message = message }

    /// The message.
    package var description: String { message }
}
