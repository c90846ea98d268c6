public import Foundation

/// Where everything lives inside a store folder.
///
/// ```
/// <store>/journal.sqlite   the journal (plus -wal / -shm)
/// <store>/driver.lock      flock'ed by the one process driving downloads
/// <store>/transfers/       <product>.partial while downloading, <product>-<version>.tar.zst once verified
/// <store>/staging/         installer scratch space
/// <store>/content/         installed content
/// ```
public struct StoreLayout: Sendable, Equatable {
    /// The store folder.
    public let root: URL

    /// A layout rooted at `root` (nothing is created until ``create()``).
    public init(root: URL) { self.root = root.standardizedFileURL }

    /// The SQLite journal.
    public var journal: URL { root.appendingPathComponent("journal.sqlite", isDirectory: false) }
    /// The driver lock file.
    public var driverLock: URL { root.appendingPathComponent("driver.lock", isDirectory: false) }
    /// Partial and verified archives.
    public var transfers: URL { root.appendingPathComponent("transfers", isDirectory: true) }
    /// Installer scratch space.
    public var staging: URL { root.appendingPathComponent("staging", isDirectory: true) }
    /// Installed content.
    public var content: URL { root.appendingPathComponent("content", isDirectory: true) }

    /// The partial file of a product's download.
    public func partialFile(productID: String) -> URL {
        transfers.appendingPathComponent("\(Self.safe(productID)).partial", isDirectory: false)
    }

    /// The verified archive of a product version.
    public func archiveFile(productID: String, version: String) -> URL {
        transfers.appendingPathComponent("\(Self.safe(productID))-\(Self.safe(version)).tar.zst", isDirectory: false)
    }

    /// Creates the folders.
    public func create() throws {
        for folder in [root, transfers, staging, content] {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        }
    }

    /// Opens the store's journal.
    public func openJournal() throws -> SQLiteJournal {
        try create()
        return try SQLiteJournal(path: journal.path)
    }

    /// Product identifiers are reverse-DNS-ish; anything else becomes `_` so a name never leaves the folder.
    static func safe(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" }).replacingOccurrences(of: "..", with: "__")
    }
}
