internal import ContentPackaging
import Glibc

/// Writes a verified chunk's bytes into the files an update writes, at the places the new manifest gives,
/// and nowhere else: the files linked to the installed version share its inodes and are never opened for
/// writing (a written file must have one link; anything else is refused before a byte is written).
///
/// - Important: Owned by one thread (the preparation, then `iap-install`).
final class ChunkPlacement {
    private let package: ChunkedPackage
    /// The written files' indices, in stream order.
    private let written: [Int]
    private let tree: StagingTree
    /// The file being written and its descriptor.
    private var open: (index: Int, fd: Int32)?

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
                if !TarStreamInstaller.isAllZero(part) {
                    try tree.write(part, to: try descriptor(of: written[position]), at: from - fileStart, display: file.path)
                }
            }
            position += 1
        }
    }

    /// Hands the open file to the tree's next sync.
    func release() throws(InstallError) {
        guard let open else { return }
        self.open = nil
        let file = package.files[open.index]
        try tree.finish(open.fd, size: file.size, relative: file.path)
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
