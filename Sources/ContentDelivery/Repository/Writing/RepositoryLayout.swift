package import Foundation

/// Where a TUF repository keeps its files (consistent snapshots):
/// ```
/// <dir>/metadata/N.root.json        every root version, the chain clients follow
/// <dir>/metadata/N.targets.json     the top-level targets: the succinct hashed-bin delegation
/// <dir>/metadata/N.<bin>.json       the bins: every product's archive and manifest
/// <dir>/metadata/N.snapshot.json    every targets file's version
/// <dir>/metadata/snapshot-tree/<sha256>.json   the snapshot as a hash tree, each node named by its hash
/// <dir>/metadata/timestamp.json     the current snapshot and its tree's root (the one file rewritten in place)
/// <dir>/targets/<dir of path>/<sha256>.<name>   the target files, named by content
/// ```
package struct RepositoryLayout: Sendable {
    /// The repository folder.
    package let root: URL

    /// `targets.path`, kept: ``targetPath(_:sha256:)`` is asked two million times by a publish of a million products.
    private let targetsPath: String

    /// The layout of the repository in `root`.
    package init(root: URL) {
        self.root = root
        targetsPath = root.appendingPathComponent("targets", isDirectory: true).path
    }

    /// `<dir>/metadata`, served as the metadata base URL.
    package var metadata: URL { root.appendingPathComponent("metadata", isDirectory: true) }
    /// `<dir>/targets`, served as the targets base URL.
    package var targets: URL { root.appendingPathComponent("targets", isDirectory: true) }

    /// `metadata/<version>.<role>.json`.
    package func versioned(_ role: String, _ version: Int64) -> URL {
        metadata.appendingPathComponent("\(version).\(role).json")
    }

    /// `metadata/snapshot-tree/<sha256>.json`: a node of the snapshot tree.
    package func snapshotTreeNode(_ sha256: String) -> URL {
        metadata.appendingPathComponent("snapshot-tree", isDirectory: true).appendingPathComponent("\(sha256).json")
    }

    /// `metadata/timestamp.json`.
    package var timestamp: URL { metadata.appendingPathComponent("timestamp.json") }

    /// `targets/<dir of path>/<sha256>.<name>`: where target `path` with this hash is stored.
    package func target(_ path: String, sha256: String) -> URL {
        let parts = path.split(separator: "/").map(String.init)
        var url = targets
        for part in parts.dropLast() { url.appendPathComponent(part, isDirectory: true) }
        return url.appendingPathComponent("\(sha256).\(parts.last ?? path)")
    }

    /// ``target(_:sha256:)`` as a path.
    package func targetPath(_ path: String, sha256: String) -> String {
        guard let slash = path.lastIndex(of: "/") else { return "\(targetsPath)/\(sha256).\(path)" }
        let folders = path[..<slash].split(separator: "/").joined(separator: "/")
        return "\(targetsPath)/\(folders)/\(sha256).\(path[path.index(after: slash)...])"
    }

    /// The highest `N` of the `N.root.json` files present; `nil` when there is none.
    package func latestRootVersion() -> Int64? {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: metadata.path) else { return nil }
        return names.compactMap { name -> Int64? in
            guard name.hasSuffix(".root.json") else { return nil }
            return Int64(name.dropLast(".root.json".count))
        }.max()
    }
}
