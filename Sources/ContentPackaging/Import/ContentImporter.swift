public import Foundation

/// Brings Apple-hosted content home: turns what an Xcode In-App Purchase Content target builds, the Xcode
/// project holding such a target, or the package once uploaded (`productbuild --content`) into a content
/// folder that ``PackageValidator`` accepts and ``Packer`` packs.
///
/// The source kind is recognised from the path: a file starting with `xar!` is a package; a `.xcodeproj`,
/// or a folder holding exactly one, is a project; a folder holding `ContentInfo.plist` is a built target.
/// `ContentInfo.plist` is kept byte for byte (binary or XML, extra keys such as `Folder` included).
/// OS litter (`.DS_Store`, `._*` AppleDouble files) and executable code are dropped, each with an
/// ``ImportNote``; links, devices, unsafe names, paths outside the project and payloads larger than
/// declared are refused (``ImportError/refused(_:)``), under the rules the installer applies to archive
/// entries and in the same words.
///
/// The folder is built in a temporary folder beside `output` and renamed into place only when it is
/// complete and valid (files and folders fsynced first), so a refused import leaves nothing behind and
/// nothing is ever written outside `output`'s parent folder. `output` must not exist or be empty.
///
/// ```swift
/// let result = try ContentImporter().importContent(from: URL(fileURLWithPath: "Levels.pkg"),
///                                                  to: URL(fileURLWithPath: "Levels"))
/// for note in result.notes { print(note) }
/// _ = try Packer().pack(folder: result.folder, outputDirectory: URL(fileURLWithPath: "dist"))
/// ```
public struct ContentImporter: Sendable {
    /// Largest total size of the imported files (default 1 TiB, what ``PackageValidator`` allows).
    public var maxTotalBytes: Int64
    /// The target to import from an Xcode project with several In-App Purchase Content targets.
    public var targetName: String?

    /// Creates an importer.
    public init(maxTotalBytes: Int64 = PackageValidator.defaultMaxTotalBytes, targetName: String? = nil) {
        self.maxTotalBytes = maxTotalBytes
        self.targetName = targetName
    }

    /// The kind of source at `source`, or `nil` when it is none of the three.
    ///
    /// - Throws: ``ImportError/unreadableSource(path:reason:)`` for a folder holding several Xcode projects.
    public func sourceKind(of source: URL) throws(ImportError) -> ImportSourceKind? {
        var info = stat()
        guard stat(source.path, &info) == 0 else { return nil }
        if info.st_mode & S_IFMT == S_IFREG { return ProductArchiveSource.matches(source.path) ? .productArchive : nil }
        guard info.st_mode & S_IFMT == S_IFDIR else { return nil }
        if source.pathExtension == "xcodeproj" { return .xcodeProject }
        if BuiltTargetSource.matches(Array(source.path.utf8)) { return .builtTarget }
        return try XcodeProjectSource.projectBundle(in: source) == nil ? nil : .xcodeProject
    }

    /// Imports `source` into the new content folder `output`.
    ///
    /// - Returns: the folder, its `ContentInfo`, what it holds and what was dropped.
    /// - Throws: ``ImportError``; `output` is then as it was.
    public func importContent(from source: URL, to output: URL) throws(ImportError) -> ImportResult {
        let source = source.standardizedFileURL
        guard let kind = try sourceKind(of: source) else {
            throw .unreadableSource(
                path: source.path,
                reason: "is not a content folder (ContentInfo.plist + Contents/), an Xcode project or an installer package (.pkg, xar)")
        }
        let destination = output.standardizedFileURL
        if kind != .productArchive, destination.path == source.path || destination.path.hasPrefix(source.path + "/") {
            throw .unusableOutput(path: destination.path, reason: "lies inside the source; choose a folder outside it")
        }
        let target = try ImportOutput(output: destination)
        do {
            let result = try build(kind, from: source, in: target)
            try target.commit()
            return result
        } catch {
            target.discard()
            throw error
        }
    }

    /// Reads the source into the temporary folder and checks the result.
    private func build(_ kind: ImportSourceKind, from source: URL, in target: ImportOutput) throws(ImportError) -> ImportResult {
        var staging = ImportStaging(root: target.staging.path, maxTotalBytes: maxTotalBytes)
        switch kind {
        case .builtTarget:
            try BuiltTargetSource.read(Array(source.path.utf8), display: source.path, into: &staging)
        case .xcodeProject:
            guard let bundle = try XcodeProjectSource.projectBundle(in: source) else {
                throw .unreadableSource(path: source.path, reason: "holds no .xcodeproj")
            }
            try XcodeProjectSource.read(bundle: bundle, targetName: targetName, into: &staging)
        case .productArchive:
            try ProductArchiveSource.read(source, into: &staging)
        }
        if !staging.refusals.isEmpty { throw .refused(staging.refusals) }
        let report = PackageValidator(maxTotalBytes: maxTotalBytes).validate(folder: target.staging)
        guard report.isValid, let info = report.contentInfo else { throw .invalidContent(report.problems) }
        return ImportResult(
            sourceKind: kind, folder: target.output, contentInfo: info, fileCount: staging.fileCount,
            totalBytes: staging.totalBytes, notes: staging.notes)
    }
}
