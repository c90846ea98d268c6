internal import SystemSupport
internal import ContentPackaging
internal import Crypto
import Glibc

/// Writes a verified chunk's bytes into the files an update writes, at the places the new manifest gives,
/// and nowhere else: the files linked to the installed version share its inodes and are never opened for
/// writing (a written file must have one link; anything else is refused before a byte is written). A file whose
/// bytes all pass through in order is hashed on the way and checked against the manifest at its end (``verified``).
///
/// - Important: Owned by one thread (the preparation, then `iap-install`).
final class ChunkPlacement {
    private let package: ChunkedPackage
    /// The written files' indices, in stream order.
    private let written: [Int]
    private let tree: StagingTree
    /// The file being written and its descriptor.
    private var open: (index: Int, fd: Int32)?
    /// The file whose bytes have so far arrived in order from its first, their hash and how far it reaches.
    private var streamed: (index: Int, hasher: SHA256, length: Int64)?
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

    /// Hashes `part` (at `offset` of written file `index`) when the file's bytes have arrived in order so far; at
    /// the file's end compares the hash with the manifest's (a mismatch fails the update before the swap).
    private func hash(_ part: UnsafeRawBufferPointer, of index: Int, at offset: Int64) throws(InstallError) {
        if streamed?.index != index { streamed = offset == 0 ? (index, SHA256(), 0) : nil }
        guard var current = streamed, current.length == offset else {
            streamed = nil
            return
        }
        current.hasher.update(bufferPointer: part)
        current.length += Int64(part.count)
        streamed = current
        let file = package.files[index]
        guard current.length == file.size else { return }
        streamed = nil
        guard current.hasher.finalizeHex() == file.sha256.lowercased() else {
            DeltaPlan.remove(treePath: tree.path)  // the next attempt builds the tree again
            throw .archiveMismatch(path: tree.path + "/" + file.path, reason: "does not match the signed manifest's SHA-256 once written; the download starts over")
        }
        verified.insert(index)
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
