internal import ContentPackaging
internal import BitCollections

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
        let sha256: StoredSHA256
        let size: Int64

        init(_ file: PackageManifest.File) {
            sha256 = file.storedSHA256.caseFolded
            size = file.size
        }
    }

    /// The installed version's manifest.
    let manifest: PackageManifest
    /// Rebuildable chunks by their SHA-256.
    let chunksBySHA: [StoredSHA256: Source]
    /// The hash of every installed file's content key, sorted, with the file (index into the manifest's files) each
    /// came from in ``filesByContentHash``; equal hashes (the same content, or a clash) in file order. Two sorted
    /// columns, not a table: 12 bytes a file, so a million files' index stays small; a lookup compares the
    /// candidates' keys exactly.
    private let contentHashes: [Int]
    /// The file of each of ``contentHashes``.
    private let filesByContentHash: [Int32]

    /// Indexes `manifest`, the manifest the installed version was installed from.
    init(manifest: PackageManifest) {
        self.manifest = manifest
        // The files with data, in stream order, as indices: a copy of the records would be megabytes.
        let files = manifest.files
        // A linked file's data is its source's: one of the two holds it (either one's bytes rebuild the chunk).
        var inStream = files.indices.filter { files[$0].dataOffset != nil }.sorted { files[$0].dataOffset! < files[$1].dataOffset! }
        inStream = inStream.enumerated().filter { position, index in
            position == 0 || files[inStream[position - 1]].dataOffset! != files[index].dataOffset! || files[index].size == 0
        }.map(\.element)
        chunksBySHA = Self.rebuildable(chunks: manifest.chunks ?? [], files: files, inStream: inStream)
        var hashes = files.map { FileKey($0).hashValue }
        let order = files.indices.map(Int32.init).sorted { (hashes[Int($0)], $0) < (hashes[Int($1)], $1) }
        Self.permute(&hashes, by: order)
        contentHashes = hashes
        filesByContentHash = order
    }

    /// Puts `values` in `order` in place (`values[p]` becomes the old `values[order[p]]`), one cycle of the
    /// permutation at a time: no sorted copy beside the column (8 MB for a million files).
    static func permute(_ values: inout [Int], by order: [Int32]) {
        precondition(values.count == order.count, "one position per value")
        var done = BitSet(reservingCapacity: values.count)
        for start in values.indices where !done.contains(start) {
            let first = values[start]
            var position = start
            while true {
                done.insert(position)
                let source = Int(order[position])
                if source == start {
                    values[position] = first
                    break
                }
                values[position] = values[source]
                position = source
            }
        }
    }

    /// One walk over chunks and files (both in stream order: `inStream` lists the indices of `files` with data).
    private static func rebuildable(
        chunks: [ArchiveChunk], files: [PackageManifest.File], inStream: [Int]
    ) -> [StoredSHA256: Source] {
        var sources: [StoredSHA256: Source] = [:]
        var next = 0
        for (index, chunk) in chunks.enumerated() {
            let start = chunk.uncompressedOffset, end = start + chunk.uncompressedLength
            while next < inStream.count, files[inStream[next]].dataOffset! + files[inStream[next]].size <= start { next += 1 }
            guard next < inStream.count, files[inStream[next]].dataOffset! <= start else { continue }
            let file = files[inStream[next]]
            let fileEnd = file.dataOffset! + file.size
            let isLast = index == chunks.count - 1 && next == inStream.count - 1
            guard end <= fileEnd || isLast else { continue }
            let source = Source(
                path: file.path, fileOffset: start - file.dataOffset!, dataLength: min(end, fileEnd) - start,
                length: chunk.uncompressedLength)
            let key = chunk.storedSHA256.caseFolded
            if sources[key] == nil { sources[key] = source }
        }
        return sources
    }

    /// The installed files (indices into the manifest's files) holding `file`'s content, the one at the same path first.
    func files(holding file: PackageManifest.File) -> [Int] {
        let key = FileKey(file), hash = key.hashValue
        var low = 0, high = contentHashes.count
        while low < high {
            let middle = (low + high) / 2
            if contentHashes[middle] < hash { low = middle + 1 } else { high = middle }
        }
        var found: [Int] = []
        while low < contentHashes.count, contentHashes[low] == hash {
            let index = Int(filesByContentHash[low])
            if FileKey(manifest.files[index]) == key { found.append(index) }
            low += 1
        }
        guard let same = found.firstIndex(where: { manifest.files[$0].storedPath == file.storedPath }) else { return found }
        return [found[same]] + found[..<same] + found[(same + 1)...]
    }
}
