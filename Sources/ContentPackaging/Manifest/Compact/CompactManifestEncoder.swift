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
        let body = try body(of: manifest)
        guard body.count <= PackageManifest.largestCompactBody else {
            throw refusal("body", 0, "is \(body.count) bytes, more than the \(PackageManifest.largestCompactBody)-byte limit of a compact manifest's body (PackageManifest.largestCompactBody); split the content into several products")
        }
        return try envelope(body)
    }

    /// The uncompressed body.
    static func body(of manifest: PackageManifest) throws(ManifestFormatError) -> [UInt8] {
        typealias Flag = CompactManifestFormat.Flag
        let withOffsets = manifest.files.contains { $0.dataOffset != nil }
        var flags: UInt64 = 0
        if manifest.archiveSHA256 != nil { flags |= Flag.archiveSHA256 }
        if manifest.directories != nil { flags |= Flag.directories }
        if manifest.chunking != nil { flags |= Flag.chunking }
        if manifest.chunks != nil { flags |= Flag.chunks }
        if withOffsets { flags |= Flag.dataOffsets }
        var out = ManifestBodyWriter(
            reserving: 256 + manifest.files.count * 48 + (manifest.directories?.count ?? 0) * 12
                + (manifest.chunks?.count ?? 0) * 40)
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
        out.varint(UInt64(manifest.files.count))
        if let directories = manifest.directories { out.varint(UInt64(directories.count)) }
        if let chunks = manifest.chunks { out.varint(UInt64(chunks.count)) }
        try files(manifest.files, withOffsets: withOffsets, into: &out)
        if let directories = manifest.directories {
            try paths(directories.lazy.map { $0.utf8 }, name: "directory", into: &out)
        }
        if let chunks = manifest.chunks { try self.chunks(chunks, into: &out) }
        return out.bytes
    }

    /// The files as columns: paths, sizes, data offsets (each from where the previous file's data ended), SHA-256s.
    private static func files(
        _ files: [PackageManifest.File], withOffsets: Bool, into out: inout ManifestBodyWriter
    ) throws(ManifestFormatError) {
        try paths(files.lazy.map { $0.storedPath.utf8 }, name: "file", into: &out)
        for (index, file) in files.enumerated() { try out.varint(nonNegative(file.size, "file \(index)'s size", out)) }
        if withOffsets {
            var end: Int64 = 0
            for (index, file) in files.enumerated() {
                guard let start = file.dataOffset, start >= 0 else {
                    throw refusal("file \(index)'s data offset", out.bytes.count, "is missing or negative while other files have one; pack it again")
                }
                out.signed(start &- end)
                end = start &+ file.size
            }
        }
        for (index, file) in files.enumerated() { try out.raw(digest(file.storedSHA256, "file \(index)'s SHA-256", out)) }
    }

    /// Paths front-coded, each strictly after the previous one byte-wise.
    private static func paths<Path: Collection<UInt8>>(
        _ paths: some Sequence<Path>, name: String, into out: inout ManifestBodyWriter
    ) throws(ManifestFormatError) {
        var previous: [UInt8] = []
        for (index, path) in paths.enumerated() {
            let bytes = Array(path)
            guard index == 0 || previous.lexicographicallyPrecedes(bytes) else {
                throw refusal("\(name) \(index)'s path", out.bytes.count, "'\(String(decoding: bytes, as: UTF8.self))' is out of byte-wise order or listed twice; pack it again")
            }
            out.path(bytes, after: previous)
            previous = bytes
        }
    }

    /// The chunks as columns: frame lengths, uncompressed lengths, SHA-256s; offsets are the running sums.
    private static func chunks(_ chunks: [ArchiveChunk], into out: inout ManifestBodyWriter) throws(ManifestFormatError) {
        var offset: Int64 = 0
        var uncompressed: Int64 = 0
        for (index, chunk) in chunks.enumerated() {
            guard chunk.offset == offset, chunk.uncompressedOffset == uncompressed, chunk.length >= 0, chunk.uncompressedLength >= 0 else {
                throw refusal("chunk \(index)", out.bytes.count, "does not start where chunk \(index - 1) ends (archive byte \(offset), tar-stream byte \(uncompressed)); pack it again")
            }
            offset += chunk.length
            uncompressed += chunk.uncompressedLength
        }
        for chunk in chunks { out.varint(chunk.length) }
        for chunk in chunks { out.varint(chunk.uncompressedLength) }
        for (index, chunk) in chunks.enumerated() { try out.raw(digest(chunk.storedSHA256, "chunk \(index)'s SHA-256", out)) }
    }

    /// The envelope around `body`: magic, version, compression, body length, then the zstd frame.
    static func envelope(_ body: [UInt8]) throws(ManifestFormatError) -> Data {
        var head = ManifestBodyWriter(reserving: 24)
        head.raw(CompactManifestFormat.magic)
        head.byte(CompactManifestFormat.version)
        head.byte(CompactManifestFormat.zstdCompression)
        head.varint(UInt64(body.count))
        guard let context = ZSTD_createCCtx() else {
            throw refusal("body", head.bytes.count, "libzstd could not allocate a compression context (out of memory?)")
        }
        defer { ZSTD_freeCCtx(context) }
        ZSTD_CCtx_setParameter(context, ZSTD_c_compressionLevel, CompactManifestFormat.zstdLevel)
        ZSTD_CCtx_setParameter(context, ZSTD_c_checksumFlag, 1)
        ZSTD_CCtx_setParameter(context, ZSTD_c_contentSizeFlag, 1)
        // The level's own tables for a body of megabytes take about ten times the body (51 MiB for 100 000 files);
        // what repeats (a path's folder, neighbouring sizes) is near, so a 1 MiB window and small tables lose
        // next to nothing.
        ZSTD_CCtx_setParameter(context, ZSTD_c_windowLog, 20)
        ZSTD_CCtx_setParameter(context, ZSTD_c_hashLog, 18)
        ZSTD_CCtx_setParameter(context, ZSTD_c_chainLog, 18)
        let bound = ZSTD_compressBound(body.count)
        var output = [UInt8](repeating: 0, count: head.bytes.count + bound)
        let headCount = head.bytes.count
        let written = output.withUnsafeMutableBytes { out in
            head.bytes.withUnsafeBytes { out.copyMemory(from: $0) }
            return body.withUnsafeBytes { input in
                ZSTD_compress2(context, out.baseAddress! + headCount, bound, input.baseAddress, input.count)
            }
        }
        guard ZSTD_isError(written) == 0 else {
            throw refusal("body", headCount, "libzstd could not compress it (\(String(cString: ZSTD_getErrorName(written))))")
        }
        return Data(output[0..<(headCount + written)])
    }

    /// `value`, refused when negative (the format holds sizes and counts unsigned).
    private static func nonNegative(_ value: Int64, _ field: String, _ out: ManifestBodyWriter) throws(ManifestFormatError) -> Int64 {
        guard value >= 0 else { throw refusal(field, out.bytes.count, "is negative (\(value)); pack it again") }
        return value
    }

    /// The 32 bytes of a SHA-256 the model holds: its bytes, or its text when that is not lowercase hex.
    private static func digest(_ stored: StoredSHA256, _ field: String, _ out: ManifestBodyWriter) throws(ManifestFormatError) -> [UInt8] {
        guard case .digest(let a, let b, let c, let d) = stored.caseFolded else {
            throw refusal(field, out.bytes.count, "'\(stored.text)' is not a SHA-256 (64 hex digits); pack it again")
        }
        return [a, b, c, d].flatMap { word in (0..<8).map { UInt8(truncatingIfNeeded: word >> (56 - 8 * UInt64($0))) } }
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
        guard bytes.count == 32 else { throw refusal(field, out.bytes.count, "'\(hex)' is not a SHA-256 (64 hex digits); pack it again") }
        return bytes
    }

    /// An encoding refusal of `field` at body offset `offset`.
    private static func refusal(_ field: String, _ offset: Int, _ reason: String) -> ManifestFormatError {
        ManifestFormatError(field: field, offset: offset, inBody: true, reason: reason)
    }
}
