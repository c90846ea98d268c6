public import Foundation

/// The per-file manifest written beside every archive: `<product>-<version>.manifest` in the compact
/// format for a chunk-indexed archive (``compactEncoded()``), `<product>-<version>.manifest.json` for a
/// one-frame archive (``encoded()``).
///
/// It lets `inspect` verify an archive, lets `catalog` list products without unpacking them, and
/// tells a client what sizes to expect. Both encodings are deterministic (files sorted byte-wise by
/// path; JSON keys sorted), so the same folder gives the same manifest bytes; ``decode(_:)`` reads both.
public struct PackageManifest: Codable, Sendable, Equatable {
    /// The newest format version this code writes and reads: 2, a chunk-indexed archive (``chunks``).
    /// Schema 1 (one zstd frame, no chunk index) is still read.
    public static let currentSchema = 2

    /// Format version of this document.
    public var schema: Int
    /// `IAPProductIdentifier` of the packed content.
    public var productID: String
    /// `ContentVersion` of the packed content.
    public var contentVersion: ContentVersion
    /// File name of the archive (`<product>-<version>.tar.zst`).
    public var archiveName: String
    /// Size of the archive in bytes.
    public var archiveSize: Int64
    /// Lowercase hex SHA-256 of the archive bytes: always in schema 1, `nil` in schema 2, whose clients
    /// trust the archive through the signed catalog (the archive's length and SHA-256 there), this
    /// manifest's SHA-256 named there, and each chunk's SHA-256 in ``chunks``.
    public var archiveSHA256: String?
    /// Sum of every regular file's size.
    public var uncompressedSize: Int64
    /// Number of archive entries (regular files and directories).
    public var entryCount: Int
    /// Every regular file, sorted byte-wise by path (`ContentInfo.plist`, `Contents/...`).
    public var files: [File]
    /// Every directory entry the archive holds, paths as in ``files`` (no trailing `/`), sorted byte-wise
    /// (schema 2; `nil` in older manifests). With ``files`` it is the whole tree, so a client can build
    /// it from the manifest alone; ``directoryProblems()`` says whether the list can be trusted.
    public var directories: [String]?
    /// How the chunk boundaries were chosen (schema 2).
    public var chunking: ChunkingDescription?
    /// The archive's frames in order, covering it and its tar stream without gaps (schema 2).
    public var chunks: [ArchiveChunk]?
    /// The packs and variant axes `ContentInfo.plist` declares (``PackDeclaration``); `nil` for a product that is
    /// one essential pack, so every manifest written before packs existed reads the same.
    public var packs: PackDeclaration?
    /// The files the archive stores once for an earlier file of the same content (``LinkedFile``), by ascending file
    /// index; `nil` when there are none, so a manifest without them reads and encodes as before they existed.
    public var linkedFiles: [LinkedFile]?
    /// The zstd dictionary the chunks' frames were compressed with, stored at the archive's start
    /// (``ArchiveDictionary``, `pack --dictionary`); `nil` for an archive any zstd reader decodes alone.
    public var dictionary: ArchiveDictionary?

    /// One regular file inside the archive.
    ///
    /// **Layout.** A manifest of a million files holds a million of these, so a record is 64 bytes: the SHA-256 (32
    /// bytes and the tag of its rare malformed-text case), the path's start and length in the spare bytes after it,
    /// the size, the data offset (`Int64.min` for none: an optional would add a tag and padding), and the path's
    /// buffer, which many records share (`StoredPath`). `MemoryLayout<File>.stride` is checked by a test.
    public struct File: Codable, Sendable, Equatable {
        /// ``sha256``, held as its bytes (a manifest of a million files keeps a million of them).
        package var storedSHA256: StoredSHA256
        /// The path's length in ``pathBuffer``, or ``wholeBuffer``: the path is all of it (a path too long to say).
        private var pathLength: UInt16
        /// Where the path starts in ``pathBuffer``.
        private var pathStart: UInt32
        /// Size in bytes.
        public var size: Int64
        /// ``dataOffset``, or ``noDataOffset``.
        private var dataOffsetOrNone: Int64
        /// The buffer holding the path, shared with other records' paths.
        private var pathBuffer: [UInt8]

        /// ``pathLength`` of a path that is all of its buffer.
        private static let wholeBuffer = UInt16.max
        /// ``dataOffsetOrNone`` without a data offset. No archive reaches it: offsets are at most the tar stream's length.
        private static let noDataOffset = Int64.min

        /// Path inside the archive, `/`-separated, no leading slash.
        public var path: String {
            get { storedPath.string }
            set { storedPath = StoredPath(newValue) }
        }
        /// Lowercase hex SHA-256 of the content.
        public var sha256: String {
            get { storedSHA256.text }
            set { storedSHA256 = StoredSHA256(newValue) }
        }
        /// Where the file's data starts in the uncompressed tar stream (schema 2): with ``chunks`` it
        /// says which chunks hold the file, so a client can fetch or check one file alone.
        public var dataOffset: Int64? {
            get { dataOffsetOrNone == Self.noDataOffset ? nil : dataOffsetOrNone }
            set { dataOffsetOrNone = newValue ?? Self.noDataOffset }
        }
        /// ``path``, held as bytes in a buffer it may share with the other files' paths.
        package var storedPath: StoredPath {
            get {
                pathLength == Self.wholeBuffer
                    ? StoredPath(bytes: pathBuffer)
                    : StoredPath(buffer: pathBuffer, start: Int(pathStart), count: Int(pathLength))
            }
            set {
                let (buffer, start, count) = newValue.storage
                if count < Int(Self.wholeBuffer), start <= Int(UInt32.max) {
                    (pathBuffer, pathStart, pathLength) = (buffer, UInt32(start), UInt16(count))
                } else {  // a path no manifest writer makes (PathRules allow 1 KiB): kept whole in a buffer of its own
                    (pathBuffer, pathStart, pathLength) = (Array(newValue.utf8), 0, Self.wholeBuffer)
                }
            }
        }

        /// Creates a file record.
        public init(path: String, size: Int64, sha256: String, dataOffset: Int64? = nil) {
            self.init(storedPath: StoredPath(path), size: size, storedSHA256: StoredSHA256(sha256), dataOffset: dataOffset)
        }

        /// Creates a file record from a path and hash as the model holds them (no copy of either).
        package init(storedPath: StoredPath, size: Int64, storedSHA256: StoredSHA256, dataOffset: Int64? = nil) {
            self.storedSHA256 = storedSHA256
            self.size = size
            self.dataOffsetOrNone = dataOffset ?? Self.noDataOffset
            (pathBuffer, pathStart, pathLength) = ([], 0, 0)
            self.storedPath = storedPath
        }

        /// Same path (bytes), size, data offset and hash.
        public static func == (lhs: File, rhs: File) -> Bool {
            lhs.size == rhs.size && lhs.dataOffsetOrNone == rhs.dataOffsetOrNone && lhs.storedSHA256 == rhs.storedSHA256
                && lhs.storedPath == rhs.storedPath
        }

        /// The JSON keys.
        private enum CodingKeys: String, CodingKey {
            case path, size, sha256, dataOffset
        }

        /// Reads a JSON record: `path`, `size`, `sha256`, and `dataOffset` when present.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            self.init(
                storedPath: try container.decode(StoredPath.self, forKey: .path), size: try container.decode(Int64.self, forKey: .size),
                storedSHA256: try container.decode(StoredSHA256.self, forKey: .sha256),
                dataOffset: try container.decodeIfPresent(Int64.self, forKey: .dataOffset))
        }

        /// Writes the JSON record (no `dataOffset` key without one).
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(storedPath, forKey: .path)
            try container.encode(size, forKey: .size)
            try container.encode(storedSHA256, forKey: .sha256)
            try container.encodeIfPresent(dataOffset, forKey: .dataOffset)
        }
    }

    /// Creates a manifest: schema 2 when it has a chunk index, else schema 1.
    public init(
        productID: String, contentVersion: ContentVersion, archiveName: String, archiveSize: Int64,
        archiveSHA256: String?, uncompressedSize: Int64, entryCount: Int, files: [File],
        directories: [String]? = nil, chunking: ChunkingDescription? = nil, chunks: [ArchiveChunk]? = nil,
        packs: PackDeclaration? = nil, linkedFiles: [LinkedFile]? = nil, dictionary: ArchiveDictionary? = nil
    ) {
        self.dictionary = dictionary
        self.packs = packs
        self.linkedFiles = linkedFiles
        self.schema = chunks == nil ? 1 : 2
        self.directories = directories
        self.chunking = chunking
        self.chunks = chunks
        self.productID = productID
        self.contentVersion = contentVersion
        self.archiveName = archiveName
        self.archiveSize = archiveSize
        self.archiveSHA256 = archiveSHA256
        self.uncompressedSize = uncompressedSize
        self.entryCount = entryCount
        self.files = files
    }

    /// Deterministic JSON: sorted keys, pretty-printed, trailing newline.
    public func encoded() throws -> Data {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        var data = try encoder.encode(self)
        data.append(UInt8(ascii: "\n"))
        return data
    }

    /// Decodes a manifest in either encoding, told apart by the compact format's magic; a schema-1 manifest
    /// must carry ``archiveSHA256`` (nothing else vouches for its archive).
    /// - Throws: ``ManifestFormatError`` for a compact manifest that is damaged, cut short, of an unknown
    ///   format version, or whose chunk index is not sound; a `DecodingError` for JSON that is not a manifest.
    public static func decode(_ data: Data) throws -> PackageManifest {
        if isCompact(data) { return try CompactManifestDecoder.decode(data) }
        let manifest = try JSONDecoder().decode(PackageManifest.self, from: data)
        guard manifest.schema >= 2 || manifest.archiveSHA256 != nil else {
            throw DecodingError.keyNotFound(
                CodingKeys.archiveSHA256,
                DecodingError.Context(codingPath: [], debugDescription: "a schema-1 manifest needs archiveSHA256"))
        }
        return manifest
    }

    /// Decodes the manifest file at `path`, in either encoding, as ``decode(_:)`` does; the compact format is read
    /// and decompressed a piece at a time as it is decoded, so a manifest of a million files holds the model and
    /// a few small buffers, never the file (36 MB) or the body (53 MB).
    /// - Throws: what ``decode(_:)`` throws, or the error reading the file.
    public static func decode(contentsOfFile path: String) throws -> PackageManifest {
        try decode(contentsOfFile: path, sharingPathsWith: nil)
    }

    /// ``decode(contentsOfFile:)``, where a compact manifest's file path that `reference` (files sorted byte-wise by
    /// path, as a manifest's are) also lists shares that record's bytes: an update holds the installed version's
    /// manifest beside the new one, and most of their paths are the same.
    package static func decode(contentsOfFile path: String, sharingPathsWith reference: [File]?) throws -> PackageManifest {
        let handle = try FileHandle(forReadingFrom: URL(fileURLWithPath: path))
        let start = try handle.read(upToCount: CompactManifestFormat.magic.count) ?? Data()
        try handle.close()
        if isCompact(start) { return try CompactManifestDecoder.decode(fileAt: path, sharingPathsWith: reference) }
        return try decode(Data(contentsOf: URL(fileURLWithPath: path)))
    }
}

/// File names derived from a product and version; one place so every stage agrees.
public enum PackageNaming {
    /// `<product>-<version>.tar.zst`
    public static func archiveName(productID: String, version: ContentVersion) -> String {
        "\(productID)-\(version.description).tar.zst"
    }

    /// `<product>-<version>.manifest.json`, beside a one-frame archive (JSON).
    public static func manifestName(productID: String, version: ContentVersion) -> String {
        "\(productID)-\(version.description).manifest.json"
    }

    /// `<product>-<version>.manifest`, beside a chunk-indexed archive (the compact format).
    public static func compactManifestName(productID: String, version: ContentVersion) -> String {
        "\(productID)-\(version.description).manifest"
    }

    /// The JSON manifest name for an archive file name (`X.tar.zst` → `X.manifest.json`).
    public static func manifestName(forArchiveName name: String) -> String {
        baseName(ofArchive: name) + ".manifest.json"
    }

    /// The manifest beside the archive at `archive`: `X.manifest` (compact) when it exists, else
    /// `X.manifest.json`; the compact name when neither does (what `pack` writes for a chunk-indexed archive).
    public static func manifestURL(besideArchive archive: URL) -> URL {
        let folder = archive.deletingLastPathComponent()
        let base = baseName(ofArchive: archive.lastPathComponent)
        let compact = folder.appendingPathComponent(base + ".manifest", isDirectory: false)
        let json = folder.appendingPathComponent(base + ".manifest.json", isDirectory: false)
        let fileManager = FileManager.default
        return !fileManager.fileExists(atPath: compact.path) && fileManager.fileExists(atPath: json.path) ? json : compact
    }

    /// Whether `name` is a manifest's file name in either encoding.
    public static func isManifestName(_ name: String) -> Bool {
        name.hasSuffix(".manifest") || name.hasSuffix(".manifest.json")
    }

    /// `X` of `X.tar.zst`.
    private static func baseName(ofArchive name: String) -> String {
        name.hasSuffix(".tar.zst") ? String(name.dropLast(".tar.zst".count)) : name
    }
}
