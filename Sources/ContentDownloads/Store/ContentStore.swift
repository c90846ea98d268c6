public import ContentPackaging
public import Foundation
import Glibc

/// The folder installed hosted content lives in: StoreKit's `contentURL(forProductID:)` and
/// `deleteContent(forProductID:)` on Linux.
///
/// Layout (one file system, so every move is an atomic rename):
/// - `content/<productID>/` — the installed version: `ContentInfo.plist` + `Contents/` exactly as packed
/// - `staging/` — extractions in progress and old versions awaiting deletion (garbage after a crash)
/// - `trash/` — deleted content awaiting removal
///
/// Readers that must see one version throughout should open ``contentURL(forProductID:)`` once
/// (a directory descriptor) and resolve files relative to it: an update swaps the whole folder.
public struct ContentStore: Sendable, Equatable {
    /// The store's root folder.
    public let root: URL

    /// Opens (creating if needed) the store at `root`.
    public init(root: URL) throws(InstallError) {
        self.root = root.standardizedFileURL
        for url in [self.root, contentDirectory, stagingDirectory, trashDirectory] {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw .system(operation: "create directory", path: url.path, errno: FileSystemCalls.posixCode(of: error))
            }
        }
    }

    /// `content/`: one folder per installed product.
    public var contentDirectory: URL { root.appendingPathComponent("content", isDirectory: true) }
    /// `staging/`: extractions in progress, old versions awaiting deletion.
    public var stagingDirectory: URL { root.appendingPathComponent("staging", isDirectory: true) }
    /// `trash/`: deleted content awaiting removal.
    public var trashDirectory: URL { root.appendingPathComponent("trash", isDirectory: true) }

    /// The installed content folder (`ContentInfo.plist` + `Contents/`), or `nil` when not installed.
    public func contentURL(forProductID productID: String) -> URL? {
        guard Self.isValidProductID(productID) else { return nil }
        let url = contentDirectory.appendingPathComponent(productID, isDirectory: true)
        var info = stat()
        guard lstat(url.appendingPathComponent("ContentInfo.plist", isDirectory: false).path, &info) == 0,
              info.st_mode & S_IFMT == S_IFREG
        else { return nil }
        return url
    }

    /// The version the installed `ContentInfo.plist` states, or `nil` when not installed or unreadable.
    public func installedVersion(forProductID productID: String) -> ContentVersion? {
        guard let url = contentURL(forProductID: productID) else { return nil }
        let fd = open(url.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let data = StagedContentInfo.read(in: fd, ContentInfo.fileName) else { return nil }
        return try? ContentInfo(data: data).contentVersion
    }

    /// Product identifiers with installed content, sorted.
    public func installedProductIDs() -> [String] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: contentDirectory.path)) ?? []
        return names.filter { contentURL(forProductID: $0) != nil }.sorted()
    }

    /// Deletes installed content atomically: rename to `trash/`, fsync both folders, then remove.
    ///
    /// - Returns: `false` when nothing was installed.
    @discardableResult
    public func deleteContent(forProductID productID: String) throws(InstallError) -> Bool {
        guard Self.isValidProductID(productID) else { throw .invalidProductID(productID) }
        let contentFD = try FileSystemCalls.openDirectory(contentDirectory.path)
        defer { close(contentFD) }
        let trashFD = try FileSystemCalls.openDirectory(trashDirectory.path)
        defer { close(trashFD) }
        guard FileSystemCalls.exists(in: contentFD, productID) else { return false }
        let trashName = FileSystemCalls.scratchName(for: productID)
        if renameat(contentFD, productID, trashFD, trashName) != 0 {
            throw .system(operation: "rename to trash", path: contentDirectory.appendingPathComponent(productID, isDirectory: true).path, errno: errno)
        }
        try FileSystemCalls.sync(contentFD, display: contentDirectory.path)
        try FileSystemCalls.sync(trashFD, display: trashDirectory.path)
        try FileSystemCalls.removeTree(trashDirectory.appendingPathComponent(trashName, isDirectory: true).path)
        return true
    }

    /// Moves `path` (a file or folder on the store's file system: an old version, a used archive) into
    /// `trash/` under a fresh name — one rename instead of a deletion that takes about 0.2 s per GiB where
    /// freed blocks are discarded as they are freed. Nothing needs to be durable: `trash/` is emptied by
    /// ``emptyTrash()`` and by every recovery, and a rename lost to a power loss leaves the item where it
    /// was, which the recovery of the install handles. Returns `false` when the move failed (another file
    /// system, …) and `path` is still there; a missing `path` counts as moved.
    func moveToTrash(_ path: String) -> Bool {
        let name = FileSystemCalls.scratchName(for: (path as NSString).lastPathComponent)
        let destination = trashDirectory.appendingPathComponent(name, isDirectory: false).path
        return rename(path, destination) == 0 || errno == ENOENT
    }

    /// Whether `trash/` holds anything: deleted content, old versions or archives awaiting removal.
    public var hasTrash: Bool {
        guard let directory = opendir(trashDirectory.path) else { return false }
        defer { closedir(directory) }
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if name != "." && name != ".." { return true }
        }
        return false
    }

    /// Deletes everything in `trash/` under the store lock (one install, delete or recovery at a time);
    /// returns the names removed. Safe at any time and in any process: nothing in `trash/` is ever read.
    @discardableResult
    public func emptyTrash() throws(InstallError) -> [String] {
        let lock = try StoreLock(store: self)
        defer { lock.unlock() }
        return try removeTrashLocked()
    }

    /// Empties the trash of the store at `root` without creating anything — not even its lock file: a store
    /// (or its `trash/`, or its `.lock`) that is gone, deleted meanwhile by its owner, has nothing to empty,
    /// and a file created here would make that owner's `rm -rf` fail. For the detached `iapcontent
    /// empty-trash` a command starts as it returns.
    public static func emptyTrash(atRoot root: URL) throws(InstallError) -> [String] {
        var info = stat()
        let store = ContentStore(existingRoot: root)
        guard lstat(store.trashDirectory.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
              let lock = try StoreLock(store: store, create: false)
        else { return [] }
        defer { lock.unlock() }
        return try store.removeTrashLocked()
    }

    private init(existingRoot root: URL) {
        self.root = root.standardizedFileURL
    }

    /// Removes every entry of `trash/` and fsyncs it; the caller holds the store lock.
    func removeTrashLocked() throws(InstallError) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: trashDirectory.path)) ?? []).sorted()
        for name in names {
            try FileSystemCalls.removeTree(trashDirectory.appendingPathComponent(name, isDirectory: false).path)
        }
        if !names.isEmpty { try FileSystemCalls.syncDirectory(trashDirectory.path) }
        return names
    }

    /// Whether `productID` can name one folder: a single safe path component.
    public static func isValidProductID(_ productID: String) -> Bool {
        PathRules.problems(inPath: Array(productID.utf8)).isEmpty && !productID.contains("/")
    }
}
