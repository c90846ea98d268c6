public import ContentDelivery
public import ContentPackaging
public import Foundation
import Glibc
internal import Synchronization

extension Store {
    /// The installed content folder (`ContentInfo.plist` + `Contents/`), or `nil` when not installed.
    public func contentURL(forProductID productID: String) -> URL? {
        guard let folder = installedFolder(productID) else { return nil }
        return URL(fileURLWithPath: folder.path, isDirectory: true)
    }

    /// The version the installed `ContentInfo.plist` states, or `nil` when not installed or unreadable.
    ///
    /// Read once per installed `ContentInfo.plist` (an install or an update swaps in a new file, so its inode
    /// changes): a service asks it for every product on every status.
    public func installedVersion(forProductID productID: String) -> ContentVersion? {
        guard let folder = installedFolder(productID) else { return nil }
        let identity = folder.identity
        if let known = installedVersions.withLock({ $0[productID] }), known.identity == identity { return known.version }
        let fd = open(folder.path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        guard let data = StagedContentInfo.read(in: fd, ContentInfo.fileName),
              let version = try? ContentInfo(data: data).contentVersion
        else { return nil }
        installedVersions.withLock { $0[productID] = InstalledVersionEntry(identity: identity, version: version) }
        return version
    }

    /// The installed folder's path and its `ContentInfo.plist`'s identity, when that is a regular file.
    private func installedFolder(_ productID: String) -> (path: String, identity: [Int])? {
        guard Self.isValidProductID(productID) else { return nil }
        let folder = contentPath + "/" + productID
        var info = stat()
        guard lstat(folder + "/" + ContentInfo.fileName, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        let identity = [Int(info.st_dev), Int(info.st_ino), Int(info.st_size), info.st_mtim.tv_sec, info.st_mtim.tv_nsec]
        return (folder, identity)
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
            let path = contentDirectory.appendingPathComponent(productID, isDirectory: true).path
            throw .system(operation: "rename to trash", path: path, errno: errno)
        }
        try FileSystemCalls.sync(contentFD, display: contentDirectory.path)
        try FileSystemCalls.sync(trashFD, display: trashDirectory.path)
        try FileSystemCalls.removeTree(trashDirectory.appendingPathComponent(trashName, isDirectory: true).path)
        unlink(installedManifestFile(productID: productID).path)
        pruneSelections(productID: productID)
        return true
    }

    /// Refuses an offered version older than the one installed in this store (no silent downgrade).
    /// Equal versions pass (a re-download).
    /// - Throws: ``DownloadError`` with code `.downgrade`.
    public func checkNoDowngrade(_ product: CatalogProduct) throws(DownloadError) {
        guard let installed = installedVersion(forProductID: product.productID) else { return }
        do { try CatalogVerifier.checkNoDowngrade(installed: installed, offered: product.contentVersion) } catch {
            throw .downgrade(productID: product.productID, installed: installed, offered: product.contentVersion)
        }
    }
}

/// A version read from an installed `ContentInfo.plist`, with the file's identity (device, inode, size,
/// modification time) when it was read.
struct InstalledVersionEntry: Sendable {
    var identity: [Int]
    var version: ContentVersion
}
