import Crypto
import Glibc
import SystemSupport

/// Checks an archive against its manifest's chunk index the way a client will use it: every chunk read
/// by its own byte range and decoded alone (``ChunkDecoder``), and every file's bytes taken from the
/// decoded tar stream at the file's `dataOffset` must hash to the file's SHA-256.
///
/// So `inspect` proves, before publishing, that the index a client trusts is right: offsets, lengths,
/// chunk hashes and file positions alike. Memory: one chunk's frame and one chunk's bytes.
package enum ChunkIndexVerifier {
    /// Every problem found, one sentence each naming the chunk or file (empty for a schema-1 manifest).
    package static func problems(archiveAt path: String, manifest: PackageManifest) -> [String] {
        let structural = manifest.chunkIndexProblems()
        guard structural.isEmpty else { return structural }
        guard let chunks = manifest.chunks else { return [] }
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return ["cannot open \(path): \(String(cString: strerror(errno)))"] }
        defer { close(fd) }
        // The dictionary the frames need, as a client takes it: the archive's first bytes, checked against the manifest.
        var dictionary: FrameDictionary?
        if let record = manifest.dictionary {
            var stored = [UInt8](repeating: 0, count: Int(record.length))
            guard stored.withUnsafeMutableBytes({ PositionalRead.fill(fd, $0, at: 0) }) else {
                return ["the dictionary at archive byte 0: cannot read \(record.length) bytes of \(path)"]
            }
            do throws(DictionaryError) { dictionary = try FrameDictionary(stored: stored, record: record) } catch {
                return [error.message]
            }
        }
        // Sound index: every length is within the chunking maximum, itself at most `largestChunk`.
        let maximum = Int(chunks.map(\.uncompressedLength).max() ?? 0)
        var decoder = ChunkDecoder(maximumLength: maximum, dictionary: dictionary)
        let frame = UnsafeMutableRawBufferPointer.allocate(byteCount: Int(chunks.map(\.length).max() ?? 1), alignment: 64)
        defer { frame.deallocate() }
        var files = FileRangeHashes(manifest.files)
        for (index, chunk) in chunks.enumerated() {
            let view = UnsafeMutableRawBufferPointer(rebasing: frame[0..<Int(chunk.length)])
            guard PositionalRead.fill(fd, view, at: chunk.offset) else {
                return ["chunk \(index) at archive byte \(chunk.offset): cannot read \(chunk.length) bytes of \(path)"]
            }
            do {
                let bytes = try decoder.decode(UnsafeRawBufferPointer(view), as: chunk, index: index)
                files.feed(bytes, at: chunk.uncompressedOffset)
            } catch {
                return [error.description]  // later chunks' file hashes would only repeat this
            }
        }
        return files.mismatches()
    }
}

/// Running SHA-256s of the manifest's files over a tar stream fed in order, each over the byte range its
/// `dataOffset` and size name.
struct FileRangeHashes {
    private struct Pending {
        var file: PackageManifest.File
        var start: Int64
        var hasher = SHA256()
    }

    private var pending: [Pending]
    /// The first file whose range has not been fully fed yet.
    private var next = 0
    private var finished: [(PackageManifest.File, String)] = []

    /// Follows every file of `files` that has a data offset, in stream order.
    init(_ files: [PackageManifest.File]) {
        pending = files.compactMap { file in file.dataOffset.map { Pending(file: file, start: $0) } }
            .sorted { $0.start < $1.start }
    }

    /// Hashes the parts of `bytes` (the stream from `offset` on) that belong to files.
    mutating func feed(_ bytes: UnsafeRawBufferPointer, at offset: Int64) {
        let end = offset + Int64(bytes.count)
        var index = next
        while index < pending.count, pending[index].start < end {
            let fileEnd = pending[index].start + pending[index].file.size
            let from = max(offset, pending[index].start)
            let to = min(end, fileEnd)
            if from < to {
                pending[index].hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: bytes[Int(from - offset)..<Int(to - offset)]))
            }
            if fileEnd <= end {
                finished.append((pending[index].file, pending[index].hasher.finalizeHex()))
                if index == next { next += 1 }
            }
            index += 1
        }
    }

    /// Files whose bytes did not hash to their SHA-256, or that the stream never covered.
    func mismatches() -> [String] {
        var problems = finished.compactMap { file, actual in
            actual == file.sha256 ? nil
                : "\(file.path): the \(file.size) bytes at tar-stream byte \(file.dataOffset ?? -1) have SHA-256 \(actual), the manifest says \(file.sha256)"
        }
        for item in pending[next...] {
            problems.append("\(item.file.path): the chunks end before its data (tar-stream byte \(item.start), \(item.file.size) bytes)")
        }
        return problems
    }
}
