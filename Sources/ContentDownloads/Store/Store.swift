internal import ContentPackaging
public import Foundation
internal import Synchronization
internal import SystemSupport

/// One store folder: where installed hosted content lives, and everything a client keeps to get it there.
///
/// StoreKit's `contentURL(forProductID:)` and `deleteContent(forProductID:)` on Linux, plus the
/// bookkeeping behind them. A process opens a store once (``init(root:)``) and hands that value to
/// every part that works in it — the queue, the download manager, the catalog's trust check, the
/// installer — so all of them share one set of paths, one journal connection and one pair of locks.
///
/// Layout (one file system, so every move is an atomic rename):
/// ```
/// <store>/content/<productID>/   the installed version: ContentInfo.plist + Contents/ exactly as packed
/// <store>/staging/               extractions in progress
/// <store>/trash/                 deleted content, old versions (moved here by the swap) and used archives awaiting removal
/// <store>/transfers/             a whole archive: <product>.partial while downloading, <product>-<version>.tar.zst
///                                once verified; a chunk plan: <product>-<version>.manifest.json (the signed
///                                manifest, whatever its encoding), the tree <product>-<version>.update/, its plan
///                                (.update.delta), its placed-chunks log (.update.placed) and its planning guard
///                                (.update.planning) — named by this type and deleted through it, except the tree,
///                                which the place stage wipes before it builds it again
/// <store>/manifests/             the manifest of each version installed in place, for its next update and `verify`
/// <store>/selections/            the packs and variants each installed folder was built with (by device and inode)
/// <store>/journal.sqlite         the journal (plus -wal / -shm), opened on first use
/// <store>/driver.lock            held by the one process driving downloads
/// <store>/.lock                  held while installing, deleting or recovering
/// <store>/daemon.socket          the socket path of the daemon serving the store, while it runs
/// ```
///
/// Readers that must see one version throughout should open ``contentURL(forProductID:)`` once
/// (a directory descriptor) and resolve files relative to it: an update swaps the whole folder.
public final class Store: Sendable {
    /// The store's root folder (absolute, standardized).
    public let root: URL
    /// The journal, opened by the first caller that needs it and shared by every later one.
    private let openedJournal = Mutex<SQLiteJournal?>(nil)
    /// `content/` as a path, made once: ``contentURL(forProductID:)`` is asked for every download of every
    /// status, and building it from URLs cost more than the `lstat` it guards.
    let contentPath: String
    /// The installed versions read so far, by `ContentInfo.plist` identity (``installedVersion(forProductID:)``).
    let installedVersions = Mutex<[String: InstalledVersionEntry]>([:])

    /// Opens the store at `root`, creating its folders when needed (the journal waits for its first use).
    /// - Throws: ``InstallError/system(operation:path:errno:)`` when a folder cannot be created.
    public init(root: URL) throws(InstallError) {
        self.root = root.standardizedFileURL
        contentPath = self.root.appendingPathComponent("content", isDirectory: true).path
        for url in [self.root, contentDirectory, stagingDirectory, trashDirectory, transfersDirectory] {
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw .system(operation: "create directory", path: url.path, errno: FileSystemError.posixCode(of: error))
            }
        }
    }

    /// A store value that creates nothing: for work that must never leave a file behind (``emptyTrash(atRoot:)``).
    init(existingRoot root: URL) {
        self.root = root.standardizedFileURL
        contentPath = self.root.appendingPathComponent("content", isDirectory: true).path
    }

    // MARK: Paths

    /// `content/`: one folder per installed product.
    package var contentDirectory: URL { root.appendingPathComponent("content", isDirectory: true) }
    /// `staging/`: extractions in progress.
    package var stagingDirectory: URL { root.appendingPathComponent("staging", isDirectory: true) }
    /// `trash/`: deleted content awaiting removal.
    package var trashDirectory: URL { root.appendingPathComponent("trash", isDirectory: true) }
    /// `transfers/`: partial and verified archives.
    package var transfersDirectory: URL { root.appendingPathComponent("transfers", isDirectory: true) }
    /// The SQLite journal.
    package var journalFile: URL { root.appendingPathComponent("journal.sqlite", isDirectory: false) }
    /// The file the driving process holds (``DriverLock``).
    package var driverLockFile: URL { root.appendingPathComponent("driver.lock", isDirectory: false) }
    /// The file an install, delete or recovery holds (``StoreLock``).
    package var installLockFile: URL { root.appendingPathComponent(".lock", isDirectory: false) }
    /// The path of the socket `iapcontent daemon` serves this store on, written while it runs (so `pause`,
    /// `resume`, `cancel` and `status` find it).
    package var daemonSocketFile: URL { root.appendingPathComponent("daemon.socket", isDirectory: false) }

    /// The partial file of a product's download.
    package func partialFile(productID: String) -> URL {
        transfersDirectory.appendingPathComponent("\(Self.safeName(productID)).partial", isDirectory: false)
    }

    /// The verified archive of a product version.
    package func archiveFile(productID: String, version: String) -> URL {
        transfersDirectory.appendingPathComponent(
            "\(Self.safeName(productID))-\(Self.safeName(version)).tar.zst", isDirectory: false)
    }

    /// Whether the store at `root` has a journal yet, without creating anything: `status` on a store that
    /// never downloaded has nothing to show and must not leave folders behind.
    public static func hasJournal(atRoot root: URL) -> Bool {
        FileManager.default.fileExists(atPath: Store(existingRoot: root).journalFile.path)
    }

    /// The store's one journal connection, opened (created and migrated if needed) on first use.
    ///
    /// Every actor of a process writes through this one GRDB `DatabaseQueue`, so their writes queue up
    /// instead of two SQLite connections meeting `SQLITE_BUSY` and sleeping in the busy handler.
    package func journal() throws -> SQLiteJournal {
        try openedJournal.withLock { opened in
            if let opened { return opened }
            let journal = try SQLiteJournal(path: journalFile.path)
            opened = journal
            return journal
        }
    }

    /// Product identifiers are reverse-DNS-ish; anything else becomes `_` so a name never leaves its folder.
    static func safeName(_ name: String) -> String {
        String(name.map { $0.isLetter || $0.isNumber || "._-".contains($0) ? $0 : "_" })
            .replacingOccurrences(of: "..", with: "__")
    }

    /// Whether `productID` can name one folder: a single safe path component.
    public static func isValidProductID(_ productID: String) -> Bool {
        PathRules.problems(inPath: Array(productID.utf8)).isEmpty && !productID.contains("/")
    }
}
