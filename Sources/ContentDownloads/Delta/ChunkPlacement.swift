internal import SystemSupport
internal import ContentPackaging
internal import Crypto
import Glibc

/// Writes a verified chunk's bytes into the files an update writes, at the places the new manifest gives,
/// and nowhere else: the files linked to the installed version share its inodes and are never opened for
/// writing (a written file must have one link; anything else is refused before a byte is written). Each written
/// file is hashed as its bytes arrive, in any order: a part that continues the hashed prefix is hashed from memory,
/// and the parts placed earlier that then follow on are read back from the page cache at once; at the file's end
/// the hash is checked against the manifest (``verified``). So the check is spread over the download instead of a
/// second read of every file at its end.
///
/// - Important: Owned by one thread (the preparation, then `iap-install`).
final class ChunkPlacement {
    private let package: ChunkedPackage
    /// The written files' indices, in stream order.
    private let written: [Int]
    private let tree: StagingTree
    /// The file being written and its descriptor.
    private var open: (index: Int, fd: Int32)?
    /// Per written file being hashed: the hash of its prefix, how far that reaches, and the ranges placed beyond it.
    private var hashing: [Int: (hasher: SHA256, length: Int64, ahead: [Range<Int64>])] = [:]
    /// A scratch buffer for reading placed parts back.
    private var scratch: UnsafeMutableRawBufferPointer?
    /// Written files whose every byte arrived here in order and matched the manifest's SHA-256: they need no
    /// second read before the swap.
    private(set) var verified: Set<Int> = []

    init(package: ChunkedPackage, written: [Int], tree: StagingTree) {
        self.package = package
        self.written = written
        self.tree = tree
    }

    deinit {
        if let open { close(open.fd) }
        scratch?.deallocate()
    }

    /// Writes the part of chunk `index` (its verified, uncompressed `bytes`) that falls in written files.
    func place(chunk index: Int, bytes: UnsafeRawBufferPointer) throws(InstallError) {
        let start = package.chunks[index].uncompressedOffset, end = start + Int64(bytes.count)
        var position = firstWritten(endingAfter: start)
        while position < written.count {
            let file = package.files[written[position]]
            let fileStart = file.dataOffset!, fileEnd = fileStart + file.size
            guard fileStart < end else { break }
            let from = max(start, fileStart), to = min(end, fileEnd)
            if from < to {
                let part = UnsafeRawBufferPointer(rebasing: bytes[Int(from - start)..<Int(to - start)])
                // Files are created at their full size, so zeros are holes already.
                if !Self.isAllZero(part) {
                    try tree.write(part, to: try descriptor(of: written[position]), at: from - fileStart, display: file.path)
                }
                try hash(part, of: written[position], at: from - fileStart)
            }
            position += 1
        }
    }

    /// Hashes `part` (at `offset` of written file `index`, whose descriptor is open) when it continues the file's
    /// hashed prefix, then the parts placed earlier that follow on (read back); else remembers it as placed ahead.
    /// At the file's end compares the hash with the manifest's (a mismatch fails the download before the swap).
    private func hash(_ part: UnsafeRawBufferPointer, of index: Int, at offset: Int64) throws(InstallError) {
        let file = package.files[index]
        var state = hashing[index] ?? (SHA256(), 0, [])
        let range = offset..<(offset + Int64(part.count))
        guard range.lowerBound <= state.length else {
            state.ahead.append(range)
            hashing[index] = state
            return
        }
        if range.upperBound > state.length {
            state.hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: part[Int(state.length - offset)...]))
            state.length = range.upperBound
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
        guard state.hasher.finalizeHex() == file.sha256.lowercased() else {
            DeltaPlan.remove(treePath: tree.path)  // the next attempt builds the tree again
            throw .archiveMismatch(path: tree.path + "/" + file.path, reason: "does not match the signed manifest's SHA-256 once written; the download starts over")
        }
        verified.insert(index)
    }

    /// Hashes bytes `range` of written file `index` (placed earlier, so in the page cache) read back from its descriptor.
    private func readBack(_ range: Range<Int64>, of index: Int, into hasher: inout SHA256) throws(InstallError) {
        let fd = try descriptor(of: index)
        let buffer = scratch ?? UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        scratch = buffer
        var position = range.lowerBound
        while position < range.upperBound {
            let count = pread(fd, buffer.baseAddress, Int(min(Int64(buffer.count), range.upperBound - position)), off_t(position))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                throw .system(operation: "read", path: tree.path + "/" + package.files[index].path, errno: count < 0 ? errno : EIO)
            }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            position += Int64(count)
        }
    }

    /// Hands the open file to the tree's next sync.
    func release() throws(InstallError) {
        guard let open else { return }
        self.open = nil
        let file = package.files[open.index]
        try tree.finish(open.fd, size: file.size, relative: file.path)
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

    /// The descriptor of written file `index`, opened once; a file with more than one link is refused.
    private func descriptor(of index: Int) throws(InstallError) -> Int32 {
        if let open, open.index == index { return open.fd }
        try release()
        let path = package.files[index].path
        let fd = try tree.openFile(path, truncate: false)
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_nlink == 1 else {
            close(fd)
            throw .archiveMismatch(path: tree.path + "/" + path, reason: "is shared with another file (\(info.st_nlink) links); the update starts over")
        }
        open = (index, fd)
        return fd
    }
}
