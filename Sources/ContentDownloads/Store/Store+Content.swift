public import ContentDelivery
public import ContentPackaging
public import Foundation
import Glibc

extension Store {
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
            let path = contentDirectory.appendingPathComponent(productID, isDirectory: true).path
            throw .system(operation: "rename to trash", path: path, errno: errno)
        }
        try FileSystemCalls.sync(contentFD, display: contentDirectory.path)
        try FileSystemCalls.sync(trashFD, display: trashDirectory.path)
        try FileSystemCalls.removeTree(trashDirectory.appendingPathComponent(trashName, isDirectory: true).path)
        unlink(installedManifestFile(productID: productID).path)
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
