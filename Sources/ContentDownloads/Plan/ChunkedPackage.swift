internal import ContentPackaging

/// A schema-2 manifest checked against the archive the signed catalog names, laid out for a chunk plan that
/// writes the tar stream's file data straight into place.
///
/// Built once per transfer from the manifest the catalog vouches for (its SHA-256 is in the signed
/// catalog; the manifest's `archiveSize`, and its `archiveSHA256` when it has one, must name the very
/// archive being fetched; the chunks' SHA-256s vouch for the bytes).
/// Nothing here trusts a byte of the archive: it only says where chunks and files lie.
struct ChunkedPackage: Sendable {
    /// The manifest, as verified.
    let manifest: PackageManifest
    /// The chunk index, in archive order.
    let chunks: [ArchiveChunk]
    /// Regular files in tar-stream order (by data offset; a linked file has its source's, see ``sources``).
    let files: [PackageManifest.File]
    /// The source of each linked file (``PackageManifest/LinkedFile``), by the linked file's index: its bytes are the
    /// source's, at the source's data offset, and its tar entry is a hard link with no data. Checked with the chunk
    /// index: the source is an earlier file with data, of the same size and SHA-256.
    let sources: [Int: Int]
    /// Length of the tar stream.
    let streamLength: Int64
    /// The longest frame, which sizes the receive buffers.
    let largestFrame: Int
    /// The longest chunk, which sizes the decode buffer.
    let largestChunk: Int
    /// The manifest as messages name it.
    let manifestDisplay: String
    /// The dictionary the archive's frames were compressed with, once fetched and checked against the manifest
    /// (``DictionaryFetch``); `nil` for an archive without one (``PackageManifest/dictionary``).
    var dictionary: FrameDictionary?
    /// The packs and variants this download installs (``select(_:)``); `nil`: every file, at its path.
    private(set) var selection: PackSelection?
    /// The files the selection installs (indices, stream order), or `nil` for every file.
    private(set) var selectedFiles: [Int]?
    /// The folders the selection installs, at their install paths (`nil` with ``selectedFiles``).
    private(set) var selectedDirectories: [String]?
    /// The install path of each selected file whose path names a variant, checked when the selection was applied.
    private var installPaths: [Int: InstallPath] = [:]

    /// Checks `manifest` against the archive the catalog promised (`expectedLength`, `expectedSHA256`).
    /// - Throws: ``InstallError/archiveMismatch(path:reason:)`` naming the first problem and what to do.
    init(manifest: PackageManifest, expectedLength: Int64, expectedSHA256: String, display: String) throws(InstallError) {
        func refuse(_ reason: String) -> InstallError {
            .archiveMismatch(path: display, reason: "\(reason); the publisher must pack and publish it again")
        }
        let sha256 = manifest.archiveSHA256
        guard sha256.map({ $0.lowercased() == expectedSHA256.lowercased() }) ?? true, manifest.archiveSize == expectedLength else {
            throw refuse("the manifest describes another archive (\(manifest.archiveSize) bytes, SHA-256 \(sha256 ?? "not given")) than the catalog (\(expectedLength) bytes, \(expectedSHA256))")
        }
        guard let chunks = manifest.chunks, !chunks.isEmpty else { throw refuse("the manifest has no chunk index") }
        if let problem = manifest.chunkIndexProblems().first { throw refuse("the manifest's chunk index is wrong: \(problem)") }
        // A sound index lists the files in stream order (``PackageManifest/chunkIndexProblems()``), so this is the
        // manifest's own array, not a sorted copy of it.
        let files = manifest.files
        let total = files.reduce(Int64(0)) { $0 + $1.size }
        guard total == manifest.uncompressedSize, files.count <= InstallLimits.maxEntriesCap,
              total <= InstallLimits.maxTotalBytesCap
        else {
            throw refuse("the manifest lists \(files.count) files of \(total) bytes, but says \(manifest.uncompressedSize) bytes (at most \(InstallLimits.maxTotalBytesCap) bytes and \(InstallLimits.maxEntriesCap) entries)")
        }
        for file in files where file.dataOffset! % Int64(TarHeaderBlock.length) != 0 {
            throw refuse("\(file.path)'s data offset \(file.dataOffset!) is not on a 512-byte tar block")
        }
        self.manifest = manifest
        manifestDisplay = display
        self.chunks = chunks
        self.files = files
        sources = manifest.linkSources
        streamLength = chunks.last!.uncompressedOffset + chunks.last!.uncompressedLength
        largestFrame = Int(chunks.map(\.length).max()!)
        largestChunk = Int(chunks.map(\.uncompressedLength).max()!)
    }

    /// Where file `index` is written in the tree: its install path (`Contents/Voices/a.ogg` for
    /// `Contents/Voices#language=de/a.ogg`), which is its path for a product without variants. Checked here, right
    /// before a writer uses it, whatever check the manifest's decoder or the selection made before.
    /// - Throws: ``InstallError/refusedManifest(path:reason:)`` for a path that is not an ``InstallPath``.
    func installPath(_ index: Int) throws(InstallError) -> InstallPath {
        if let mapped = installPaths[index] { return mapped }
        do { return try InstallPath(files[index].path) } catch {
            throw .refusedManifest(path: manifestDisplay, reason: "lists \(error); the publisher must pack and publish it again")
        }
    }

    /// File `index`'s install path as messages show it (not checked: never handed to a writer).
    func displayPath(_ index: Int) -> String { installPaths[index]?.string ?? files[index].path }

    /// Applies `selection` to a manifest that declares packs or variants (one without is installed whole, as
    /// always): from here on the plan writes only the selected files, at their install paths.
    /// - Throws: ``InstallError/refusedManifest(path:reason:)`` naming the manifest and the first problem of its
    ///   declaration or variant paths.
    mutating func select(_ selection: PackSelection, display: String) throws(InstallError) {
        guard manifest.packs != nil else { return }
        let content = SelectedContent(manifest: manifest, selection: selection)
        if let problem = content.problems.first {
            throw .refusedManifest(path: display, reason: "declares packs or variants this client refuses: \(problem); the publisher must fix ContentInfo.plist, pack and publish again")
        }
        var checked: [Int: InstallPath] = [:]
        for (index, path) in content.installPaths {
            do { checked[index] = try InstallPath(path) } catch {
                throw .refusedManifest(path: display, reason: "maps \(files[index].path) to \(error); the publisher must rename it, pack and publish again")
            }
        }
        self.selection = selection
        selectedFiles = content.files
        installPaths = checked
        selectedDirectories = manifest.selecting(content).directories
    }

    /// Where a file's data ends.
    static func end(of file: PackageManifest.File) -> Int64 { file.dataOffset! + file.size }

    /// The first byte of the headers after `file` (its data rounded up to a tar block).
    static func headersAfter(_ file: PackageManifest.File) -> Int64 {
        let block = Int64(TarHeaderBlock.length)
        return (end(of: file) + block - 1) / block * block
    }

    /// The index of the chunk whose frame starts at archive byte `offset`, if any.
    func chunkIndex(startingAt offset: Int64) -> Int? {
        var low = 0, high = chunks.count
        while low < high {
            let middle = (low + high) / 2
            if chunks[middle].offset < offset { low = middle + 1 } else { high = middle }
        }
        return low < chunks.count && chunks[low].offset == offset ? low : (offset == manifest.archiveSize ? chunks.count : nil)
    }
}
