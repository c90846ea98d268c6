import SystemSupport
import Crypto
import Foundation

/// One pass of ``PackageInspector`` over an archive's entries, in archive order.
///
/// Every header goes through ``ArchiveLayoutRules``, whose refusals become problems (the walk
/// goes on, so one run reports everything); every regular file is read and hashed, and the root
/// `ContentInfo.plist` is parsed. Data moves through one buffer of ``PackageInspector/blockSize``
/// bytes, owned by the walk (hence noncopyable).
struct InspectionWalk: ~Copyable {
    /// Layout problems, `ContentInfo.plist` problems and archive damage, in the order found.
    var problems: [ValidationProblem] = []
    /// Every regular file with its size and SHA-256.
    var files: [PackageManifest.File] = []
    /// Every directory entry's path (no trailing `/`), in archive order.
    var directories: [String] = []
    /// Number of headers read.
    var entryCount = 0
    /// The root `ContentInfo.plist`, when present and valid (the last one, if there are several).
    var contentInfo: ContentInfo?
    private var layout = ArchiveLayoutRules()
    private let buffer: UnsafeMutableRawBufferPointer

    /// A walk that has read nothing yet.
    init() {
        buffer = .allocate(byteCount: PackageInspector.blockSize, alignment: 16)
    }

    deinit {
        buffer.deallocate()
    }

    /// Reads every entry of `reader`; damage becomes a problem on `archivePath` and ends the walk.
    /// Root entries that never appeared are reported last.
    mutating func read(_ reader: inout ArchiveReader, archivePath: String) {
        do {
            while let header = try reader.nextHeader() {
                entryCount += 1
                let verdict = layout.classify(header)
                for refusal in verdict.refusals {
                    problems += refusal.inspectionMessages(kind: header.kind).map {
                        ValidationProblem(path: verdict.path, message: $0)
                    }
                }
                if header.kind == .regular {
                    try readFile(&reader, path: verdict.path, isContentInfo: verdict.place == .contentInfo)
                } else if header.kind == .hardlink, verdict.refusals.isEmpty, let target = header.linkTarget, let source = file(at: target) {
                    // A file stored once for an earlier identical one: its bytes are the earlier file's.
                    files.append(PackageManifest.File(path: verdict.path, size: source.size, sha256: source.sha256))
                } else if header.kind == .directory {
                    directories.append(verdict.path)
                }
            }
        } catch {
            problems.append(ValidationProblem(path: archivePath, message: "damaged archive: \(error.message)"))
        }
        problems += layout.missingRootEntries.map { ValidationProblem(path: $0, message: "missing from the archive") }
    }

    /// The file read earlier at `path` (files come sorted byte-wise by path from `pack`: a binary search, else a scan).
    private func file(at path: String) -> PackageManifest.File? {
        let key = Array(path.utf8)
        var low = 0, high = files.count
        while low < high {
            let middle = (low + high) / 2
            if files[middle].storedPath.utf8.lexicographicallyPrecedes(key) { low = middle + 1 } else { high = middle }
        }
        if low < files.count, files[low].storedPath.utf8.elementsEqual(key) { return files[low] }
        return files.last { $0.storedPath.utf8.elementsEqual(key) }
    }

    /// Reads the current entry's data, hashing it; parses it when it is the root `ContentInfo.plist`.
    private mutating func readFile(_ reader: inout ArchiveReader, path: String, isContentInfo: Bool) throws(ArchiveError) {
        var hasher = SHA256()
        var size: Int64 = 0
        var plist = Data()
        while true {
            let count = try reader.read(into: buffer)
            if count == 0 { break }
            let chunk = UnsafeRawBufferPointer(rebasing: buffer[0..<count])
            hasher.update(bufferPointer: chunk)
            size += Int64(count)
            if isContentInfo, plist.count <= ContentInfo.maxFileBytes { plist.append(contentsOf: chunk) }
        }
        if isContentInfo {
            do {
                contentInfo = try ContentInfo(data: plist)
            } catch {
                problems.append(ValidationProblem(path: path, message: error.detail))
            }
        }
        files.append(PackageManifest.File(path: path, size: size, sha256: hasher.finalizeHex()))
    }
}
