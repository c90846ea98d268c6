import Crypto
import SystemSupport
import Glibc

/// The files of a chunk-indexed archive that are stored once: each regular file under `Contents/` whose size and
/// SHA-256 equal an earlier file's (in tar order) becomes a hard link to that earlier file, the first of its
/// content, so two variants that share a music file or a `credits.txt` cost its bytes once.
///
/// Found before the archive is written (a header comes before its data): only files of at least
/// ``Packer/smallestLinkedFile`` bytes whose size another such file has are read and hashed here, so content
/// without repeated sizes costs no second read. The same folder gives the same links, so the archive stays
/// reproducible. The archive's own hashes decide what the manifest says: a source read again for the archive must
/// hash to what was found here (``sourceDigests``), else the pack fails instead of linking files that differ.
struct IdenticalFiles {
    /// The source (entry index) of each linked entry, by the linked entry's index.
    private(set) var sources: [Int: Int] = [:]
    /// The SHA-256 (lowercase hex) each source hashed to here, by its entry index.
    private(set) var sourceDigests: [Int: String] = [:]

    /// No links: every file keeps its data.
    init() {}

    /// The links among `entries` (tar order) below `root`, for files of at least `minimumSize` bytes. A file that
    /// cannot be read here is left alone: the archive's reader reports it.
    init(entries: [PackEntry], root: String, minimumSize: Int64) {
        // Sizes and indices in one flat array sorted by size (16 bytes a file, freed before the archive is written):
        // a table of lists would cost an allocation a size, megabytes for a million files.
        var sized: [(size: Int64, index: Int32)] = []
        for (index, entry) in entries.enumerated()
        where entry.kind == .regular && entry.size >= max(1, minimumSize) && entry.storedPath.utf8.starts(with: Self.contentsPrefix) {
            sized.append((entry.size, Int32(index)))
        }
        sized.sort { ($0.size, $0.index) < ($1.size, $1.index) }
        var candidates: [Int] = []
        for (position, item) in sized.enumerated()
        where (position > 0 && sized[position - 1].size == item.size) || (position + 1 < sized.count && sized[position + 1].size == item.size) {
            candidates.append(Int(item.index))
        }
        sized = []
        candidates.sort()
        var firstByContent: [String: Int] = [:]
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 4096)
        defer { buffer.deallocate() }
        for index in candidates {
            let entry = entries[index]
            guard let digest = Self.sha256(of: root + "/" + entry.path, size: entry.size, buffer: buffer) else { continue }
            let key = "\(entry.size) \(digest)"
            if let source = firstByContent[key] {
                sources[index] = source
            } else {
                firstByContent[key] = index
                sourceDigests[index] = digest
            }
        }
        let used = Set(sources.values)
        sourceDigests = sourceDigests.filter { index, _ in used.contains(index) }
    }

    /// `Contents/`, the only place a linked file or its source lies (`ContentInfo.plist` always keeps its data).
    private static let contentsPrefix = Array("Contents/".utf8)

    /// The SHA-256 of the `size` bytes of the file at `path`, or `nil` when it cannot be read or has another size.
    private static func sha256(of path: String, size: Int64, buffer: UnsafeMutableRawBufferPointer) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var hasher = SHA256()
        var total: Int64 = 0
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += Int64(count)
        }
        guard total == size else { return nil }
        return hasher.finalizeHex()
    }
}
