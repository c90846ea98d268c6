import Crypto
import SystemSupport
import Glibc

/// The files of a chunk-indexed archive that are stored once: each regular file of a variant folder
/// (`Contents/Voices#language=fr/…`) whose size and SHA-256 equal an earlier file's below `Contents/` (in tar order)
/// becomes a hard link to that earlier file, the first of its content, so variants that share a music file or a
/// `credits.txt` cost its bytes once.
///
/// Found before the archive is written (a header comes before its data), in three cheap steps: only files of at
/// least ``Packer/smallestLinkedFile`` bytes whose size a variant file has too are looked at; of those, only files
/// whose first and last 64 KiB agree with another's are hashed whole. A product without variants is not read at all
/// (its archive is what it always was), and distinct files of one size cost two small reads. The same folder gives
/// the same links, so the archive stays reproducible. The archive's own hashes decide what the manifest says: a
/// source read again for the archive must hash to what was found here (``sourceDigests``), else the pack fails
/// instead of linking files that differ.
struct IdenticalFiles {
    /// The source (entry index) of each linked entry, by the linked entry's index.
    private(set) var sources: [Int: Int] = [:]
    /// The SHA-256 (lowercase hex) each source hashed to here, by its entry index.
    private(set) var sourceDigests: [Int: String] = [:]

    /// No links: every file keeps its data.
    init() {}

    /// The links among `entries` (tar order) below `root`, for files of at least `minimumSize` bytes; `linkable` says
    /// which entries may become links (any eligible earlier file may be a source). A file that cannot be read here is
    /// left alone: the archive's reader reports it.
    init(entries: [PackEntry], root: String, minimumSize: Int64, linkable: (PackEntry) -> Bool) {
        let candidates = Self.sameSize(entries, minimumSize: minimumSize, linkable: linkable)
        guard !candidates.isEmpty else { return }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 256 << 10, alignment: 4096)
        defer { buffer.deallocate() }
        // Step 2: the first and last 64 KiB (the whole file when that is all of it).
        var byPrint: [String: [Int]] = [:]
        for index in candidates {
            let entry = entries[index]
            guard let print = Self.sha256(of: root + "/" + entry.path, size: entry.size, buffer: buffer, edgesOnly: true) else { continue }
            byPrint["\(entry.size) \(print)", default: []].append(index)
        }
        // Step 3: whole-file hashes of the files whose edges agree with another's, in tar order.
        let hashed = byPrint.values.filter { $0.count > 1 && $0.contains { linkable(entries[$0]) } }.flatMap { $0 }.sorted()
        var firstByContent: [String: Int] = [:]
        for index in hashed {
            let entry = entries[index]
            guard let digest = Self.sha256(of: root + "/" + entry.path, size: entry.size, buffer: buffer, edgesOnly: false) else { continue }
            let key = "\(entry.size) \(digest)"
            if let source = firstByContent[key] {
                if linkable(entry) { sources[index] = source }
            } else {
                firstByContent[key] = index
                sourceDigests[index] = digest
            }
        }
        let used = Set(sources.values)
        sourceDigests = sourceDigests.filter { index, _ in used.contains(index) }
    }

    /// Step 1: the eligible entries (regular, below `Contents/`, at least `minimumSize` bytes) whose size another
    /// eligible entry has and a linkable one has, in tar order. Sizes and indices sit in one flat array sorted by
    /// size (16 bytes a file, freed on return): a table of lists would cost an allocation a size.
    private static func sameSize(_ entries: [PackEntry], minimumSize: Int64, linkable: (PackEntry) -> Bool) -> [Int] {
        var sized: [(size: Int64, index: Int32, linkable: Bool)] = []
        for (index, entry) in entries.enumerated()
        where entry.kind == .regular && entry.size >= max(1, minimumSize) && entry.storedPath.utf8.starts(with: contentsPrefix) {
            sized.append((entry.size, Int32(index), linkable(entry)))
        }
        guard sized.contains(where: \.linkable) else { return [] }
        sized.sort { ($0.size, $0.index) < ($1.size, $1.index) }
        var candidates: [Int] = []
        var start = 0
        while start < sized.count {
            var end = start + 1
            while end < sized.count, sized[end].size == sized[start].size { end += 1 }
            if end - start > 1, sized[start..<end].contains(where: \.linkable) {
                candidates += sized[start..<end].map { Int($0.index) }
            }
            start = end
        }
        return candidates.sorted()
    }

    /// `Contents/`, the only place a linked file or its source lies (`ContentInfo.plist` always keeps its data).
    private static let contentsPrefix = Array("Contents/".utf8)

    /// The bytes of each edge ``sha256(of:size:buffer:edgesOnly:)`` reads for a fingerprint.
    private static let edgeBytes: Int64 = 64 << 10

    /// The SHA-256 of the `size` bytes of the file at `path` — with `edgesOnly`, of its first and last 64 KiB only
    /// (all of it when that is the whole file) — or `nil` when it cannot be read or has another size.
    private static func sha256(of path: String, size: Int64, buffer: UnsafeMutableRawBufferPointer, edgesOnly: Bool) -> String? {
        let fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG, Int64(info.st_size) == size else { return nil }
        let ranges: [Range<Int64>] = edgesOnly && size > 2 * edgeBytes ? [0..<edgeBytes, (size - edgeBytes)..<size] : [0..<size]
        var hasher = SHA256()
        for range in ranges {
            var position = range.lowerBound
            while position < range.upperBound {
                let count = pread(fd, buffer.baseAddress, Int(min(Int64(buffer.count), range.upperBound - position)), off_t(position))
                if count < 0, errno == EINTR { continue }
                guard count > 0 else { return nil }
                hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
                position += Int64(count)
            }
        }
        return hasher.finalizeHex()
    }
}
