internal import SystemSupport
public import ContentDelivery
public import ContentPackaging
import CLinuxSystem
import Crypto
public import Foundation
import Glibc

/// Installs a verified archive into a ``Store`` — safely and atomically.
///
/// 1. Open the archive once; check its length and (by default) re-verify its SHA-256 on that
///    descriptor — hashing costs a fraction of decompressing and fsyncing, and it closes the gap
///    between the engine's check and this open.
/// 2. Preflight free space (``SpacePreflight``).
/// 3. Pre-scan every header through the same descriptor (`EntryPolicy`): nothing is written
///    unless every entry is acceptable.
/// 4. Seek back to 0 and extract into `staging/<productID>-<random>/` (`SafeExtractor`), which
///    must repeat the pre-scan exactly and stays within its sizes.
/// 5. Check the extracted `ContentInfo.plist` names the promised product and version.
/// 6. Swap into `content/<productID>` with `renameat2(RENAME_EXCHANGE)` (or `RENAME_NOREPLACE` for
///    a first install), fsync the parent, delete the old tree and the archive.
///
/// Any failure before step 6 leaves the installed version untouched and removes the staging
/// folder; a crash leaves garbage only under `staging/`, which ``recover(store:)`` removes.
/// Failures after the swap (deleting the old tree or the archive) do not fail the install: the new
/// version is live and ``recover(store:)`` finishes the cleanup (`cleaned` is then not reported).
///
/// Swaps and recovery of one store are serialised by an exclusive `flock` on `<store>/.lock`
/// (across threads and processes). Extraction runs unlocked in a `StagingFolder` whose own
/// `flock` keeps recovery away from it, so several packages extract at once.
/// The call blocks: run it off any cooperative thread (the download engine's own thread).
public enum ContentInstaller {
    /// Choices the caller may change (tests turn off space margins, keep archives, …).
    public struct Options: Sendable {
        /// Re-hash the archive on the install descriptor and compare with the catalog's SHA-256.
        public var verifySHA256 = true
        /// Delete the archive after a successful install.
        public var removeArchive = true
        /// Free-space check before extraction; `nil` skips it (extraction still maps ENOSPC).
        public var spacePreflight: SpacePreflight? = .standard
        /// Receives `extracting`, `swapped`, `cleaned`.
        public var observer: (any InstallPhaseObserver)?
        /// Move the old version and the archive into the store's `trash/` after the swap instead of deleting
        /// them there: the install is done as soon as the new version is live. Deleting costs about 0.2 s per
        /// GiB on a file system that discards freed blocks as it frees them (`discard`; `docs/PERFORMANCE.md`).
        /// The caller empties the trash later (``Store/emptyTrash()``: the CLI starts a
        /// detached `iapcontent empty-trash`), and every store recovery empties it too.
        public var deferDeletion = false
        /// Extract while the archive downloads (``ContentQueue`` only): the install is nearly free
        /// after the last byte, and nothing is swapped in before the SHA-256 matched. `false`
        /// verifies the whole archive before libarchive reads a byte of it.
        public var overlapWithDownload = true

        /// The defaults: verify, remove the archive, 1 % + 16 MiB margin, no observer.
        public init(
            verifySHA256: Bool = true, removeArchive: Bool = true,
            spacePreflight: SpacePreflight? = .standard, observer: (any InstallPhaseObserver)? = nil,
            overlapWithDownload: Bool = true, deferDeletion: Bool = false
        ) {
            self.deferDeletion = deferDeletion
            self.overlapWithDownload = overlapWithDownload
            self.verifySHA256 = verifySHA256
            self.removeArchive = removeArchive
            self.spacePreflight = spacePreflight
            self.observer = observer
        }
    }

    /// Installs `archive` as `product` into `store`; returns the content URL.
    ///
    /// - Parameters:
    ///   - archive: the downloaded `.tar.zst`, already length- and hash-checked by the engine.
    ///   - product: what the (signed) catalog promised: id, version, length, SHA-256, sizes.
    ///   - store: where to install.
    ///   - manifest: optional package manifest; when given, every file's size must match it.
    ///   - options: see ``Options``.
    /// - Throws: ``InstallError``; the previously installed version is intact.
    @discardableResult
    public static func install(
        archive: URL, product: CatalogProduct, store: Store,
        manifest: PackageManifest? = nil, options: Options = Options()
    ) throws(InstallError) -> URL {
        let productID = product.productID
        guard Store.isValidProductID(productID) else { throw .invalidProductID(productID) }
        let archivePath = archive.path
        let archiveFD = open(archivePath, O_RDONLY | O_CLOEXEC)
        guard archiveFD >= 0 else { throw .system(operation: "open archive", path: archivePath, errno: errno) }
        defer { close(archiveFD) }
        try checkArchive(fd: archiveFD, path: archivePath, product: product, verifySHA256: options.verifySHA256)
        if let preflight = options.spacePreflight {
            try preflight.check(store: store, archiveLength: 0, uncompressedSize: product.uncompressedSize)
        }

        let limits = InstallLimits(product: product, manifest: manifest)
        let plan = try prescan(archiveFD, path: archivePath, limits: limits)
        let staging = try StagingFolder(store: store, productID: productID, expectedBytes: plan.totalBytes)
        do throws(InstallError) {
            options.observer?.install(of: productID, reached: .extracting)
            var reader = try openReader(archiveFD, path: archivePath)
            var extractor = SafeExtractor(stagingFD: staging.fd, stagingPath: staging.path)
            try extractor.extract(from: &reader, plan: plan, limits: limits)
        } catch {
            staging.remove()
            throw error
        }
        return try commit(staging, product: product, store: store, archivePath: archivePath, options: options)
    }

    /// Makes an extracted staging folder the installed version: checks its `ContentInfo.plist`,
    /// swaps it into `content/<productID>` under the store lock, fsyncs the parents, then
    /// deletes the old version and (when asked) the archive. Used by ``install(archive:product:store:manifest:options:)``
    /// and by installs that extracted while downloading.
    ///
    /// - Throws: ``InstallError``; the staging folder is removed and the installed version is intact.
    static func commit(
        _ staging: StagingFolder, product: CatalogProduct, store: Store, archivePath: String?,
        options: Options
    ) throws(InstallError) -> URL {
        let productID = product.productID
        let lock: StoreLock
        do {
            try StagedContentInfo.verify(stagingFD: staging.fd, stagingPath: staging.path, product: product)
            // Every file and folder inside staging is already fsynced (`SafeExtractor`). The staging
            // folder's own name in `staging/` need not be durable before the rename: the fsyncs of both
            // parents after it make the new name durable, and until then a power loss shows the
            // previous version. (This fsync cost one of 13 per small package.)
            lock = try StoreLock(store: store)
        } catch {
            staging.remove()
            throw error
        }
        defer { lock.unlock() }
        let stagingRootFD = staging.rootFD
        let stagingName = staging.name
        let stagingPath = staging.path
        let stagingRoot = staging.rootPath
        var swapped = false
        do throws(InstallError) {
            let contentFD = try FileSystemCalls.openDirectory(store.contentDirectory.path)
            defer { close(contentFD) }
            let replacing = FileSystemCalls.exists(in: contentFD, productID)
            let flags = UInt32(replacing ? CLINUXSYSTEM_RENAME_EXCHANGE : CLINUXSYSTEM_RENAME_NOREPLACE)
            if CLinuxSystem_renameat2(stagingRootFD, stagingName, contentFD, productID, flags) != 0 {
                throw InstallError.system(
                    operation: replacing ? "renameat2(RENAME_EXCHANGE)" : "renameat2(RENAME_NOREPLACE)",
                    path: store.contentDirectory.appendingPathComponent(productID, isDirectory: true).path, errno: CLinuxSystem_errno())
            }
            swapped = true
            CrashHook.reach(.swap)
            do throws(InstallError) {
                try FileSystemCalls.sync(contentFD, display: store.contentDirectory.path)
                try FileSystemCalls.sync(stagingRootFD, display: stagingRoot)
            } catch {
                // Not durable: put the previous state back so the caller's "failed" stays true.
                let undo = UInt32(replacing ? CLINUXSYSTEM_RENAME_EXCHANGE : CLINUXSYSTEM_RENAME_NOREPLACE)
                if CLinuxSystem_renameat2(contentFD, productID, stagingRootFD, stagingName, undo) == 0 {
                    swapped = false
                }
                throw error
            }
            options.observer?.install(of: productID, reached: .swapped)
        } catch {
            if !swapped { staging.remove() }
            throw error
        }
        // The new version is live. Cleanup is best effort: `recover(store:)` finishes it after a failure.
        // After an exchange the old version sits at the staging path.
        if cleanUp(oldVersion: stagingPath, archivePath: options.removeArchive ? archivePath : nil, store: store, options: options) {
            options.observer?.install(of: productID, reached: .cleaned)
        }
        return store.contentDirectory.appendingPathComponent(productID, isDirectory: true)
    }

    /// Removes what a swap left behind — the old version (at the staging path) and the used archive —
    /// or, with ``Options/deferDeletion``, renames them into `trash/` (deleting here only what cannot be
    /// moved). Returns whether everything is gone from where it was.
    private static func cleanUp(oldVersion: String, archivePath: String?, store: Store, options: Options) -> Bool {
        var cleaned = true
        if options.deferDeletion {
            if !store.moveToTrash(oldVersion) { cleaned = (try? FileSystemCalls.removeTree(oldVersion)) != nil }
            if let archivePath, !store.moveToTrash(archivePath), unlink(archivePath) != 0, errno != ENOENT {
                cleaned = false
            }
        } else {
            cleaned = (try? FileSystemCalls.removeTree(oldVersion)) != nil
            if let archivePath, unlink(archivePath) != 0, errno != ENOENT { cleaned = false }
        }
        return cleaned
    }

    /// What ``recover(store:)`` removed.
    public struct Recovery: Sendable, Equatable {
        /// Staging folders removed (partial extractions and old versions left after a swap).
        public var removedStaging: [String]
        /// Trash folders removed (interrupted deletes).
        public var removedTrash: [String]
    }

    /// Finishes or undoes whatever a crash interrupted; idempotent, run when the store is opened.
    ///
    /// `content/<id>` is only ever changed by atomic renames, so it always holds a whole version;
    /// everything under `staging/` and `trash/` is garbage and is deleted.
    @discardableResult
    public static func recover(store: Store) throws(InstallError) -> Recovery {
        let lock = try StoreLock(store: store)
        defer { lock.unlock() }
        var recovery = Recovery(removedStaging: [], removedTrash: [])
        let directory = store.stagingDirectory
        let names = ((try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []).sorted()
        for name in names {
            let path = directory.appendingPathComponent(name, isDirectory: true).path
            if StagingFolder.isInUse(path) { continue }  // a live install is filling it
            try FileSystemCalls.removeTree(path)
            recovery.removedStaging.append(name)
        }
        if !names.isEmpty { try FileSystemCalls.syncDirectory(directory.path) }
        recovery.removedTrash = try store.removeTrashLocked()
        return recovery
    }

    /// The header pre-scan through `fd`; its reader is freed before extraction opens another.
    private static func prescan(_ fd: Int32, path: String, limits: InstallLimits) throws(InstallError) -> ExtractionPlan {
        var scanner = try openReader(fd, path: path)
        return try EntryPolicy.prescan(&scanner, limits: limits)
    }

    /// A reader at offset 0 of `fd` (the same descriptor for hashing, pre-scan and extraction). An archive packed with
    /// a dictionary is decoded with the one it stores: the whole archive matched the signed catalog's SHA-256 first.
    private static func openReader(_ fd: Int32, path: String) throws(InstallError) -> ArchiveReader {
        try rewind(fd, path: path)
        do {
            if let source = try DictionaryArchiveSource.open(descriptor: fd, path: path) {
                return try ArchiveReader(source: source, displayPath: path, format: .tar)
            }
            return try ArchiveReader(fileDescriptor: fd, displayPath: path)
        } catch { throw .archive(error) }
    }

    private static func rewind(_ fd: Int32, path: String) throws(InstallError) {
        if lseek(fd, 0, SEEK_SET) != 0 { throw .system(operation: "lseek", path: path, errno: errno) }
    }

    /// Length must equal the catalog's; SHA-256 too when asked (read through `fd`, flat memory).
    private static func checkArchive(fd: Int32, path: String, product: CatalogProduct, verifySHA256: Bool) throws(InstallError) {
        var info = stat()
        guard fstat(fd, &info) == 0 else { throw .system(operation: "stat", path: path, errno: errno) }
        guard info.st_mode & S_IFMT == S_IFREG else {
            throw .archiveMismatch(path: path, reason: "not a regular file")
        }
        guard Int64(info.st_size) == product.length else {
            throw .archiveMismatch(path: path, reason: "archive is \(info.st_size) bytes but the catalog says \(product.length)")
        }
        guard verifySHA256 else { return }
        var hasher = SHA256()
        var buffer = [UInt8](repeating: 0, count: 1 << 16)
        var offset: off_t = 0
        while true {
            let count = buffer.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, offset) }
            if count < 0 {
                if errno == EINTR { continue }
                throw .system(operation: "read archive", path: path, errno: errno)
            }
            if count == 0 { break }
            hasher.update(data: buffer[0..<count])
            offset += off_t(count)
        }
        let digest = hasher.finalizeHex()
        guard digest == product.sha256.lowercased() else {
            throw .archiveMismatch(path: path, reason: "SHA-256 is \(digest) but the catalog says \(product.sha256)")
        }
    }
}
