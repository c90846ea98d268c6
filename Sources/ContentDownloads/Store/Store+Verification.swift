internal import SystemSupport
internal import ContentPackaging
internal import Crypto
package import Foundation
import Glibc

/// The manifest of each installed version (`manifests/<id>.manifest.json`, holding the bytes the catalog published,
/// compact or JSON: ``PackageManifest/decode(_:)`` tells them apart) and the integrity check it allows.
extension Store {
    /// `manifests/`: the manifest of every installed chunk-indexed version.
    package var installedManifestsDirectory: URL { root.appendingPathComponent("manifests", isDirectory: true) }

    /// The manifest of the installed version of `productID` (present when it was installed from a
    /// chunk-indexed archive).
    package func installedManifestFile(productID: String) -> URL {
        installedManifestsDirectory.appendingPathComponent("\(Self.safeName(productID)).manifest.json", isDirectory: false)
    }

    /// Keeps the download's manifest as the installed version's (rename, then fsync of `manifests/`) and seals
    /// the version: the manifest's modification time becomes now, after the last byte of the version was
    /// written, so a file modified later is newer than it (``InstalledFolder``). Best effort: without the
    /// manifest an update downloads the whole archive and ``verifyContent(productID:)`` cannot run.
    package func keepInstalledManifest(productID: String, version: String) {
        try? FileManager.default.createDirectory(at: installedManifestsDirectory, withIntermediateDirectories: true)
        let source = manifestFile(productID: productID, version: version).path
        let kept = installedManifestFile(productID: productID).path
        unlink(dictionaryFile(productID: productID, version: version).path)  // a repair or an update fetches its own
        guard rename(source, kept) == 0 else { return }
        utimensat(AT_FDCWD, kept, nil, 0)
        try? FileSystemCalls.syncDirectory(installedManifestsDirectory.path)
        pruneSelections(productID: productID)
    }

    /// The installed version's manifest and its seal (see ``keepInstalledManifest(productID:version:)``), when
    /// the store keeps one for the version installed now; its file paths share the bytes of `reference`'s equal
    /// ones (the manifest an update or repair is planned against).
    func installedManifest(
        productID: String, sharingPathsWith reference: [PackageManifest.File]? = nil
    ) -> (manifest: PackageManifest, seal: timespec)? {
        let path = installedManifestFile(productID: productID).path
        var info = stat()
        guard let version = installedVersion(forProductID: productID), stat(path, &info) == 0,
              let manifest = try? PackageManifest.decode(contentsOfFile: path, sharingPathsWith: reference),
              manifest.contentVersion == version
        else { return nil }
        return (installedView(of: manifest, productID: productID), info.st_mtim)
    }

    /// Re-hashes the installed content of `productID` against the manifest it was installed from.
    /// - Throws: ``DownloadError`` (`.notInstalled`) when the product is not installed; (`.install`) when it was installed from a
    ///   one-frame archive (no manifest kept), or the manifest is of another version.
    public func verifyContent(productID: String) throws(DownloadError) -> ContentVerification {
        guard let url = contentURL(forProductID: productID), let version = installedVersion(forProductID: productID) else {
            throw DownloadError(code: .notInstalled, message: "\(productID) is not installed in \(root.path); nothing to verify")
        }
        try requireKnownSelection(productID: productID)
        let manifestPath = installedManifestFile(productID: productID).path
        guard let manifest = (try? PackageManifest.decode(contentsOfFile: manifestPath)).map({ installedView(of: $0, productID: productID) }) else {
            throw DownloadError(code: .noManifest, message: "\(productID) \(version) has no manifest in \(installedManifestsDirectory.path) (it was installed from a one-frame archive); download it again from a chunk-indexed catalog to make it verifiable")
        }
        guard manifest.contentVersion == version else {
            throw DownloadError(code: .noManifest, message: "the kept manifest describes \(productID) \(manifest.contentVersion) but \(version) is installed; download it again")
        }
        var result = ContentVerification(
            productID: productID, contentVersion: version, damaged: [], missing: [], extra: [], filesChecked: 0, bytesChecked: 0)
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        for file in manifest.files {
            switch Self.check(file, in: url, buffer: buffer) {
            case .intact(let bytes):
                result.filesChecked += 1
                result.bytesChecked += bytes
            case .damaged(let bytes):
                result.filesChecked += 1
                result.bytesChecked += bytes
                result.damaged.append(file.path)
            case .missing: result.missing.append(file.path)
            }
        }
        result.extra = Self.extraFiles(in: url, listed: manifest.files)
        return result
    }

    /// The regular files below `folder` that `files` does not list, sorted: one walk of the folder, each path
    /// looked up in `files` (sorted byte-wise, as a manifest's are) as it is met, so a million installed paths are
    /// never held at once.
    private static func extraFiles(in folder: URL, listed files: [PackageManifest.File]) -> [String] {
        let sorted = zip(files, files.dropFirst()).allSatisfy { $0.storedPath.precedes($1.storedPath) }
        // An unsorted list (a manifest written by hand) is looked up through a set of its paths.
        let lookup = sorted ? nil : Set(files.map(\.storedPath))
        func lists(_ path: [UInt8]) -> Bool {
            if let lookup { return lookup.contains(StoredPath(bytes: path)) }
            var low = 0, high = files.count
            while low < high {
                let middle = (low + high) / 2
                if files[middle].storedPath.withUTF8({ $0.lexicographicallyPrecedes(path) }) { low = middle + 1 } else { high = middle }
            }
            return low < files.count && files[low].storedPath.withUTF8 { $0.elementsEqual(path) }
        }
        var extra: [String] = []
        var failures: [FolderWalker.Failure] = []
        FolderWalker.visit(root: Array(folder.standardizedFileURL.path.utf8), failures: &failures) { relative, kind, _ in
            if kind == .regular, !lists(relative) { extra.append(String(decoding: relative, as: UTF8.self)) }
        }
        return extra.sorted()
    }

    private enum FileCheck { case intact(Int64), damaged(Int64), missing }

    /// Size, then SHA-256 of one file, read without following links through `buffer`.
    private static func check(_ file: PackageManifest.File, in folder: URL, buffer: UnsafeMutableRawBufferPointer) -> FileCheck {
        let fd = open(folder.appendingPathComponent(file.path).path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard fd >= 0 else { return .missing }
        defer { close(fd) }
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_mode & S_IFMT == S_IFREG else { return .missing }
        guard Int64(info.st_size) == file.size else { return .damaged(0) }
        var hasher = SHA256()
        var total: Int64 = 0
        while true {
            let count = read(fd, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
            total += Int64(count)
        }
        return total == file.size && hasher.finalizeHex() == file.sha256.lowercased() ? .intact(total) : .damaged(total)
    }
}
