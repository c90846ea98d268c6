import CZstd
internal import Foundation

/// Writes a ``PackageManifest`` in the compact format (docs/MANIFEST-FORMAT.md): the envelope, then the
/// body — header, then each list as columns — as one zstd frame.
enum CompactManifestEncoder {
    /// The manifest's compact bytes.
    /// - Throws: ``ManifestFormatError`` when the manifest cannot be written in the format: paths out of
    ///   byte-wise order, a hash that is not a SHA-256, chunks that do not follow each other, a body past
    ///   ``PackageManifest/largestCompactBody``.
    static func encode(_ manifest: PackageManifest) throws(ManifestFormatError) -> Data {
        var data = Data()
        data.reserveCapacity(64 + manifest.files.count * 40 + (manifest.chunks?.count ?? 0) * 36)  // about what it compresses to
        do {
            try encode(manifest) { data.append(contentsOf: $0) }
        } catch let error as ManifestFormatError {
            throw error
        } catch {
            preconditionFailure("appending to Data does not throw: \(error)")
        }
        return data
    }

    /// Hands the manifest's compact bytes to `output` in pieces of at most a few hundred KiB, never holding the
    /// body or the compressed bytes whole: the body is made twice, once to learn its length (the envelope
    /// declares it before the frame) and once into the compressor, whose output goes straight on. The bytes
    /// are those of ``encode(_:)``, however `output` stores them.
    /// - Throws: ``ManifestFormatError`` as ``encode(_:)`` does, or what `output` throws.
    static func encode(_ manifest: PackageManifest, to output: (UnsafeRawBufferPointer) throws -> Void) throws {
        var counter = ManifestBodyWriter(handingOnTo: { _ in })
        try writeBody(of: manifest, into: &counter)
        try counter.handOnRest()
        let length = counter.offset
        guard length <= PackageManifest.largestCompactBody else {
            throw refusal("body", 0, "is \(length) bytes, more than the \(PackageManifest.largestCompactBody)-byte limit of a compact manifest's body (PackageManifest.largestCompactBody); split the content into several products")
        }
        let head = envelopeHead(bodyLength: length)
        try head.withUnsafeBytes { try output($0) }
        let compressor = try ManifestBodyCompressor(bodyLength: length, headLength: head.count)
        try withoutActuallyEscaping(output) { output in
            var body = ManifestBodyWriter(handingOnTo: { try compressor.compress($0, to: output) })
            try writeBody(of: manifest, into: &body)
            try body.handOnRest()
            guard body.offset == length else {
                preconditionFailure("the body is \(body.offset) bytes the second time, \(length) the first")
            }
            try compressor.end(to: output)
        }
    }

    /// The uncompressed body, whole.
    static func body(of manifest: PackageManifest) throws(ManifestFormatError) -> [UInt8] {
        var out = ManifestBodyWriter(
            reserving: 256 + manifest.files.count * 48 + (manifest.directories?.count ?? 0) * 12
                + (manifest.chunks?.count ?? 0) * 40)
        do {
            try writeBody(of: manifest, into: &out)
        } catch let error as ManifestFormatError {
            throw error
        } catch {
            preconditionFailure("a writer without a taker does not throw: \(error)")
        }
        return out.bytes
    }

    /// Writes the body — header, then each list as columns — into `out`, handing it on between records.
    /// - Throws: ``ManifestFormatError``, or what `out`'s taker throws.
    private static func writeBody(of manifest: PackageManifest, into out: inout ManifestBodyWriter) throws {
        typealias Flag = CompactManifestFormat.Flag
        let withOffsets = manifest.files.contains { $0.dataOffset != nil }
        var flags: UInt64 = 0
        if manifest.archiveSHA256 != nil { flags |= Flag.archiveSHA256 }
        if manifest.directories != nil { flags |= Flag.directories }
        if manifest.chunking != nil { flags |= Flag.chunking }
        if manifest.chunks != nil { flags |= Flag.chunks }
        if withOffsets { flags |= Flag.dataOffsets }
        if manifest.packs != nil { flags |= Flag.packs }
        if manifest.linkedFiles != nil { flags |= Flag.linkedFiles }
        if manifest.dictionary != nil { flags |= Flag.dictionary }
        out.varint(UInt64(max(0, manifest.schema)))
        out.varint(flags)
        out.string(manifest.productID)
        out.string(manifest.contentVersion.description)
        out.string(manifest.archiveName)
        try out.varint(nonNegative(manifest.archiveSize, "archiveSize", out))
        try out.varint(nonNegative(manifest.uncompressedSize, "uncompressedSize", out))
        try out.varint(nonNegative(Int64(manifest.entryCount), "entryCount", out))
        if let sha256 = manifest.archiveSHA256 { try out.raw(digest(sha256, "archiveSHA256", out)) }
        if let chunking = manifest.chunking {
            out.string(chunking.algorithm)
            try out.varint(nonNegative(chunking.minimum, "chunking minimum", out))
            try out.varint(nonNegative(chunking.average, "chunking average", out))
            try out.varint(nonNegative(chunking.maximum, "chunking maximum", out))
        }
        if let packs = manifest.packs { out.string(packsJSON(packs)) }
        if let dictionary = manifest.dictionary {
            try out.varint(nonNegative(dictionary.length, "dictionary length", out))
            try out.varint(nonNegative(dictionary.size, "dictionary size", out))
            out.varint(UInt64(dictionary.id))
            try out.raw(digest(dictionary.sha256, "dictionary SHA-256", out))
        }
        out.varint(UInt64(manifest.files.count))
        if let directories = manifest.directories { out.varint(UInt64(directories.count)) }
        if let chunks = manifest.chunks { out.varint(UInt64(chunks.count)) }
        try files(manifest.files, linked: manifest.linkedFiles, withOffsets: withOffsets, into: &out)
        if let directories = manifest.directories {
            try paths(directories.lazy.map { $0.utf8 }, name: "directory", into: &out)
        }
        if let chunks = manifest.chunks { try self.chunks(chunks, from: manifest.firstChunkOffset, into: &out) }
    }

    /// The files as columns: paths, sizes, linked files (when there are any), data offsets (each from where the
    /// previous file's data ended; none for a linked file, whose offset is its source's), SHA-256s.
    private static func files(
        _ files: [PackageManifest.File], linked: [PackageManifest.LinkedFile]?, withOffsets: Bool, into out: inout ManifestBodyWriter
    ) throws {
        try paths(files.lazy.map { $0.storedPath.utf8 }, name: "file", into: &out)
        for (index, file) in files.enumerated() {
            try out.varint(nonNegative(file.size, "file \(index)'s size", out))
            try out.handOnIfFull()
        }
        var linkedIndices = Set<Int>()
        if let linked {
            out.varint(UInt64(linked.count))
            var previous = -1
            for (position, link) in linked.enumerated() {
                guard link.file > previous, link.file < files.count, link.source >= 0, link.source < link.file else {
                    throw refusal("linked file \(position)", out.offset, "(file \(link.file), source \(link.source)) is out of order or not linked to an earlier file; pack it again")
                }
                out.varint(UInt64(link.file - previous - 1))
                out.varint(UInt64(link.file - link.source))
                previous = link.file
                linkedIndices.insert(link.file)
                try out.handOnIfFull()
            }
        }
        if withOffsets {
            var end: Int64 = 0
            for (index, file) in files.enumerated() where !linkedIndices.contains(index) {
                guard let start = file.dataOffset, start >= 0 else {
                    throw refusal("file \(index)'s data offset", out.offset, "is missing or negative while other files have one; pack it again")
                }
                out.signed(start &- end)
                end = start &+ file.size
                try out.handOnIfFull()
            }
        }
        for (index, file) in files.enumerated() {
            try out.digest(file.storedSHA256, "file \(index)'s SHA-256")
            try out.handOnIfFull()
        }
    }

    /// Paths front-coded, each strictly after the previous one byte-wise.
    private static func paths<Path: Collection<UInt8>>(
        _ paths: some Sequence<Path>, name: String, into out: inout ManifestBodyWriter
    ) throws {
        var previous: [UInt8] = []
        for (index, path) in paths.enumerated() {
            guard index == 0 || previous.lexicographicallyPrecedes(path) else {
                throw refusal("\(name) \(index)'s path", out.offset, "'\(String(decoding: Array(path), as: UTF8.self))' is out of byte-wise order or listed twice; pack it again")
            }
            out.path(path, after: previous)
            previous.removeAll(keepingCapacity: true)
            previous.append(contentsOf: path)
            try out.handOnIfFull()
        }
    }

    /// The chunks as columns: frame lengths, uncompressed lengths, SHA-256s; offsets are the running sums from
    /// `firstOffset` (after a stored dictionary).
    private static func chunks(_ chunks: [ArchiveChunk], from firstOffset: Int64, into out: inout ManifestBodyWriter) throws {
        var offset: Int64 = firstOffset
        var uncompressed: Int64 = 0
        for (index, chunk) in chunks.enumerated() {
            guard chunk.offset == offset, chunk.uncompressedOffset == uncompressed, chunk.length >= 0, chunk.uncompressedLength >= 0 else {
                throw refusal("chunk \(index)", out.offset, "does not start where chunk \(index - 1) ends (archive byte \(offset), tar-stream byte \(uncompressed)); pack it again")
            }
            offset += chunk.length
            uncompressed += chunk.uncompressedLength
        }
        for chunk in chunks {
            out.varint(chunk.length)
            try out.handOnIfFull()
        }
        for chunk in chunks {
            out.varint(chunk.uncompressedLength)
            try out.handOnIfFull()
        }
        for (index, chunk) in chunks.enumerated() {
            try out.digest(chunk.storedSHA256, "chunk \(index)'s SHA-256")
            try out.handOnIfFull()
        }
    }

    /// The declaration as canonical JSON (sorted keys), the form the compact format carries it in.
    static func packsJSON(_ packs: PackDeclaration) -> String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
        return String(decoding: (try? encoder.encode(packs)) ?? Data("{}".utf8), as: UTF8.self)
    }

    /// The envelope around `body`: magic, version, compression, body length, then the zstd frame.
    static func envelope(_ body: [UInt8]) throws(ManifestFormatError) -> Data {
        let head = envelopeHead(bodyLength: body.count)
        var data = Data(head)
        do {
            let compressor = try ManifestBodyCompressor(bodyLength: body.count, headLength: head.count)
            let output: (UnsafeRawBufferPointer) throws -> Void = { data.append(contentsOf: $0) }
            try body.withUnsafeBytes { try compressor.compress($0, to: output) }
            try compressor.end(to: output)
        } catch let error as ManifestFormatError {
            throw error
        } catch {
            preconditionFailure("appending to Data does not throw: \(error)")
        }
        return data
    }

    /// What comes before the zstd frame: magic, version, compression, body length.
    private static func envelopeHead(bodyLength: Int) -> [UInt8] {
        var head = ManifestBodyWriter(reserving: 24)
        head.raw(CompactManifestFormat.magic)
        head.byte(CompactManifestFormat.version)
        head.byte(CompactManifestFormat.zstdCompression)
        head.varint(UInt64(bodyLength))
        return head.bytes
    }

    /// `value`, refused when negative (the format holds sizes and counts unsigned).
    private static func nonNegative(_ value: Int64, _ field: String, _ out: ManifestBodyWriter) throws(ManifestFormatError) -> Int64 {
        guard value >= 0 else { throw refusal(field, out.offset, "is negative (\(value)); pack it again") }
        return value
    }


    /// The 32 bytes of a 64-digit hex SHA-256.
    private static func digest(_ hex: String, _ field: String, _ out: ManifestBodyWriter) throws(ManifestFormatError) -> [UInt8] {
        let digits = Array(hex.utf8)
        func nibble(_ c: UInt8) -> UInt8? {
            switch c {
            case 48...57: c - 48
            case 97...102: c - 87
            case 65...70: c - 55
            default: nil
            }
        }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(32)
        if digits.count == 64 {
            for pair in stride(from: 0, to: 64, by: 2) {
                guard let high = nibble(digits[pair]), let low = nibble(digits[pair + 1]) else { break }
                bytes.append(high << 4 | low)
            }
        }
        guard bytes.count == 32 else { throw refusal(field, out.offset, "'\(hex)' is not a SHA-256 (64 hex digits); pack it again") }
        return bytes
    }

    /// An encoding refusal of `field` at body offset `offset`.
    static func refusal(_ field: String, _ offset: Int, _ reason: String) -> ManifestFormatError {
        ManifestFormatError(field: field, offset: offset, inBody: true, reason: reason)
    }
}

extension ManifestBodyWriter {
    /// The 32 bytes of a SHA-256 the model holds, big-endian words as they were read.
    /// - Throws: ``ManifestFormatError`` when it is text that is not 64 hex digits.
    mutating func digest(_ stored: StoredSHA256, _ field: String) throws(ManifestFormatError) {
        guard case .digest(let a, let b, let c, let d) = stored.caseFolded else {
            throw CompactManifestEncoder.refusal(field, offset, "'\(stored.text)' is not a SHA-256 (64 hex digits); pack it again")
        }
        let words = (a.bigEndian, b.bigEndian, c.bigEndian, d.bigEndian)
        withUnsafeBytes(of: words) { raw($0) }
    }
}
