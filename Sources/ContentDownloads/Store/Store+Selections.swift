internal import SystemSupport
internal import Logging
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
    /// packs or variants, or one installed before it declared them) or when it cannot be read
    /// (`installedSelectionState(productID:)` tells those apart).
    public func installedSelection(productID: String) -> PackSelection? {
        if case .recorded(let selection) = installedSelectionState(productID: productID) { return selection }
        return nil
    }

    /// What the store knows of the selection of `productID`'s installed folder.
    package enum SelectionState: Sendable, Equatable {
        /// Nothing to know: not installed, or installed without packs or variants.
        case none
        /// The selection the folder was built with.
        case recorded(PackSelection)
        /// The folder declares packs or variants, but no record that describes it can be read: a caller changes
        /// nothing (a default would install another language or drop a pack) and says this.
        case unreadable(String)
    }

    /// The installed folder's selection: its record (by the folder's device and inode), else — after a copy
    /// (`cp -a`, a backup restored, a move to another disk) gave the folder another identity, or when its record is
    /// torn — any other record of the product whose installed view is exactly the folder's files (paths and sizes),
    /// which is then kept again under the folder's identity. A selection is never guessed: without such a record the
    /// state is ``SelectionState/unreadable(_:)``.
    package func installedSelectionState(productID: String) -> SelectionState {
        var info = stat()
        guard Self.isValidProductID(productID), stat(contentPath + "/" + productID, &info) == 0 else { return .none }
        let own = Self.recordName(productID, device: info.st_dev, inode: info.st_ino)
        let ownFile = selectionsDirectory.appendingPathComponent(own)
        if let data = FileManager.default.contents(atPath: ownFile.path), let selection = try? JSONDecoder().decode(PackSelection.self, from: data) {
            return .recorded(selection)
        }
        guard let manifest = try? PackageManifest.decode(contentsOfFile: installedManifestFile(productID: productID).path),
              manifest.packs != nil, installedVersion(forProductID: productID) == manifest.contentVersion
        else { return .none }
        let prefix = Self.safeName(productID) + "."
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: selectionsDirectory.path)) ?? [])
            .filter { $0.hasPrefix(prefix) && $0 != own && Self.isRecordSuffix($0.dropFirst(prefix.count)) }.sorted()
        let folder = Self.fileSizes(in: contentPath + "/" + productID)
        for name in names {
            guard let data = FileManager.default.contents(atPath: selectionsDirectory.appendingPathComponent(name).path),
                  let selection = try? JSONDecoder().decode(PackSelection.self, from: data)
            else { continue }
            let view = manifest.selecting(SelectedContent(manifest: manifest, selection: selection))
            guard view.files.count == folder.count, view.files.allSatisfy({ folder[$0.path] == $0.size }) else { continue }
            try? Self.keepSelection(selection, productID: productID, treePath: contentPath + "/" + productID, in: selectionsDirectory)
            DownloadLog.queue.notice(
                "the installed folder's selection record was missing or torn; another record describes it exactly and is kept again",
                metadata: ["product": "\(productID)", "record": "\(name)"])
            return .recorded(selection)
        }
        let exists = FileManager.default.fileExists(atPath: ownFile.path)
        return .unreadable(
            "the packs and variants installed for \(productID) cannot be known: its selection record \(ownFile.path) is \(exists ? "unreadable" : "missing") and no other record in \(selectionsDirectory.path) describes the installed folder; nothing was changed — choose them again with `iapcontent packs \(productID) --select AXIS=VALUE [--add PACK]`")
    }

    /// The size of every regular file below `root`, by its path from the content folder (`Contents/a.txt`).
    private static func fileSizes(in root: String) -> [String: Int64] {
        var sizes: [String: Int64] = [:]
        var failures: [FolderWalker.Failure] = []
        FolderWalker.visit(root: Array(root.utf8), failures: &failures) { relative, kind, size in
            if kind == .regular { sizes[String(decoding: relative, as: UTF8.self)] = size }
        }
        return sizes
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

    /// Throws the reason when the installed folder of `productID` declares packs or variants whose selection cannot
    /// be known (``SelectionState/unreadable(_:)``): verify, repair, updates and pack changes then change nothing.
    package func requireKnownSelection(productID: String) throws(DownloadError) {
        if case .unreadable(let reason) = installedSelectionState(productID: productID) {
            throw DownloadError(code: .selectionUnreadable, message: reason)
        }
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
