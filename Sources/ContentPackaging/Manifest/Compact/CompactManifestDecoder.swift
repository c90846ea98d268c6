import CZstd
internal import Foundation
import Glibc

/// Reads the compact format (docs/MANIFEST-FORMAT.md) as something hostile may have written it.
///
/// Every number is checked before it is used: a count must fit the bytes left (each record takes a
/// known minimum), so nothing is allocated for records the input cannot hold; the body is decompressed a
/// window at a time as it is read (``ManifestBodyInflater``) and must come to exactly the length the envelope
/// declares, at most ``PackageManifest/largestCompactBody``: a frame that would decode to more or to less, or
/// that fails its checksum, is refused; offsets are rebuilt from lengths with checked sums; every
/// path passes ``PathRules`` in strict byte-wise order; and a manifest with a chunk index is returned only
/// when ``PackageManifest/chunkIndexProblems()`` finds nothing.
enum CompactManifestDecoder {
    /// Whether `data` starts with the compact format's magic.
    static func isCompact(_ data: Data) -> Bool {
        data.count >= CompactManifestFormat.magic.count && data.prefix(CompactManifestFormat.magic.count).elementsEqual(CompactManifestFormat.magic)
    }

    /// The manifest in `data` (envelope and compressed body).
    static func decode(_ data: Data) throws(ManifestFormatError) -> PackageManifest {
        let result = data.withUnsafeBytes { raw in
            Result { () throws(ManifestFormatError) -> PackageManifest in try decode(raw) }
        }
        return try result.get()
    }

    /// The manifest in `file` (envelope and compressed body, in memory): the body is decompressed a window at a
    /// time as it is decoded, never whole.
    static func decode(_ file: UnsafeRawBufferPointer) throws(ManifestFormatError) -> PackageManifest {
        let (length, frameOffset) = try envelope(file)
        let source = ManifestBodyInflater.Source.memory(UnsafeRawBufferPointer(rebasing: file[frameOffset...]))
        return try decode(source, length: length, frameOffset: frameOffset)
    }

    /// The manifest in the file at `path`, read and decompressed a piece at a time as it is decoded: neither the
    /// file's bytes nor the body are ever held whole (a million files: 36 MB of file, 53 MB of body). A file path
    /// that `reference` (files sorted byte-wise by path) also lists shares that record's bytes instead of a copy.
    /// - Throws: ``ManifestFormatError`` for a manifest that cannot be read or is not sound.
    static func decode(fileAt path: String, sharingPathsWith reference: [PackageManifest.File]? = nil) throws(ManifestFormatError) -> PackageManifest {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ManifestFormatError(field: "file", offset: 0, inBody: false, reason: "cannot be opened (\(String(cString: strerror(errno)))); fetch the manifest again")
        }
        defer { close(descriptor) }
        var status = stat()
        guard fstat(descriptor, &status) == 0 else {
            throw ManifestFormatError(field: "file", offset: 0, inBody: false, reason: "cannot be read (\(String(cString: strerror(errno)))); fetch the manifest again")
        }
        // The envelope is at most the magic, two bytes and a 10-byte varint.
        var head = [UInt8](repeating: 0, count: CompactManifestFormat.magic.count + 12)
        let count = head.withUnsafeMutableBytes { pread(descriptor, $0.baseAddress, $0.count, 0) }
        let found = head.withUnsafeBytes { bytes in
            Result { () throws(ManifestFormatError) in try envelope(UnsafeRawBufferPointer(rebasing: bytes[0..<max(0, count)])) }
        }
        let (length, frameOffset) = try found.get()
        let source = ManifestBodyInflater.Source.file(
            descriptor: descriptor, offset: frameOffset, length: max(0, Int(status.st_size) - frameOffset))
        return try decode(source, length: length, frameOffset: frameOffset, sharingPathsWith: reference)
    }

    /// The manifest whose body of `length` bytes is the frame in `source`, decoded as it is decompressed. The
    /// file paths' total length, which sizes their one buffer, is learnt by a second inflater reading ahead.
    private static func decode(
        _ source: ManifestBodyInflater.Source, length: Int, frameOffset: Int, sharingPathsWith reference: [PackageManifest.File]? = nil
    ) throws(ManifestFormatError) -> PackageManifest {
        let inflater = try ManifestBodyInflater(source, declared: length, frameOffset: frameOffset)
        var input = ManifestBodyReader(inflating: inflater)
        do {
            let manifest = try decodeBody(&input, sharingPathsWith: reference) { (position, count) throws(ManifestFormatError) in
                // Beside a reference most paths are shared: the few others grow their buffer as they come.
                guard reference == nil else { return 0 }
                var scout = ManifestBodyReader(inflating: try ManifestBodyInflater(source, declared: length, frameOffset: frameOffset))
                try scout.skip(to: position)
                return pathBytes(&scout, count: count)
            }
            try inflater.finish()
            return manifest
        } catch {
            throw inflater.damageAhead() ?? error
        }
    }

    /// The body's length and where its frame starts, from the envelope at the start of `file`.
    private static func envelope(_ file: UnsafeRawBufferPointer) throws(ManifestFormatError) -> (length: Int, frameOffset: Int) {
        let magic = CompactManifestFormat.magic
        guard file.count >= magic.count, file.prefix(magic.count).elementsEqual(magic) else {
            throw ManifestFormatError(field: "magic", offset: 0, inBody: false, reason: "the file does not start with the compact manifest's magic; it is not a manifest written by `iapcontent pack`")
        }
        var head = ManifestBodyReader(file, at: magic.count, inBody: false)
        let version = try head.byte("format version")
        guard version == CompactManifestFormat.version else {
            throw head.error("format version", at: head.position - 1, "is \(version), but this reader knows version \(CompactManifestFormat.version); update iapcontent (or pack with the version the clients read)")
        }
        let compression = try head.byte("compression")
        guard compression == CompactManifestFormat.zstdCompression else {
            throw head.error("compression", at: head.position - 1, "is \(compression), but this reader knows only zstd (\(CompactManifestFormat.zstdCompression)); update iapcontent")
        }
        let lengthOffset = head.position
        let declared = try head.varint("body length")
        guard declared <= UInt64(PackageManifest.largestCompactBody) else {
            throw head.error("body length", at: lengthOffset, "declares \(declared) bytes, more than the \(PackageManifest.largestCompactBody) a reader decompresses (PackageManifest.largestCompactBody); the manifest is damaged, or its content must be split into several products")
        }
        return (Int(declared), head.position)
    }

    /// The manifest in an uncompressed body.
    static func decodeBody(_ body: UnsafeRawBufferPointer) throws(ManifestFormatError) -> PackageManifest {
        var input = ManifestBodyReader(body)
        return try decodeBody(&input) { (position, count) throws(ManifestFormatError) in
            var scout = ManifestBodyReader(body, at: position)
            return pathBytes(&scout, count: count)
        }
    }

    /// The manifest in the body `input` reads; `sizingPaths` gives the rebuilt bytes of the `count` file paths
    /// that start at a body offset (a reader of its own reads them ahead).
    private static func decodeBody(
        _ input: inout ManifestBodyReader, sharingPathsWith reference: [PackageManifest.File]? = nil, sizingPaths: (_ position: Int, _ count: Int) throws(ManifestFormatError) -> Int
    ) throws(ManifestFormatError) -> PackageManifest {
        typealias Format = CompactManifestFormat
        let schemaOffset = input.position
        let schema = Int(try input.count("schema", atMost: Int64(PackageManifest.currentSchema)))
        guard schema >= 1 else { throw input.error("schema", at: schemaOffset, "is 0; the manifest is damaged — pack it again") }
        let flagsOffset = input.position
        let flags = try input.varint("flags")
        guard flags & ~Format.Flag.all == 0 else {
            throw input.error("flags", at: flagsOffset, "has fields this reader does not know (\(flags)); update iapcontent")
        }
        let productID = try input.string("productID", atMost: Format.maxHeaderString)
        let versionOffset = input.position
        let versionText = try input.string("contentVersion", atMost: Format.maxHeaderString)
        guard let version = ContentVersion(versionText) else {
            throw input.error("contentVersion", at: versionOffset, "'\(versionText)' is not a content version; the manifest is damaged — pack it again")
        }
        let archiveName = try input.string("archiveName", atMost: Format.maxHeaderString)
        let archiveSize = try input.count("archiveSize", atMost: Int64.max)
        let uncompressedSize = try input.count("uncompressedSize", atMost: Int64.max)
        let entryCount = Int(try input.count("entryCount", atMost: Int64(Int32.max)))
        let archiveSHA256 = flags & Format.Flag.archiveSHA256 != 0 ? try input.digest("archiveSHA256") : nil
        guard schema >= 2 || archiveSHA256 != nil else {
            throw input.error("archiveSHA256", "is missing from a schema-1 manifest (nothing else vouches for its archive); pack it again")
        }
        let chunking = flags & Format.Flag.chunking != 0 ? try chunkingDescription(&input) : nil
        let packs = flags & Format.Flag.packs != 0 ? try packDeclaration(&input) : nil
        let dictionary = flags & Format.Flag.dictionary != 0 ? try archiveDictionary(&input) : nil
        guard dictionary == nil || flags & Format.Flag.chunks != 0 else {
            throw input.error("dictionary", "is named by a manifest without a chunk index (only chunk-indexed archives store one); the manifest is damaged — pack it again")
        }
        let counts = try Counts(&input, flags: flags)
        // In body order: files, directories, chunks.
        let (files, linkedFiles) = try files(
            &input, count: counts.files, withLinks: flags & Format.Flag.linkedFiles != 0,
            withOffsets: flags & Format.Flag.dataOffsets != 0,
            pathBytes: try sizingPaths(input.position, counts.files), sharingPathsWith: reference)
        var directories: [String]?
        if let count = counts.directories {
            var list: [String] = []
            list.reserveCapacity(count)
            try paths(&input, count: count, name: "directory") { list.append(String(decoding: $0, as: UTF8.self)) }
            directories = list
        }
        let firstChunk = dictionary?.length ?? 0
        let chunks = try counts.chunks.map { (count) throws(ManifestFormatError) in try self.chunks(&input, count: count, from: firstChunk) }
        var manifest = PackageManifest(
            productID: productID, contentVersion: version, archiveName: archiveName, archiveSize: archiveSize,
            archiveSHA256: archiveSHA256, uncompressedSize: uncompressedSize, entryCount: entryCount, files: files,
            directories: directories, chunking: chunking, chunks: chunks, packs: packs, linkedFiles: linkedFiles,
            dictionary: dictionary)
        manifest.schema = schema
        guard input.remaining == 0 else {
            throw input.error("end", "\(input.remaining) bytes follow the last record; the manifest is damaged — pack it again")
        }
        let problems = manifest.chunkIndexProblems()  // none for a one-frame manifest
        if !problems.isEmpty {
            let shown = problems.prefix(3).joined(separator: "; ") + (problems.count > 3 ? "; and \(problems.count - 3) more" : "")
            throw input.error("chunk index", at: counts.offset, "is not sound: \(shown); pack it again")
        }
        return manifest
    }

    /// The chunking scheme the header declares (its flag is set).
    private static func chunkingDescription(_ input: inout ManifestBodyReader) throws(ManifestFormatError) -> ChunkingDescription {
        typealias Format = CompactManifestFormat
        return ChunkingDescription(
            algorithm: try input.string("chunking algorithm", atMost: Format.maxHeaderString),
            minimum: try input.count("chunking minimum", atMost: Int64.max),
            average: try input.count("chunking average", atMost: Int64.max),
            maximum: try input.count("chunking maximum", atMost: Int64.max))
    }

    /// The stored dictionary's record the header carries (its flag is set): its frame's length, its size, its ID and
    /// the frame's SHA-256. Its bounds are checked with the chunk index (``ArchiveDictionary/problems(archiveSize:)``).
    private static func archiveDictionary(_ input: inout ManifestBodyReader) throws(ManifestFormatError) -> ArchiveDictionary {
        let length = try input.count("dictionary length", atMost: ArchiveDictionary.largestLength)
        let size = try input.count("dictionary size", atMost: ArchiveDictionary.largestSize)
        let id = try input.count("dictionary ID", atMost: Int64(UInt32.max))
        return ArchiveDictionary(length: length, size: size, id: UInt32(id), sha256: try input.digest("dictionary SHA-256"))
    }

    /// The pack declaration the header carries (its flag is set), as canonical JSON.
    private static func packDeclaration(_ input: inout ManifestBodyReader) throws(ManifestFormatError) -> PackDeclaration {
        let offset = input.position
        let text = try input.string("packs", atMost: CompactManifestFormat.maxPacksJSON)
        do { return try JSONDecoder().decode(PackDeclaration.self, from: Data(text.utf8)) } catch let error as UnknownDownloadPolicy {
            throw input.error("packs", at: offset, error.description)
        } catch {
            throw input.error("packs", at: offset, "holds a pack declaration this reader cannot read (\(error)); update iapcontent, or pack it again")
        }
    }

    /// The record counts, each refused before anything is allocated when the bytes left cannot hold them.
    private struct Counts {
        var files: Int
        var directories: Int?
        var chunks: Int?
        /// Where the counts start in the body.
        var offset: Int

        init(_ input: inout ManifestBodyReader, flags: UInt64) throws(ManifestFormatError) {
            typealias Format = CompactManifestFormat
            offset = input.position
            let fileBytes = Format.minimumFileBytes + (flags & Format.Flag.dataOffsets != 0 ? 1 : 0)
            files = Int(try input.count("file count", atMost: Int64(input.remaining / fileBytes)))
            if flags & Format.Flag.directories != 0 {
                directories = Int(try input.count("directory count", atMost: Int64(input.remaining / Format.minimumDirectoryBytes)))
            }
            if flags & Format.Flag.chunks != 0 {
                chunks = Int(try input.count("chunk count", atMost: Int64(input.remaining / Format.minimumChunkBytes)))
            }
            let needed = files * fileBytes + (directories ?? 0) * Format.minimumDirectoryBytes + (chunks ?? 0) * Format.minimumChunkBytes
            guard needed <= input.remaining else {
                throw input.error("record counts", at: offset, "\(files) files, \(directories ?? 0) directories and \(chunks ?? 0) chunks need at least \(needed) bytes but the body has \(input.remaining) left; the manifest is damaged — pack it again")
            }
        }
    }
}
