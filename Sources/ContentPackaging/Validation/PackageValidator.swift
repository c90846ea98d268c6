public import Foundation
import Glibc

/// Checks a content folder against every packaging rule and reports all problems in one run.
///
/// Rules: `ContentInfo.plist` (valid, see ``ContentInfo``) and a `Contents/` directory at the
/// root and nothing else there; only regular files and directories (no symlinks, FIFOs, sockets
/// or devices); no executable code (by content, see ``ExecutableSniffer``); names that pass
/// ``PathRules``; no two paths that collide ignoring case or Unicode normalization; total size at
/// most ``maxTotalBytes``. OS litter (`.DS_Store`, `._*`, …) is skipped with a note. Hard links
/// are fine (packed as ordinary files) and permission bits are ignored (packing normalizes them).
///
/// Only the first few bytes of each file are read, so memory stays flat for any package size.
public struct PackageValidator: Sendable {
    /// The default size limit: 1 TiB, what a client installs at most (`--max-size` sets a lower one).
    public static let defaultMaxTotalBytes: Int64 = 1 << 40
    /// Name of the content directory at a package root.
    public static let contentsDirectoryName = "Contents"

    /// Largest total size of regular files accepted.
    public var maxTotalBytes: Int64

    /// Creates a validator with a size limit (default 1 TiB).
    public init(maxTotalBytes: Int64 = PackageValidator.defaultMaxTotalBytes) {
        self.maxTotalBytes = maxTotalBytes
    }

    /// Validates the folder at `folder`; never throws — unreadable parts become problems.
    public func validate(folder: URL) -> ValidationReport {
        validate(folder: folder, sniffing: true)
    }

    /// Validates `folder`; with `sniffing` false, files are not opened to look for executable
    /// code. ``Packer`` does that itself while it reads each file for the archive (one open and
    /// one read per file instead of two) and asks for a full validation when it finds any.
    func validate(folder: URL, sniffing: Bool) -> ValidationReport {
        let root = Array(folder.path.utf8)
        guard let rootInfo = FolderWalker.status(of: root), FolderWalker.kind(of: rootInfo) == .directory else {
            let problem = FolderWalker.status(of: root) == nil
                ? "package folder \(folder.path) does not exist" : "package folder \(folder.path) is not a directory"
            return ValidationReport(
                contentInfo: nil, problems: [ValidationProblem(path: ".", message: problem)], notes: [], entries: [])
        }
        let walk = Self.walk(root: root)
        var layout = checkLayout(of: walk.found, folder: folder, root: root, sniffing: sniffing)
        var problems = walk.problems + layout.problems
        problems += collisions(in: layout.entries)
        problems += Self.packProblems(layout.packs, entries: layout.entries)
        let total = layout.entries.reduce(Int64(0)) { $0 + $1.size }
        if total > maxTotalBytes {
            problems.append(ValidationProblem(
                path: ".",
                message: "total size \(total) bytes exceeds the limit of \(maxTotalBytes) bytes; split the content or raise --max-size"))
        }
        layout.entries.sort { $0.pathBytes.lexicographicallyPrecedes($1.pathBytes) }
        problems.sort { lhs, rhs in
            lhs.path.utf8.elementsEqual(rhs.path.utf8)
                ? lhs.message < rhs.message : lhs.path.utf8.lexicographicallyPrecedes(rhs.path.utf8)
        }
        var report = ValidationReport(
            contentInfo: problems.isEmpty ? layout.contentInfo : nil, problems: problems, notes: walk.notes.sorted(),
            entries: layout.entries)
        report.packs = Self.declarationToCarry(layout.packs.declaration, entries: layout.entries)
        return report
    }

    /// Every entry below `root` (OS litter skipped, each with a note) and a problem for each
    /// part that could not be read.
    private static func walk(root: [UInt8]) -> (found: [FolderEntry], problems: [ValidationProblem], notes: [String]) {
        var notes: [String] = []
        var failures: [FolderWalker.Failure] = []
        let found = FolderWalker.walk(root: root, skip: { relative, name in
            guard let text = String(validating: name, as: UTF8.self), PathRules.isOSLitter(text) else { return false }
            notes.append("skipped OS litter \(String(decoding: relative, as: UTF8.self))")
            return true
        }, failures: &failures)
        let problems = failures.map { failure in
            ValidationProblem(
                path: String(decoding: failure.pathBytes, as: UTF8.self),
                message: "cannot be read (\(String(cString: strerror(failure.errno)))); check its permissions")
        }
        return (found, problems, notes)
    }

    /// What the layout check keeps: the entries to pack, the parsed `ContentInfo.plist` and the problems.
    private struct LayoutCheck {
        var entries: [FolderEntry] = []
        var contentInfo: ContentInfo?
        var problems: [ValidationProblem] = []
        /// The `Packs` and `Variants` keys of `ContentInfo.plist`, and what is wrong with them.
        var packs: (declaration: PackDeclaration, problems: [PackProblem]) = (PackDeclaration(), [])
    }

    /// Checks the root (only `ContentInfo.plist` and `Contents/`, both present, of the right
    /// kinds), parses `ContentInfo.plist` and checks every entry below `Contents/`.
    private func checkLayout(
        of found: [FolderEntry], folder: URL, root: [UInt8], sniffing: Bool
    ) -> LayoutCheck {
        var result = LayoutCheck()
        var sawContentInfo = false
        var sawContents = false
        let contentInfoName = Array(ContentInfo.fileName.utf8)
        let contentsName = Array(Self.contentsDirectoryName.utf8)
        for entry in found {
            let top = Array(entry.pathBytes.prefix(while: { $0 != UInt8(ascii: "/") }))
            let isTopLevel = top.count == entry.pathBytes.count
            if top == contentInfoName {
                guard isTopLevel else { continue }  // under a ContentInfo.plist directory: reported below
                sawContentInfo = true
                guard entry.kind == .regular else {
                    result.problems.append(ValidationProblem(
                        path: entry.path, message: "is a \(entry.kind); it must be a regular file (property list)"))
                    continue
                }
                let info = readContentInfo(in: folder)
                result.contentInfo = info.value
                result.problems += info.problems
                if let data = try? ContentInfo.readBytes(at: folder.appendingPathComponent(ContentInfo.fileName)) {
                    result.packs = PackDeclaration.read(plist: data)
                }
                result.entries.append(entry)
            } else if top == contentsName, isTopLevel {
                sawContents = true
                guard entry.kind == .directory else {
                    result.problems.append(ValidationProblem(
                        path: entry.path, message: "is a \(entry.kind); it must be a directory holding the content"))
                    continue
                }
                result.entries.append(entry)
            } else if top == contentsName {
                result.problems += check(entry, root: root, sniffing: sniffing)
                if entry.kind == .regular || entry.kind == .directory { result.entries.append(entry) }
            } else if isTopLevel {
                result.problems.append(ValidationProblem(
                    path: entry.path,
                    message: "is not allowed at the package root (only ContentInfo.plist and Contents/); move it into Contents/ or delete it"))
            }
        }
        result.problems += Self.missingRootProblems(sawContentInfo: sawContentInfo, sawContents: sawContents)
        return result
    }

    /// Problems for a missing `ContentInfo.plist` or `Contents/`.
    private static func missingRootProblems(sawContentInfo: Bool, sawContents: Bool) -> [ValidationProblem] {
        var problems: [ValidationProblem] = []
        if !sawContentInfo {
            problems.append(ValidationProblem(
                path: ContentInfo.fileName,
                message: "missing; add a property list with IAPProductIdentifier and ContentVersion"))
        }
        if !sawContents {
            problems.append(ValidationProblem(
                path: contentsDirectoryName, message: "missing; create a Contents/ directory holding the content"))
        }
        return problems
    }

    /// Parses the folder's `ContentInfo.plist` (at most ``ContentInfo/maxFileBytes`` read), listing every problem.
    private func readContentInfo(in folder: URL) -> (value: ContentInfo?, problems: [ValidationProblem]) {
        let problems: [ContentInfoError]
        var data = Data()
        do {
            data = try ContentInfo.readBytes(at: folder.appendingPathComponent(ContentInfo.fileName))
            problems = ContentInfo.problems(in: data)
        } catch {
            problems = [error]
        }
        guard problems.isEmpty else {
            return (nil, problems.map { ValidationProblem(path: ContentInfo.fileName, message: $0.detail) })
        }
        return (try? ContentInfo(data: data), [])
    }

    /// Whether the entry at `pathBytes` is content (below `Contents/`), whose bytes must not be
    /// executable code.
    static func isContent(_ pathBytes: some Collection<UInt8>) -> Bool {
        pathBytes.count > contentsPrefix.count && pathBytes.starts(with: contentsPrefix)
    }

    private static let contentsPrefix = Array("\(contentsDirectoryName)/".utf8)

    /// The problem reported for a file holding executable code of `kind`.
    static func executableProblem(path: String, kind: String) -> ValidationProblem {
        ValidationProblem(path: path, message: "is executable code (\(kind)); hosted content must be data only")
    }

    /// Name, kind and (when `sniffing`) content checks for one entry under `Contents/`.
    private func check(_ entry: FolderEntry, root: [UInt8], sniffing: Bool) -> [ValidationProblem] {
        var problems = PathRules.problems(inPath: entry.pathBytes).map {
            ValidationProblem(path: entry.path, message: $0)
        }
        switch entry.kind {
        case .regular:
            if sniffing, let kind = ExecutableSniffer.kind(ofFileAt: root + [UInt8(ascii: "/")] + entry.pathBytes) {
                problems.append(Self.executableProblem(path: entry.path, kind: kind))
            }
        case .directory:
            break
        default:
            problems.append(ValidationProblem(
                path: entry.path, message: "is a \(entry.kind); only regular files and directories can be packed"))
        }
        return problems
    }

    /// Paths that name the same file on case-insensitive or normalizing file systems (both reported).
    ///
    /// Two passes, so a million paths need a few megabytes rather than a dictionary of every key and path: the
    /// first counts each key's hash, the second compares only the paths whose hash came up more than once.
    private func collisions(in entries: [FolderEntry]) -> [ValidationProblem] {
        var hashCounts: [Int: UInt8] = [:]
        hashCounts.reserveCapacity(entries.count)
        var keyHashes: [Int?] = []
        keyHashes.reserveCapacity(entries.count)
        for entry in entries {
            let hash = String(validating: entry.pathBytes, as: UTF8.self).map { PathRules.collisionKey($0).hashValue }
            keyHashes.append(hash)
            if let hash { hashCounts[hash, default: 0] = min(2, hashCounts[hash, default: 0] + 1) }
        }
        var firstByKey: [String: String] = [:]
        var problems: [ValidationProblem] = []
        for (entry, hash) in zip(entries, keyHashes) {
            guard let hash, hashCounts[hash] == 2 else { continue }
            guard let path = String(validating: entry.pathBytes, as: UTF8.self) else { continue }
            let key = PathRules.collisionKey(path)
            if let other = firstByKey[key] {
                let why = "when case and Unicode normalization are ignored (macOS, Windows); rename one"
                problems.append(ValidationProblem(path: path, message: "collides with '\(other)' \(why)"))
                problems.append(ValidationProblem(path: other, message: "collides with '\(path)' \(why)"))
            } else {
                firstByKey[key] = path
            }
        }
        return problems
    }
}
