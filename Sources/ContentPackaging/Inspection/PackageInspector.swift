import SystemSupport
public import Foundation
import Crypto
import Glibc

/// Reads a packed archive end to end and checks it holds a valid package.
///
/// Checks the layout rules the client's installer applies (`ArchiveLayoutRules`: only regular
/// files and directories; names pass ``PathRules``; at the root only `ContentInfo.plist` and
/// `Contents/`; no duplicate or colliding paths, parent directories included) and that
/// `ContentInfo.plist` is a valid ``ContentInfo``. When `<name>.manifest` (or `.manifest.json`) sits beside the
/// archive, the archive's size and SHA-256 (schema 1), every file's size and SHA-256 and the
/// directory list (schema 2) are compared with it, and a chunk index (schema 2) is checked the way a
/// client uses it: each chunk decoded alone from its byte range, each file's bytes found at its data
/// offset. Everything streams: memory is flat.
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
        // An archive packed with a dictionary is decoded with the one it stores; libarchive reads the tar stream.
        var reader: ArchiveReader
        if let source = try DictionaryArchiveSource.open(path: path) {
            reader = try ArchiveReader(source: source, displayPath: path, format: .tar, blockSize: Self.blockSize)
        } else {
            reader = try ArchiveReader(path: path, blockSize: Self.blockSize)
        }
        var walk = InspectionWalk()
        walk.read(&reader, archivePath: path)
        var report = InspectionReport(
            contentInfo: walk.contentInfo, archiveSize: archiveSize, archiveSHA256: archiveSHA256,
            entryCount: walk.entryCount, files: walk.files, directories: walk.directories, manifestChecked: false,
            problems: walk.problems)
        let manifestURL = PackageNaming.manifestURL(besideArchive: archive)
        if let data = try? Data(contentsOf: manifestURL) {
            report.manifestChecked = true
            report.problems += Self.compare(report, with: data, manifestPath: manifestURL.path)
            if report.problems.isEmpty, let manifest = try? PackageManifest.decode(data) {
                report.problems += ChunkIndexVerifier.problems(archiveAt: path, manifest: manifest)
                    .map { ValidationProblem(path: manifestURL.path, message: $0) }
            }
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
        if let expected = manifest.archiveSHA256, expected != report.archiveSHA256 {  // schema 2 has none
            mismatch("archiveSHA256", expected, report.archiveSHA256)
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
        // Keyed by the stored bytes: no path is copied.
        let actual = Dictionary(report.files.map { ($0.storedPath, $0) }, uniquingKeysWith: { first, _ in first })
        let expected = Set(manifest.files.map(\.storedPath))
        for file in manifest.files {
            guard let found = actual[file.storedPath] else {
                problems.append(ValidationProblem(path: file.path, message: "listed in the manifest but not in the archive"))
                continue
            }
            if found.size != file.size {
                problems.append(ValidationProblem(
                    path: file.path, message: "size is \(found.size) bytes; the manifest says \(file.size)"))
            } else if found.storedSHA256 != file.storedSHA256 {
                problems.append(ValidationProblem(
                    path: file.path, message: "SHA-256 is \(found.sha256); the manifest says \(file.sha256)"))
            }
        }
        for file in report.files where !expected.contains(file.storedPath) {
            problems.append(ValidationProblem(path: file.path, message: "in the archive but not in the manifest"))
        }
        return problems + directoryProblems(report, manifest)
    }

    /// The directories the manifest lists that the archive lacks, and the reverse (manifests that list them).
    private static func directoryProblems(_ report: InspectionReport, _ manifest: PackageManifest) -> [ValidationProblem] {
        guard let listed = manifest.directories else { return [] }
        let expected = Set(listed.map { Array($0.utf8) })
        let actual = Set(report.directories.map { Array($0.utf8) })
        let missing = listed.filter { !actual.contains(Array($0.utf8)) }.map {
            ValidationProblem(path: $0, message: "listed in the manifest as a directory but not in the archive")
        }
        let extra = report.directories.filter { !expected.contains(Array($0.utf8)) }.map {
            ValidationProblem(path: $0, message: "a directory in the archive but not in the manifest")
        }
        return missing + extra
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
