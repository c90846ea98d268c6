public import Foundation
import Crypto
import Glibc

/// Reads a packed archive end to end and checks it holds a valid package.
///
/// Checks: only regular files and directories; names pass ``PathRules``; at the root only
/// `ContentInfo.plist` (a valid ``ContentInfo``) and `Contents/`; no duplicate or colliding
/// paths. When `<name>.manifest.json` sits beside the archive, the archive's size and SHA-256
/// and every file's size and SHA-256 are compared with it. Everything streams: memory is flat.
public struct PackageInspector: Sendable {
    /// Block size for reading archive and entry data.
    public static let blockSize = 1 << 20

    /// Creates an inspector.
    public init() {}

    /// Inspects the archive at `archive`.
    ///
    /// - Throws: ``ArchiveError`` when the file cannot be opened or is not a tar (zstd) stream;
    ///   damage found while reading is reported as a problem instead.
    public func inspect(archive: URL) throws(ArchiveError) -> InspectionReport {
        let path = archive.path
        let (archiveSize, archiveSHA256) = try Self.digest(ofFileAt: path)
        var reader = try ArchiveReader(path: path, blockSize: Self.blockSize)
        var problems: [ValidationProblem] = []
        var files: [PackageManifest.File] = []
        var entryCount = 0
        var seen: Set<[UInt8]> = []
        var collisionKeys: [String: String] = [:]
        var contentInfo: ContentInfo?
        var sawContentInfo = false
        var sawContents = false
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: Self.blockSize, alignment: 16)
        defer { buffer.deallocate() }
        do {
            while let header = try reader.nextHeader() {
                entryCount += 1
                var name = header.pathBytes
                if header.kind == .directory, name.count > 1, name.last == UInt8(ascii: "/") { name.removeLast() }
                let display = String(decoding: name, as: UTF8.self)
                problems += PathRules.problems(inPath: name).map { ValidationProblem(path: display, message: $0) }
                if !seen.insert(name).inserted {
                    problems.append(ValidationProblem(path: display, message: "appears more than once in the archive"))
                } else if let text = String(validating: name, as: UTF8.self) {
                    let key = PathRules.collisionKey(text)
                    if let other = collisionKeys[key] {
                        problems.append(ValidationProblem(
                            path: display, message: "collides with '\(other)' when case and Unicode normalization are ignored"))
                    } else {
                        collisionKeys[key] = text
                    }
                }
                let top = Array(name.prefix(while: { $0 != UInt8(ascii: "/") }))
                let isTopLevel = top.count == name.count
                switch (String(decoding: top, as: UTF8.self), isTopLevel) {
                case (ContentInfo.fileName, true) where header.kind == .regular:
                    sawContentInfo = true
                case (PackageValidator.contentsDirectoryName, true) where header.kind == .directory:
                    sawContents = true
                case (PackageValidator.contentsDirectoryName, false):
                    sawContents = true
                default:
                    problems.append(ValidationProblem(
                        path: display,
                        message: "\(header.kind) is not allowed here; the root holds only ContentInfo.plist and Contents/"))
                }
                guard header.kind == .regular else {
                    if header.kind != .directory {
                        problems.append(ValidationProblem(
                            path: display, message: "is a \(header.kind) entry; only regular files and directories are allowed"))
                    }
                    continue
                }
                let isContentInfo = isTopLevel && top == Array(ContentInfo.fileName.utf8)
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
                        problems.append(ValidationProblem(path: display, message: error.detail))
                    }
                }
                files.append(PackageManifest.File(path: display, size: size, sha256: hasher.finalizeHex()))
            }
        } catch {
            problems.append(ValidationProblem(path: path, message: "damaged archive: \(error.message)"))
        }
        if !sawContentInfo {
            problems.append(ValidationProblem(path: ContentInfo.fileName, message: "missing from the archive"))
        }
        if !sawContents {
            problems.append(ValidationProblem(
                path: PackageValidator.contentsDirectoryName, message: "missing from the archive"))
        }
        var report = InspectionReport(
            contentInfo: contentInfo, archiveSize: archiveSize, archiveSHA256: archiveSHA256, entryCount: entryCount,
            files: files, manifestChecked: false, problems: problems)
        let manifestURL = archive.deletingLastPathComponent()
            .appendingPathComponent(PackageNaming.manifestName(forArchiveName: archive.lastPathComponent))
        if let data = try? Data(contentsOf: manifestURL) {
            report.manifestChecked = true
            report.problems += Self.compare(report, with: data, manifestPath: manifestURL.path)
        }
        return report
    }

    /// Every difference between what was read and the manifest beside the archive.
    static func compare(_ report: InspectionReport, with data: Data, manifestPath: String) -> [ValidationProblem] {
        let manifest: PackageManifest
        do {
            manifest = try PackageManifest.decode(data)
        } catch {
            return [ValidationProblem(path: manifestPath, message: "is not a valid manifest (\(error)); pack again")]
        }
        var problems: [ValidationProblem] = []
        func mismatch(_ field: String, _ expected: String, _ actual: String) {
            problems.append(ValidationProblem(
                path: manifestPath, message: "\(field) is \(expected) but the archive's is \(actual)"))
        }
        if manifest.archiveSize != report.archiveSize {
            mismatch("archiveSize", "\(manifest.archiveSize)", "\(report.archiveSize)")
        }
        if manifest.archiveSHA256 != report.archiveSHA256 {
            mismatch("archiveSHA256", manifest.archiveSHA256, report.archiveSHA256)
        }
        if manifest.uncompressedSize != report.uncompressedSize {
            mismatch("uncompressedSize", "\(manifest.uncompressedSize)", "\(report.uncompressedSize)")
        }
        if manifest.entryCount != report.entryCount {
            mismatch("entryCount", "\(manifest.entryCount)", "\(report.entryCount)")
        }
        if let info = report.contentInfo {
            if manifest.productID != info.productID { mismatch("productID", manifest.productID, info.productID) }
            if manifest.contentVersion.description != info.contentVersion.description {
                mismatch("contentVersion", manifest.contentVersion.description, info.contentVersion.description)
            }
        }
        let actual = Dictionary(report.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        let expected = Dictionary(manifest.files.map { ($0.path, $0) }, uniquingKeysWith: { first, _ in first })
        for file in manifest.files {
            guard let found = actual[file.path] else {
                problems.append(ValidationProblem(path: file.path, message: "listed in the manifest but not in the archive"))
                continue
            }
            if found.size != file.size {
                problems.append(ValidationProblem(
                    path: file.path, message: "size is \(found.size) bytes; the manifest says \(file.size)"))
            } else if found.sha256 != file.sha256 {
                problems.append(ValidationProblem(
                    path: file.path, message: "SHA-256 is \(found.sha256); the manifest says \(file.sha256)"))
            }
        }
        for file in report.files where expected[file.path] == nil {
            problems.append(ValidationProblem(path: file.path, message: "in the archive but not in the manifest"))
        }
        return problems
    }

    /// Size and SHA-256 of a file, read in blocks.
    static func digest(ofFileAt path: String) throws(ArchiveError) -> (Int64, String) {
        let fd = open(path, O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else {
            let code = errno
            throw ArchiveError(errno: code, message: "cannot open: \(String(cString: strerror(code)))", path: path)
        }
        defer { close(fd) }
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: blockSize, alignment: 16)
        defer { buffer.deallocate() }
        var hasher = SHA256()
        var size: Int64 = 0
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0 {
                if errno == EINTR { continue }
                let code = errno
                throw ArchiveError(errno: code, message: "cannot read: \(String(cString: strerror(code)))", path: path)
            }
            if count == 0 { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            size += Int64(count)
        }
        return (size, hasher.finalizeHex())
    }
}
