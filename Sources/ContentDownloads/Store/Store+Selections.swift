internal import SystemSupport
public import ContentPackaging
package import Foundation
import Glibc

/// The pack selection of each installed folder (`selections/<id>.<device>-<inode>.json`), and the manifest of
/// what the folder holds under it.
///
/// A record names the folder it describes by its identity (device and inode), not by the product alone: it is
/// written for the tree a download builds, before the tree is swapped in, and the swap moves that very folder
/// to `content/<id>`. So the installed selection changes in the same instant as the folder — a crash at any
/// point leaves the old folder with the old record or the new folder with the new one, never a mix.
extension Store {
    /// `selections/`.
    package var selectionsDirectory: URL { root.appendingPathComponent("selections", isDirectory: true) }

    /// Keeps `selection` as the selection of the folder at `treePath` (durably: temporary file, fsync, rename, fsync
    /// of `selections/`), so it is the installed selection once that folder is swapped in.
    static func keepSelection(
        _ selection: PackSelection, productID: String, treePath: String, in directory: URL
    ) throws(InstallError) {
        var info = stat()
        guard stat(treePath, &info) == 0 else { throw .system(operation: "stat", path: treePath, errno: errno) }
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        let data = (try? encoder.encode(selection)) ?? Data()
        // The real reason when `selections/` cannot be a folder (a file in its place, no permission), not a guess.
        if mkdir(directory.path, 0o755) != 0, errno != EEXIST {
            throw .system(operation: "mkdir", path: directory.path, errno: errno)
        }
        var folder = stat()
        guard stat(directory.path, &folder) == 0, folder.st_mode & S_IFMT == S_IFDIR else {
            throw .system(operation: "mkdir", path: directory.path, errno: ENOTDIR)
        }
        let file = directory.appendingPathComponent(recordName(productID, device: info.st_dev, inode: info.st_ino), isDirectory: false)
        do { try DurableFile.write(data, to: file) } catch {
            throw .system(operation: error.operation, path: error.path, errno: error.errno)
        }
    }

    /// The selection the installed folder of `productID` was built with; `nil` when it has none (a product without
    /// packs or variants, or one installed before it declared them).
    public func installedSelection(productID: String) -> PackSelection? {
        var info = stat()
        guard Self.isValidProductID(productID), stat(contentPath + "/" + productID, &info) == 0 else { return nil }
        let file = selectionsDirectory.appendingPathComponent(Self.recordName(productID, device: info.st_dev, inode: info.st_ino))
        guard let data = FileManager.default.contents(atPath: file.path) else { return nil }
        return try? JSONDecoder().decode(PackSelection.self, from: data)
    }

    /// Deletes the records of `productID` that describe no installed folder (trees discarded or replaced).
    package func pruneSelections(productID: String) {
        var info = stat()
        let installed = stat(contentPath + "/" + productID, &info) == 0 ? Self.recordName(productID, device: info.st_dev, inode: info.st_ino) : nil
        let prefix = Self.safeName(productID) + "."
        for name in (try? FileManager.default.contentsOfDirectory(atPath: selectionsDirectory.path)) ?? []
        where name.hasPrefix(prefix) && name != installed && Self.isRecordSuffix(name.dropFirst(prefix.count)) {
            unlink(selectionsDirectory.appendingPathComponent(name).path)
        }
    }

    /// The manifest of what the installed folder holds: the kept manifest, narrowed to the installed selection's
    /// files at their install paths when the product declares packs or variants (``PackageManifest/selecting(_:)``).
    func installedView(of manifest: PackageManifest, productID: String) -> PackageManifest {
        guard manifest.packs != nil else { return manifest }
        let selection = installedSelection(productID: productID) ?? PackSelection()
        return manifest.selecting(SelectedContent(manifest: manifest, selection: selection))
    }

    /// Whether `suffix` is `<device>-<inode>.json` (so `com.example`'s records are never `com.example.game`'s).
    private static func isRecordSuffix(_ suffix: Substring) -> Bool {
        guard suffix.hasSuffix(".json") else { return false }
        let numbers = suffix.dropLast(5).split(separator: "-", omittingEmptySubsequences: false)
        return numbers.count == 2 && numbers.allSatisfy { !$0.isEmpty && $0.allSatisfy(\.isASCII) && $0.allSatisfy(\.isNumber) }
    }

    /// `<id>.<device>-<inode>.json`.
    private static func recordName(_ productID: String, device: dev_t, inode: ino_t) -> String {
        "\(safeName(productID)).\(device)-\(inode).json"
    }
}
