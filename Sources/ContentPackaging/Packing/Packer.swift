package import SystemSupport
public import Foundation
import Crypto
import Glibc

/// Packs a validated content folder into a reproducible `<product>-<version>.tar.zst` plus manifest.
///
/// The same folder always gives the same bytes: entries sorted byte-wise by path (directories
/// included), one fixed modification time (``modificationTime``, from `SOURCE_DATE_EPOCH` when
/// set), owner 0/0 without names, modes 0644/0755, no atime/ctime/xattrs/ACLs. File data streams
/// through a few fixed buffers, read ahead on a reader thread and written on an output thread, so
/// memory stays flat and both cores work. A one-frame archive's files are hashed by the reader and the
/// archive as it is compressed; a chunked archive's chunks and files are hashed in one pass on a hash
/// thread, and it has no archive-wide hash. A chunked archive stores a variant's copy of an earlier file once: a tar
/// hard link to the first (`IdenticalFiles`, ``PackageManifest/LinkedFile``).
/// Both files are written crash-safely (temp + fsync + rename + fsync dir); on any error the temp
/// file is removed, and a signal handler can remove it too via a `TemporaryFileRegistry`.
///
/// ```swift
/// let result = try Packer().pack(folder: folder, outputDirectory: out)
/// print(result.archiveURL.path)
/// ```
public struct Packer: Sendable {
    /// Modification time used when `SOURCE_DATE_EPOCH` is not set: 2000-01-01T00:00:00Z.
    public static let defaultModificationTime: Int64 = 946_684_800
    /// Size of each file-read buffer (the reader thread has two in circulation).
    public static let blockSize = 256 << 10

    /// Validation run before anything is written.
    public var validator: PackageValidator
    /// Modification time stored in every header (seconds since 1970).
    public var modificationTime: Int64
    /// zstd compression level.
    public var compressionLevel: Int
    /// Write a chunk-indexed archive (manifest schema 2, the default): one zstd frame per content-defined
    /// chunk of the tar stream, indexed in the manifest, which clients install in place chunk by chunk.
    /// Off: one frame, schema 1, with the archive's SHA-256, for clients that predate chunk indexes.
    public var chunked: Bool
    /// The chunk sizes with ``chunked`` (tests use small ones to get many chunks from little data).
    package var chunking: ChunkingParameters = .standard
    /// With ``chunked``, how entries smaller than a minimum chunk are grouped into frames between files
    /// (``FileGroupBudget``); `nil` leaves them to the content-defined chunker alone, as archives packed before
    /// file groups were.
    package var fileGroups: FileGroupBudget? = .standard
    /// With ``chunked``, the smallest file of a variant folder stored once when an earlier file of the content is
    /// identical (``IdenticalFiles``): a hard link to the first in tar order. `nil` stores every file's data.
    package var linkedFileMinimum: Int64? = Packer.smallestLinkedFile

    /// With ``chunked``, compress every frame with a zstd dictionary of at most this many bytes, trained on the
    /// content's small files and stored at the archive's start (``ArchiveDictionary``): small files' frames keep
    /// most of the ratio one frame of the whole tree has. `nil` (the default): no dictionary, so any zstd reader
    /// (`bsdtar -xf`) reads the archive alone; with one, a reader needs the dictionary (`zstd -D`,
    /// docs/MANIFEST-FORMAT.md). A tree with too few small-file bytes to train on is packed without one.
    public var dictionaryBytes: Int?
    /// The dictionary sizes ``dictionaryBytes`` accepts: 4 KiB to 1 MiB.
    public static let dictionaryByteRange = (4 << 10)...Int(ArchiveDictionary.largestSize)

    /// The smallest file a chunk-indexed archive stores as a hard link to an identical earlier file: 256 KiB, the
    /// smallest file whose data has chunks of its own. A smaller file's source lies in a frame of small files of
    /// another pack or variant, which a device installing the link alone would fetch whole (up to 64 KiB for a
    /// file of a few: measured 1.50× the bytes of a French-only install for shared 8 KiB files), so small copies
    /// keep their data; every large copy (voices, music, textures) is stored once.
    public static let smallestLinkedFile = Int64(ChunkingParameters.standard.minimum)

    /// Creates a packer.
    public init(
        validator: PackageValidator = PackageValidator(),
        modificationTime: Int64 = Packer.modificationTime(environment: ProcessInfo.processInfo.environment),
        compressionLevel: Int = ArchiveWriter.defaultCompressionLevel, chunked: Bool = true
    ) {
        self.validator = validator
        self.modificationTime = modificationTime
        self.compressionLevel = compressionLevel
        self.chunked = chunked
    }

    /// `SOURCE_DATE_EPOCH` when it is a non-negative integer, else ``defaultModificationTime``.
    ///
    /// See <https://reproducible-builds.org/specs/source-date-epoch/>.
    public static func modificationTime(environment: [String: String]) -> Int64 {
        if let value = environment["SOURCE_DATE_EPOCH"], let seconds = Int64(value), seconds >= 0 { return seconds }
        return defaultModificationTime
    }

    /// Validates `folder`, then writes the archive and manifest into `outputDirectory` (created if needed).
    ///
    /// - Throws: ``PackError/invalid(_:)`` with every problem, or an I/O or archive error.
    public func pack(folder: URL, outputDirectory: URL) throws(PackError) -> PackResult {
        try pack(folder: folder, outputDirectory: outputDirectory, registry: nil)
    }

    /// ``pack(folder:outputDirectory:)``, telling `registry` about temp files while they exist, so a
    /// signal handler can remove them (the CLI's Ctrl-C).
    package func pack(
        folder: URL, outputDirectory: URL, registry: TemporaryFileRegistry?
    ) throws(PackError) -> PackResult {
        // Files are checked for executable code while they are read for the archive (below).
        var report = validator.validate(folder: folder, sniffing: false)
        guard report.isValid, let info = report.contentInfo else {
            throw .invalid(everyProblem(in: folder, found: report.problems))
        }
        // What the validation built besides its list (collision tables, sorting) is free now; a million paths
        // leave tens of megabytes of it between live blocks of the heap.
        ProcessMemory.returnFreePages()
        let (entryCount, packs) = (report.entries.count, report.packs)
        let directories = chunked ? report.entries.filter { $0.kind == .directory }.map(\.path) : nil
        // Every path once, in one buffer the manifest's file records share. The validator's list (an array per
        // path) is let go here, before the archive is written, and the entries go to the writer alone, which
        // lets them go once written: with a hundred thousand files each list is megabytes.
        let entries = PackEntry.list(report.entries)
        report.entries = []
        // The validation's per-path allocations (about 180 MB for a million files) are free now but stay in the
        // heap between live blocks; the archive phase's arrays are mapped apart, so give those pages back.
        ProcessMemory.returnFreePages()
        let directory = try Self.outputFolder(outputDirectory)
        let archiveName = PackageNaming.archiveName(productID: info.productID, version: info.contentVersion)
        // The compact format for a chunk-indexed archive, JSON for one frame.
        let jsonName = PackageNaming.manifestName(productID: info.productID, version: info.contentVersion)
        let compactName = PackageNaming.compactManifestName(productID: info.productID, version: info.contentVersion)
        let manifestName = chunked ? compactName : jsonName

        let (temporary, fd) = try PackFiles.createTemporary(in: directory, for: archiveName, registry: registry)
        defer { registry?.unregister(temporary) }
        let archive: WrittenArchive
        do {
            archive = try writeArchive(
                entries: consume entries, root: folder.standardizedFileURL.path, fd: fd, displayPath: temporary, packs: packs)
        } catch {
            close(fd)
            unlink(temporary)
            if case .invalid(let found) = error {  // executable code: list every problem, as `validate` does
                throw .invalid(everyProblem(in: folder, found: found))
            }
            throw error
        }
        do {
            try PackFiles.commit(fd: fd, temporary: temporary, final: "\(directory)/\(archiveName)")
        } catch {
            unlink(temporary)  // commit closed the descriptor
            throw error
        }
        let manifest = describe(archive, named: archiveName, info: info, entryCount: entryCount, directories: directories, packs: packs)
        try writeManifest(manifest, named: manifestName, in: directory, registry: registry)
        // A manifest of the other encoding left by an earlier pack would describe another archive.
        unlink("\(directory)/\(chunked ? jsonName : compactName)")
        return PackResult(
            archiveURL: URL(fileURLWithPath: "\(directory)/\(archiveName)"),
            manifestURL: URL(fileURLWithPath: "\(directory)/\(manifestName)"), manifest: manifest)
    }

    /// The manifest of the archive just written: its identity, size, SHA-256, files, folders and (chunk-indexed)
    /// its chunking scheme and index.
    private func describe(
        _ archive: WrittenArchive, named archiveName: String, info: ContentInfo, entryCount: Int, directories: [String]?, packs: PackDeclaration?
    ) -> PackageManifest {
        PackageManifest(
            productID: info.productID, contentVersion: info.contentVersion, archiveName: archiveName,
            archiveSize: archive.size, archiveSHA256: archive.sha256,
            uncompressedSize: archive.files.reduce(0) { $0 + $1.size }, entryCount: entryCount,
            files: archive.files, directories: directories,
            chunking: chunked ? chunking.manifestDescription(fileGroups: fileGroups) : nil, chunks: chunked ? archive.chunks : nil, packs: packs,
            linkedFiles: archive.linkedFiles.isEmpty ? nil : archive.linkedFiles, dictionary: archive.dictionary?.record)
    }

    /// The output folder's path, created if needed.
    private static func outputFolder(_ url: URL) throws(PackError) -> String {
        let directory = url.standardizedFileURL.path
        do {
            try FileManager.default.createDirectory(atPath: directory, withIntermediateDirectories: true)
        } catch {
            throw .io(path: directory, errno: 0, message: "cannot create output directory: \(error.localizedDescription)")
        }
        return directory
    }

    /// Writes `manifest` as `name` in `directory`, durably: the compact format for a chunk-indexed archive
    /// (compressed and written as it is made: a million files' body is about 50 MB and its frame 36 MB), JSON for
    /// one frame.
    private func writeManifest(_ manifest: PackageManifest, named name: String, in directory: String, registry: TemporaryFileRegistry?) throws(PackError) {
        if chunked {
            try PackFiles.write(to: name, in: directory, registry: registry) { (fd, path) throws(PackError) in
                do {
                    try CompactManifestEncoder.encode(manifest) { try DurableFile.writeAll(fd, $0, path: path) }
                } catch let error as FileSystemError {
                    throw PackError(error)
                } catch {
                    throw .io(path: name, errno: 0, message: "cannot encode manifest: \(error)")
                }
            }
        } else {
            let data: Data
            do {
                data = try manifest.encoded()
            } catch {
                throw .io(path: name, errno: 0, message: "cannot encode manifest: \(error)")
            }
            try PackFiles.write(data, to: name, in: directory, registry: registry)
        }
    }

    /// Every problem of `folder` from a full validation (executable check included), so one run
    /// reports them all; `found` when that validation no longer sees any (the folder changed).
    private func everyProblem(in folder: URL, found: [ValidationProblem]) -> [ValidationProblem] {
        let problems = validator.validate(folder: folder).problems
        return problems.isEmpty ? found : problems
    }

    /// What ``writeArchive(entries:root:fd:displayPath:)`` wrote.
    private struct WrittenArchive {
        var size: Int64
        /// The archive's SHA-256, one-frame archives only.
        var sha256: String?
        var files: [PackageManifest.File]
        var chunks: [ArchiveChunk]
        /// The files stored as hard links to identical earlier ones (chunked archives only).
        var linkedFiles: [PackageManifest.LinkedFile]
        /// The dictionary stored at the archive's start, when one was trained.
        var dictionary: FrameDictionary?
    }

    /// The dictionary of ``dictionaryBytes`` trained on the small files among `entries` (those grouped into frames
    /// of a bounded size), or `nil` when none is asked for or there is too little to train on.
    /// - Throws: ``PackError`` when the trained bytes cannot be stored.
    private func trainDictionary(entries: [PackEntry], root: String) throws(PackError) -> FrameDictionary? {
        guard chunked, let capacity = dictionaryBytes else { return nil }
        guard Self.dictionaryByteRange.contains(capacity) else {
            throw .io(path: root, errno: 0, message: "a dictionary of \(capacity) bytes is outside \(Self.dictionaryByteRange.lowerBound)…\(Self.dictionaryByteRange.upperBound) bytes; choose a size in that range")
        }
        let small = entries.filter { $0.kind == .regular && $0.size > 0 && $0.size < Int64(chunking.minimum) }
        let chosen = DictionaryTrainer.chosen(sizes: small.map(\.size), capacity: capacity)
        let samples = chosen.compactMap { DictionaryTrainer.sample(path: "\(root)/\(small[$0].path)", size: small[$0].size) }
        guard let trained = DictionaryTrainer.train(samplesOf: samples, capacity: capacity) else { return nil }
        do { return try FrameDictionary(trained: trained) } catch {
            throw .io(path: root, errno: 0, message: "cannot store the trained dictionary: \(error)")
        }
    }

    /// Writes every entry; returns the archive's size and SHA-256 (one frame) and the file and chunk records.
    ///
    /// - Throws: ``PackError/invalid(_:)`` for the first content file holding executable code
    ///   (the reader checks each file's first bytes), else an I/O or archive error.
    ///
    /// Four threads share the work: a ``FileReadAheadThread`` reads the files ahead (and hashes them for a
    /// one-frame archive), this thread builds the tar stream, cuts it into chunks and compresses it, the
    /// writer's output thread writes the compressed bytes, and for a chunked archive `ChunkHashThread`
    /// hashes each chunk and each file in one pass. Each hand-over is a bounded channel of fixed buffers,
    /// so memory stays flat; the bytes are the same as a single-threaded pack's.
    private func writeArchive(
        entries: [PackEntry], root: String, fd: Int32, displayPath: String, packs: PackDeclaration?
    ) throws(PackError) -> WrittenArchive {
        let boundaries = PackBoundaries(entries: entries, declaration: chunked ? packs : nil)
        var files: [PackageManifest.File] = []
        files.reserveCapacity(entries.count)
        let dictionary = try trainDictionary(entries: entries, root: root)
        var writer: ArchiveWriter
        do {
            writer = try ArchiveWriter(
                fileDescriptor: fd, displayPath: displayPath, compressionLevel: compressionLevel,
                chunking: chunked ? chunking : nil, expectedFiles: entries.count, dictionary: dictionary)
        } catch {
            throw .archive(error)
        }
        // Only a product with variants has variant folders, whose files may be links: any other is not read twice.
        let identical = chunked && packs != nil && linkedFileMinimum != nil
            ? IdenticalFiles(entries: entries, root: root, minimumSize: linkedFileMinimum ?? 0) { $0.storedPath.utf8.contains(UInt8(ascii: "#")) }
            : IdenticalFiles()
        var linkedFiles: [PackageManifest.LinkedFile] = []
        // The file record of each entry a link points to, by entry index.
        var recordOfSource: [Int: Int] = [:]
        let reader = FileReadAhead(entries: entries, root: root, hashing: !chunked, skipping: Set(identical.sources.keys))
        defer { reader.close() }
        for (index, entry) in entries.enumerated() {
            // The data of a file of at least a minimum chunk has chunks of its own: its header and padding go
            // with the small entries around it, so an update that changes it, or them, fetches no other bytes.
            // Smaller entries are grouped into frames of a bounded compressed size, cut between entries.
            let source = identical.sources[index]
            let large = chunked && entry.kind != .directory && source == nil && entry.size >= Int64(chunking.minimum)
            if chunked {
                let bytes = FileGroupBudget.entryBytes(dataSize: entry.kind == .directory || source != nil ? 0 : entry.size, dataInGroup: !large)
                try boundaries.boundary(before: index, entryBytes: bytes, budget: fileGroups, writer: &writer)
            }
            if entry.kind == .directory {
                try writeDirectory(entry, to: &writer)
            } else if let source, let record = recordOfSource[source] {
                try writeLink(entries[source], to: entry, to: &writer)
                linkedFiles.append(PackageManifest.LinkedFile(file: files.count, source: record))
                files.append(PackageManifest.File(
                    storedPath: entry.storedPath, size: entry.size, storedSHA256: StoredSHA256(""), dataOffset: files[record].dataOffset))
            } else {
                if identical.sourceDigests[index] != nil { recordOfSource[index] = files.count }
                files.append(try writeFile(entry, index: index, large: large, from: reader, to: &writer))
            }
        }
        let finished: ArchiveWriter.Finished
        do {
            finished = try writer.finishIndexed()
        } catch {
            throw .archive(error)
        }
        if chunked {  // each file's data was hashed with its chunks, in header order; a link has its source's
            precondition(finished.fileSHA256s.count == files.count - linkedFiles.count, "one digest per file with data")
            let sources = Dictionary(uniqueKeysWithValues: linkedFiles.map { ($0.file, $0.source) })
            var next = 0
            for index in files.indices {
                if let source = sources[index] {
                    files[index].storedSHA256 = files[source].storedSHA256
                } else {
                    files[index].storedSHA256 = finished.fileSHA256s[next]
                    next += 1
                }
            }
            try Self.checkSources(identical, records: recordOfSource, files: files)
        }
        return WrittenArchive(
            size: finished.size, sha256: finished.sha256, files: files, chunks: finished.chunks, linkedFiles: linkedFiles,
            dictionary: dictionary)
    }

    /// Fails the pack when a linked file's source hashed, in the archive, to other bytes than when the links were
    /// found: it changed while it was packed, and its links may not hold its content.
    private static func checkSources(_ identical: IdenticalFiles, records: [Int: Int], files: [PackageManifest.File]) throws(PackError) {
        for (entry, digest) in identical.sourceDigests {
            guard let record = records[entry], files[record].sha256 != digest else { continue }
            throw .io(path: files[record].path, errno: 0, message: "changed while it was packed; pack again")
        }
    }

    /// Writes `entry` as a hard link to `source`, an identical file written earlier: a header, no data.
    private func writeLink(_ source: PackEntry, to entry: PackEntry, to writer: inout ArchiveWriter) throws(PackError) {
        var header = ArchiveEntryHeader(pathBytes: entry.pathBytes, kind: .hardlink, size: 0, permissions: 0o644)
        header.linkTarget = source.path
        do {
            try writer.writeHeader(header, modificationTime: modificationTime)
        } catch {
            throw .archive(error)
        }
    }

    /// Writes one regular file's header and data as the reader delivers them; returns its record (its
    /// SHA-256 empty for a chunked archive, whose hash thread supplies it). A `large` file's data has chunks of its own.
    private func writeFile(
        _ entry: PackEntry, index: Int, large: Bool, from reader: FileReadAhead, to writer: inout ArchiveWriter
    ) throws(PackError) -> PackageManifest.File {
        var dataOffset: Int64?
        while true {
            guard let (slice, bytes) = try reader.next() else {
                throw .io(path: entry.path, errno: 0, message: "was not read; validate and pack again")
            }
            precondition(slice.entryIndex == index, "the file reader runs in entry order")
            do {
                if slice.isFirst {
                    try writer.writeHeader(
                        ArchiveEntryHeader(
                            pathBytes: entry.pathBytes, kind: .regular, size: slice.fileSize, permissions: 0o644),
                        modificationTime: modificationTime)
                    dataOffset = chunked ? writer.streamOffset : nil
                    if large { try writer.cutChunk() }
                }
                try writer.writeData(bytes)
                if large, slice.isLast { try writer.cutChunk() }
            } catch {
                throw .archive(error)
            }
            if let kind = slice.executableKind {
                throw .invalid([PackageValidator.executableProblem(path: entry.path, kind: kind)])
            }
            if slice.isLast {
                return PackageManifest.File(
                    storedPath: entry.storedPath, size: slice.fileSize, storedSHA256: StoredSHA256(slice.sha256 ?? ""),
                    dataOffset: dataOffset)
            }
        }
    }

    /// Writes a directory entry's header (no data follows).
    private func writeDirectory(_ entry: PackEntry, to writer: inout ArchiveWriter) throws(PackError) {
        do {
            try writer.writeHeader(
                ArchiveEntryHeader(pathBytes: entry.pathBytes, kind: .directory, size: 0, permissions: 0o755),
                modificationTime: modificationTime)
        } catch {
            throw .archive(error)
        }
    }
}
