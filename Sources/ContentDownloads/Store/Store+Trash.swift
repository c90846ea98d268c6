public import Foundation
import Glibc

extension Store {
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

    /// Deletes everything in `trash/` under the install lock (one install, delete or recovery at a time);
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
        let store = Store(existingRoot: root)
        guard lstat(store.trashDirectory.path, &info) == 0, info.st_mode & S_IFMT == S_IFDIR,
              let lock = try StoreLock(store: store, create: false)
        else { return [] }
        defer { lock.unlock() }
        return try store.removeTrashLocked()
    }

    /// Removes every entry of `trash/` and fsyncs it; the caller holds the install lock.
    func removeTrashLocked() throws(InstallError) -> [String] {
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: trashDirectory.path)) ?? []).sorted()
        for name in names {
            try FileSystemCalls.removeTree(trashDirectory.appendingPathComponent(name, isDirectory: false).path)
        }
        if !names.isEmpty { try FileSystemCalls.syncDirectory(trashDirectory.path) }
        return names
    }
}
