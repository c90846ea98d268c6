internal import ContentPackaging

/// What an installed version can give an update without the network: its files by content (SHA-256 and size,
/// so a renamed file is still found), and the chunks of its archive whose bytes can be rebuilt from its files.
///
/// A chunk can be rebuilt when its bytes are one file's data, or one file's data followed by nothing but the
/// zeros that end the archive (the last chunk). Chunks holding tar headers cannot: the headers are not on disk.
/// Nothing here is trusted on its own — a rebuilt chunk is used only after its SHA-256 matches the new,
/// signed chunk index — so a damaged or changed installed file costs a fetch, never a wrong byte.
struct InstalledChunks: Sendable {
    /// Where a chunk's bytes lie in the installed files: `dataLength` bytes of `path` from `fileOffset`, then
    /// zeros up to `length`.
    struct Source: Sendable, Equatable {
        let path: String
        let fileOffset: Int64
        let dataLength: Int64
        let length: Int64
    }

    /// A file's identity by content.
    struct FileKey: Hashable, Sendable {
        let sha256: String
        let size: Int64
    }

    /// The installed version's manifest.
    let manifest: PackageManifest
    /// Rebuildable chunks by their SHA-256.
    let chunksBySHA: [String: Source]
    /// Installed paths by content (the same path first when the content did not move).
    let pathsByContent: [FileKey: [String]]
    /// Each installed file's manifest entry by path.
    let filesByPath: [String: PackageManifest.File]

    /// Indexes `manifest`, the manifest the installed version was installed from.
    init(manifest: PackageManifest) {
        self.manifest = manifest
        let files = manifest.files.filter { $0.dataOffset != nil }.sorted { $0.dataOffset! < $1.dataOffset! }
        var byContent: [FileKey: [String]] = [:]
        var byPath: [String: PackageManifest.File] = [:]
        for file in manifest.files {
            byContent[FileKey(sha256: file.sha256.lowercased(), size: file.size), default: []].append(file.path)
            byPath[file.path] = file
        }
        pathsByContent = byContent
        filesByPath = byPath
        chunksBySHA = Self.rebuildable(chunks: manifest.chunks ?? [], files: files)
    }

    /// One walk over chunks and files (both in stream order).
    private static func rebuildable(chunks: [ArchiveChunk], files: [PackageManifest.File]) -> [String: Source] {
        var sources: [String: Source] = [:]
        var next = 0
        for (index, chunk) in chunks.enumerated() {
            let start = chunk.uncompressedOffset, end = start + chunk.uncompressedLength
            while next < files.count, files[next].dataOffset! + files[next].size <= start { next += 1 }
            guard next < files.count, files[next].dataOffset! <= start else { continue }
            let file = files[next]
            let fileEnd = file.dataOffset! + file.size
            let isLast = index == chunks.count - 1 && next == files.count - 1
            guard end <= fileEnd || isLast else { continue }
            let source = Source(
                path: file.path, fileOffset: start - file.dataOffset!, dataLength: min(end, fileEnd) - start,
                length: chunk.uncompressedLength)
            if sources[chunk.sha256.lowercased()] == nil { sources[chunk.sha256.lowercased()] = source }
        }
        return sources
    }

    /// The installed paths holding `file`'s content, the same path first.
    func paths(holding file: PackageManifest.File) -> [String] {
        let paths = pathsByContent[FileKey(sha256: file.sha256.lowercased(), size: file.size)] ?? []
        return paths.contains(file.path) ? [file.path] + paths.filter { $0 != file.path } : paths
    }
}
