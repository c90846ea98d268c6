@testable import ContentPackaging

/// Sound manifests for the compact-format tests, built from a list of numbers so a property test can
/// draw them: folders, files with sizes and data offsets, chunks covering the tar stream.
enum CompactManifestSamples {
    /// A sound chunk-indexed (schema 2) manifest drawn from `seeds`: one file per seed in up to four
    /// folders (non-ASCII names among them), data offsets 512 bytes apart, chunks of at most 16 KiB.
    static func chunked(_ seeds: [UInt64]) -> PackageManifest {
        let folders = ["Contents", "Contents/a", "Contents/a/b", "Contents/levels", "Contents/ünï"]
        var files: [PackageManifest.File] = []
        var paths = Set<String>()
        for (index, seed) in seeds.enumerated() {
            let folder = folders[1 + Int(seed % 4)]
            let path = "\(folder)/f\(seed >> 40 % 1000)-\(index).bin"
            guard paths.insert(path).inserted else { continue }
            files.append(PackageManifest.File(path: path, size: Int64(seed % 40_000), sha256: hex(seed &+ UInt64(index))))
        }
        files.sort { Array($0.path.utf8).lexicographicallyPrecedes(Array($1.path.utf8)) }
        var end: Int64 = 0
        for index in files.indices {
            files[index].dataOffset = end + 512
            end += 512 + (files[index].size + 511) / 512 * 512
        }
        let stream = end + 1024
        // One sample in three stores a dictionary first (`pack --dictionary`): the chunks start after it.
        let dictionary = seeds.first.flatMap { seed in
            seed % 3 == 0
                ? ArchiveDictionary(length: Int64(9 + seed % 5000), size: Int64(1 + seed % (1 << 20)), id: UInt32(1 + seed % 0xFFFF_FFFE), sha256: hex(seed))
                : nil
        }
        var chunks: [ArchiveChunk] = []
        var offset: Int64 = dictionary?.length ?? 0
        var start: Int64 = 0
        while start < stream {
            let length = min(16_384, stream - start)
            let frame = 1 + (length * 7 + start) % 20_000
            chunks.append(ArchiveChunk(offset: offset, length: frame, uncompressedOffset: start, uncompressedLength: length, sha256: hex(UInt64(start))))
            offset += frame
            start += length
        }
        return PackageManifest(
            productID: "com.example.samples", contentVersion: ContentVersion("2.0.1")!, archiveName: "com.example.samples-2.0.1.tar.zst",
            archiveSize: offset, archiveSHA256: nil, uncompressedSize: files.reduce(0) { $0 + $1.size },
            entryCount: files.count + folders.count, files: files, directories: folders,
            chunking: ChunkingDescription(algorithm: "gear-fastcdc-1", minimum: 1024, average: 4096, maximum: 16_384),
            chunks: chunks, dictionary: dictionary)
    }

    /// A one-frame (schema 1) manifest: no chunks, no directories, no data offsets, the archive's SHA-256.
    static func oneFrame(_ seeds: [UInt64]) -> PackageManifest {
        var manifest = chunked(seeds)
        for index in manifest.files.indices { manifest.files[index].dataOffset = nil }
        return PackageManifest(
            productID: manifest.productID, contentVersion: manifest.contentVersion, archiveName: manifest.archiveName,
            archiveSize: manifest.archiveSize, archiveSHA256: hex(99), uncompressedSize: manifest.uncompressedSize,
            entryCount: manifest.files.count, files: manifest.files)
    }

    /// 64 lowercase hex digits drawn from `seed`.
    static func hex(_ seed: UInt64) -> String {
        var state = seed
        var digits = ""
        for _ in 0..<64 {
            state = state &* 6364136223846793005 &+ 1442695040888963407
            digits.append(Array("0123456789abcdef")[Int(state >> 60)])
        }
        return digits
    }
}
