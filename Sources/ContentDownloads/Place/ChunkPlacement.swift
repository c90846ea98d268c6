internal import BitCollections
internal import SystemSupport
internal import ContentPackaging
import Glibc

/// Writes a verified chunk's bytes into the files an update writes, at the places the new manifest gives,
/// and nowhere else: the files linked to the installed version share its inodes and are never opened for
/// writing (a written file must have one link; anything else is refused before a byte is written). Each written
/// file is hashed as its bytes arrive, in any order: a part that continues the hashed prefix is hashed from memory,
/// and the parts placed earlier that then follow on are read back from the page cache at once; at the file's end
/// the hash is checked against the manifest (``verified``). So the check is spread over the download instead of a
/// second read of every file at its end. A chunk's own SHA-256 and the file parts it continues are hashed in one
/// pass (``digest(chunk:bytes:)``, interleaved on the SHA extensions) into copies of the files' streams, kept only
/// when the chunk matched its signed hash: no byte is written before that. A linked file
/// (``PackageManifest/LinkedFile``) is written from its source's bytes like any file, whether or not its source is
/// written too: the two then take the same parts of the same chunks.
///
/// - Important: Owned by one thread (the preparation, then `iap-install`).
final class ChunkPlacement {
    private let package: ChunkedPackage
    /// The written files' indices, in stream order of their data (a linked file right after its source, when both
    /// are written).
    private let written: [Int]
    private let tree: StagingTree
    /// The file being written, its descriptor, and whether its length is known to be the manifest's (it was created
    /// here at that length, or written whole).
    private var open: (index: Int, fd: Int32, sized: Bool)?
    /// Per written file being hashed: the hash of its prefix, how far that reaches, and the ranges placed beyond it.
    private var hashing: [Int: (hasher: SHA256Stream, length: Int64, ahead: [Range<Int64>])] = [:]
    /// A scratch buffer for reading placed parts back.
    private var scratch: UnsafeMutableRawBufferPointer?
    /// The scratch buffer's size: parts are read back from the page cache, where a quarter of a MiB per `pread`
    /// costs no more time than a MiB and three quarters of a MiB less memory.
    static let readBackBytes = 256 << 10
    /// Written files whose every byte arrived here in order and matched the manifest's SHA-256: they need no
    /// second read before the swap.
    private(set) var verified = BitSet()

    init(package: ChunkedPackage, written: [Int], tree: StagingTree) {
        self.package = package
        self.written = written.sorted { (package.files[$0].dataOffset!, $0) < (package.files[$1].dataOffset!, $1) }
        self.tree = tree
    }

    deinit {
        if let open { close(open.fd) }
        scratch?.deallocate()
    }

    /// Chunk `index`'s SHA-256 over its uncompressed `bytes` (not yet vouched for), hashed in one pass with the
    /// parts that continue written files' hashed prefixes; those files' streams are advanced in copies, which
    /// ``place(chunk:bytes:digest:)`` keeps.
    func digest(chunk index: Int, bytes: UnsafeRawBufferPointer) -> ChunkDigest {
        var chunk = SHA256Stream()
        var continued: [Int: SHA256Stream] = [:]
        var hashed = 0
        forEachPart(of: index, length: bytes.count) { position, offset, partRange in
            let state = hashing[written[position]]
            guard offset == (state?.length ?? 0) else { return }
            var file = state?.hasher ?? SHA256Stream()
            if partRange.lowerBound < hashed {  // a linked file's part: the very bytes its source's part just took
                file.update(UnsafeRawBufferPointer(rebasing: bytes[partRange]))
            } else {
                chunk.update(UnsafeRawBufferPointer(rebasing: bytes[hashed..<partRange.lowerBound]))
                SHA256Stream.update(UnsafeRawBufferPointer(rebasing: bytes[partRange]), first: &chunk, second: &file)
                hashed = partRange.upperBound
            }
            continued[written[position]] = file
        }
        chunk.update(UnsafeRawBufferPointer(rebasing: bytes[hashed...]))
        return ChunkDigest(sha256: chunk.finish(), continued: continued)
    }

    /// Writes the part of chunk `index` (its uncompressed `bytes`, which matched `digest` against the signed
    /// index) that falls in written files, and carries the files' hashes on.
    func place(chunk index: Int, bytes: UnsafeRawBufferPointer, digest: ChunkDigest) throws(InstallError) {
        var failure: InstallError?
        forEachPart(of: index, length: bytes.count) { position, offset, partRange in
            guard failure == nil else { return }
            do throws(InstallError) {
                let part = UnsafeRawBufferPointer(rebasing: bytes[partRange])
                let index = written[position], size = package.files[index].size
                // A file is made at its full size, or with the first part when that is all of it (at 300 000 small
                // files, the tree's one syscall a file instead of four); zeros are then holes already.
                let zeros = Self.isAllZero(part)
                let fd = try descriptor(of: index, wholeFile: !zeros && offset == 0 && Int64(part.count) == size)
                if !zeros {
                    try tree.write(part, to: fd, at: offset, fileSize: size, display: package.displayPath(index))
                }
                try hash(offset..<(offset + Int64(part.count)), of: written[position], continued: digest.continued[written[position]])
            } catch {
                failure = error
            }
        }
        if let failure { throw failure }
    }

    /// Calls `body` with each written file's part of chunk `index` (`length` uncompressed bytes), in order: the
    /// file's position in ``written``, the part's offset in the file and its range in the chunk's bytes.
    private func forEachPart(of index: Int, length: Int, _ body: (Int, Int64, Range<Int>) -> Void) {
        let start = package.chunks[index].uncompressedOffset, end = start + Int64(length)
        var position = firstWritten(endingAfter: start)
        while position < written.count {
            let file = package.files[written[position]]
            let fileStart = file.dataOffset!, fileEnd = fileStart + file.size
            guard fileStart < end else { break }
            let from = max(start, fileStart), to = min(end, fileEnd)
            if from < to { body(position, from - fileStart, Int(from - start)..<Int(to - start)) }
            position += 1
        }
    }

    /// Takes the part `range` of written file `index` (its descriptor open) into the file's hash: `continued` is
    /// the file's stream advanced over it when it continued the hashed prefix; else it is remembered as placed
    /// ahead. Then hashes the parts placed earlier that follow on (read back). At the file's end compares the hash
    /// with the manifest's (a mismatch fails the download before the swap).
    private func hash(_ range: Range<Int64>, of index: Int, continued: SHA256Stream?) throws(InstallError) {
        let file = package.files[index]
        var state = hashing[index] ?? (SHA256Stream(), 0, [])
        if let continued, range.lowerBound == state.length {
            state.hasher = continued
            state.length = range.upperBound
        } else if range.upperBound > state.length {
            state.ahead.append(range)
        }
        state.ahead.sort { $0.lowerBound < $1.lowerBound }
        while let next = state.ahead.first, next.lowerBound <= state.length {
            state.ahead.removeFirst()
            if next.upperBound > state.length {
                try readBack(state.length..<next.upperBound, of: index, into: &state.hasher)
                state.length = next.upperBound
            }
        }
        guard state.length == file.size else {
            hashing[index] = state
            return
        }
        hashing[index] = nil
        guard state.hasher.finishMatches(file.sha256) else {
            throw .archiveMismatch(path: tree.path + "/" + package.displayPath(index), reason: "does not match the signed manifest's SHA-256 once written; the download starts over")
        }
        verified.insert(index)
    }

    /// Hashes bytes `range` of written file `index` (placed earlier, so in the page cache) read back from its descriptor.
    private func readBack(_ range: Range<Int64>, of index: Int, into hasher: inout SHA256Stream) throws(InstallError) {
        let fd = try descriptor(of: index)
        let buffer = scratch ?? UnsafeMutableRawBufferPointer.allocate(byteCount: ChunkPlacement.readBackBytes, alignment: 4096)
        scratch = buffer
        var position = range.lowerBound
        while position < range.upperBound {
            let count = pread(fd, buffer.baseAddress, Int(min(Int64(buffer.count), range.upperBound - position)), off_t(position))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw .system(operation: "read", path: tree.path + "/" + package.displayPath(index), errno: count < 0 ? errno : EIO)
            }
            hasher.update(UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
        }
    }

    /// Hands the open file to the tree's next sync.
    func release() throws(InstallError) {
        guard let open else { return }
        self.open = nil
        try tree.finish(open.fd, size: package.files[open.index].size, relative: self.package.displayPath(open.index), sized: open.sized)
    }

    /// Whether every byte is zero: the first is, and each equals the next (glibc's `memcmp` runs at memory speed).
    static func isAllZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first, first == 0 else { return bytes.isEmpty }
        return memcmp(bytes.baseAddress!, bytes.baseAddress! + 1, bytes.count - 1) == 0
    }

    /// The first written file whose data ends after `offset` (binary search).
    private func firstWritten(endingAfter offset: Int64) -> Int {
        var low = 0, high = written.count
        while low < high {
            let middle = (low + high) / 2
            if ChunkedPackage.end(of: package.files[written[middle]]) <= offset { low = middle + 1 } else { high = middle }
        }
        return low
    }

    /// The descriptor of written file `index`, opened once; a file with more than one link is refused. A file
    /// created here is given its full length at once, unless `wholeFile` (the part about to be written is all of it),
    /// so a checkpoint never leaves it short: the journal may count its last part as placed.
    private func descriptor(of index: Int, wholeFile: Bool = false) throws(InstallError) -> Int32 {
        if let open, open.index == index { return open.fd }
        try release()
        let path = try package.installPath(index)
        let (fd, created) = try tree.openOrCreate(path, truncate: false)
        if created {
            // New, so one link: no fstat needed.
            if !wholeFile { try tree.setLength(fd, size: package.files[index].size, relative: path.string) }
            open = (index, fd, true)
            return fd
        }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_nlink == 1 else {
            close(fd)
            throw .archiveMismatch(path: tree.path + "/" + path.string, reason: "is shared with another file (\(info.st_nlink) links); the update starts over")
        }
        open = (index, fd, false)
        return fd
    }
}

/// A chunk's SHA-256 and the written files' hash streams advanced over the parts of it that continued their hashed
/// prefixes (by file index): ``ChunkPlacement/digest(chunk:bytes:)``.
struct ChunkDigest {
    /// The chunk's uncompressed SHA-256, lowercase hex.
    let sha256: String
    /// Per file index, its stream after this chunk's part.
    let continued: [Int: SHA256Stream]
}
