internal import ContentPackaging
internal import SystemSupport
internal import CLinuxSystem
import Glibc

/// The folder a chunk-indexed download writes its files into, `transfers/<product>-<version>.update/`: it survives
/// pauses, crashes and reboots (unlike `staging/`, which recovery empties), so an interrupted install
/// continues inside the file it was writing.
///
/// Every path is walked from the tree's descriptor with `O_NOFOLLOW|O_DIRECTORY`, directories are made
/// `0755` and files `0644`, owners, times and modes from the archive are never restored — the same rules as
/// ``SafeExtractor``. Writes start their writeback at once (`sync_file_range`, not waiting), so a checkpoint's
/// ``sync()`` mostly finds the data on its way already. ``sync()`` is what makes the install resumable: every
/// file written and every directory given a new entry since the last one is fsynced.
///
/// - Important: Owned by one install thread (not thread-safe).
final class StagingTree {
    /// The tree's path, for messages.
    let path: String
    private let fd: Int32
    /// The folder of the file written last, kept open: files of one folder follow each other.
    private var parent: (components: ArraySlice<String>, fd: Int32)?
    /// Files finished since the last ``sync()``.
    private var finished = PendingFileSyncs()
    /// Files made by ``create(_:size:)`` or small files finished since the last ``sync()``, which makes them durable
    /// in one `syncfs`.
    private var createdSinceSync = false
    /// Files below this size neither start their writeback as they are written nor are fsynced one by one: the
    /// next ``sync()``'s one `syncfs` makes them durable together. Each file's own writeback and fsync is an I/O
    /// submission of its own (in a virtual machine, a doorbell each), which at 300 000 files of 2 KiB was most of the
    /// install's time; a larger file starts its writeback as it is written, so its I/O overlaps the download.
    static let smallFileBytes: Int64 = 1 << 20
    /// Folders (relative, `""` for the root) given a new entry since the last ``sync()``.
    private var changedFolders: Set<String> = []
    /// Bytes the package needs in all, for the space error.
    private let expectedBytes: Int64
    /// Whether the process's umask takes bits of `0644` away, so a new file needs an `fchmod` (read once per tree
    /// from `/proc/self/status`: at 300 000 files an `fchmod` each is a syscall each that the usual umask `022`
    /// makes pointless).
    private let umaskNarrowsFiles = StagingTree.umaskNarrows(0o644)

    /// Opens the tree at `path`, creating it (and leaving what it holds) when `wipe` is false, or empty.
    init(path: String, wipe: Bool, expectedBytes: Int64) throws(InstallError) {
        self.path = path
        self.expectedBytes = expectedBytes
        if wipe { try FileSystemCalls.removeTree(path) }
        if mkdir(path, 0o755) != 0, errno != EEXIST {
            throw Self.spaceError(errno, path: path, expected: expectedBytes) ?? .system(operation: "mkdir", path: path, errno: errno)
        }
        fd = try FileSystemCalls.openDirectory(path)
        fchmod(fd, 0o755)
        changedFolders.insert("")
    }

    deinit {
        if let parent { close(parent.fd) }
        close(fd)
    }

    /// Makes the folder `relative` (and its parents) if missing.
    func makeDirectory(_ relative: InstallPath) throws(InstallError) {
        close(try openFolder(relative.components.map(String.init)[...]))
    }

    /// Opens the file `relative` for writing and reading back (created `0644` if missing; emptied when `truncate`); the
    /// caller owns the descriptor.
    func openFile(_ relative: InstallPath, truncate: Bool) throws(InstallError) -> Int32 {
        try openOrCreate(relative, truncate: truncate).fd
    }

    /// ``openFile(_:truncate:)``, and whether this call created the file (empty, so the caller knows its length).
    func openOrCreate(_ relative: InstallPath, truncate: Bool) throws(InstallError) -> (fd: Int32, created: Bool) {
        let components = relative.components.map(String.init)
        let folder = components.dropLast()
        let parentFD = try parentFolder(folder)
        var file = openat(parentFD, components.last!, O_RDWR | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        let created = file >= 0
        if created {
            changedFolders.insert(folder.joined(separator: "/"))
            // 0644 whatever the umask; a file opened again below kept the mode it was made with.
            if umaskNarrowsFiles { fchmod(file, 0o644) }
        } else if errno == EEXIST {
            file = openat(parentFD, components.last!, O_RDWR | O_NOFOLLOW | O_CLOEXEC | (truncate ? O_TRUNC : 0))
        }
        guard file >= 0 else {
            let code = errno
            throw spaceError(code) ?? .system(operation: "create", path: path + "/" + relative.string, errno: code)
        }
        return (file, created)
    }

    /// Sets the length of `file`, just created for `relative`, to `size` (a hole until its bytes arrive), closing it
    /// on failure.
    func setLength(_ file: Int32, size: Int64, relative: String) throws(InstallError) {
        guard ftruncate(file, off_t(size)) != 0 else { return }
        let code = errno
        close(file)
        throw spaceError(code) ?? .system(operation: "truncate", path: path + "/" + relative, errno: code)
    }

    /// Whether the umask clears any of `mode`'s bits; true when it cannot be read.
    static func umaskNarrows(_ mode: mode_t) -> Bool {
        let fd = open("/proc/self/status", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return true }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 8192)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0, let mask = umask(inStatus: String(decoding: bytes[0..<count], as: UTF8.self)) else { return true }
        return mask & mode != 0
    }

    /// The umask a `/proc/<pid>/status` text names on its `Umask:` line (octal), or `nil` when it names none.
    static func umask(inStatus status: String) -> mode_t? {
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("Umask:") }) else { return nil }
        let digits = line.dropFirst("Umask:".count).filter { !$0.isWhitespace }
        guard !digits.isEmpty, digits.allSatisfy({ ("0"..."7").contains($0) }) else { return nil }
        return mode_t(digits, radix: 8)
    }

    /// Makes `relative` a second link to the file `name` in the open folder `directory` (an unchanged file of
    /// the installed version: same file system, no copy).
    func link(_ name: String, in directory: Int32, as relative: InstallPath) throws(InstallError) {
        let components = relative.components.map(String.init)
        let folder = components.dropLast()
        let parentFD = try parentFolder(folder)
        guard linkat(directory, name, parentFD, components.last!, 0) == 0 else {
            throw spaceError(errno) ?? .system(operation: "link", path: path + "/" + relative.string, errno: errno)
        }
        changedFolders.insert(folder.joined(separator: "/"))
    }

    /// The open folder `components` below the tree (the last one asked for stays open).
    private func parentFolder(_ folder: ArraySlice<String>) throws(InstallError) -> Int32 {
        if parent == nil || parent!.components != folder {
            if let parent { close(parent.fd) }
            parent = nil
            parent = (folder, try openFolder(folder))
        }
        return parent!.fd
    }

    /// Writes `bytes` at `offset` of `file` (a file of `fileSize` bytes) and, unless it is a small file, starts their
    /// writeback.
    func write(_ bytes: UnsafeRawBufferPointer, to file: Int32, at offset: Int64, fileSize: Int64, display: String) throws(InstallError) {
        var done = 0
        while done < bytes.count {
            let count = pwrite(file, bytes.baseAddress! + done, bytes.count - done, off_t(offset + Int64(done)))
            if count < 0, errno == EINTR { continue }
            guard count > 0 else {
                let code = count < 0 ? errno : EIO
                throw spaceError(code) ?? .system(operation: "write", path: path + "/" + display, errno: code)
            }
            done += count
        }
        if fileSize >= Self.smallFileBytes { _ = CLinuxSystem_startWriteback(file, offset, Int64(bytes.count)) }
    }

    /// Takes a file whose data is complete, sets its length to `size` (zeros that were never written become holes)
    /// unless the caller knows it `sized`, and fsyncs and closes it at a later ``sync()`` (or sooner, when many wait);
    /// a small file is closed now and made durable by the next ``sync()``'s `syncfs`.
    func finish(_ file: Int32, size: Int64, relative: @autoclosure () -> String, sized: Bool = false) throws(InstallError) {
        // Most files already have their length (made at it, or written whole): a truncate to the same length still
        // walks ext4's extents and journals the inode, at 300 000 files a measurable share of an install.
        var info = stat()
        if !sized, fstat(file, &info) != 0 || Int64(info.st_size) != size, ftruncate(file, off_t(size)) != 0 {
            let code = errno
            close(file)
            throw spaceError(code) ?? .system(operation: "truncate", path: path + "/" + relative(), errno: code)
        }
        guard size >= Self.smallFileBytes else {
            createdSinceSync = true
            if close(file) != 0 { throw syncFailure("close", errno, path + "/" + relative()) }
            return
        }
        try finished.add(file, path: path + "/" + relative(), failure: syncFailure)
    }

    /// Creates the file `relative` (emptied if it exists) at `size` bytes, all a hole until chunks are placed in
    /// it, and closes it. The next ``sync()`` makes every file created so far durable with one `syncfs` of the tree's
    /// file system instead of an fsync each (an fsync of a new file is a journal commit of its own).
    func create(_ relative: InstallPath, size: Int64) throws(InstallError) {
        let file = try openFile(relative, truncate: true)
        createdSinceSync = true
        if ftruncate(file, off_t(size)) != 0 {
            let code = errno
            close(file)
            throw spaceError(code) ?? .system(operation: "truncate", path: path + "/" + relative.string, errno: code)
        }
        if close(file) != 0 { throw .system(operation: "close", path: path + "/" + relative.string, errno: errno) }
    }

    /// Makes everything written so far durable: the created and the small finished files (one `syncfs`, which also
    /// makes every folder's new entries durable), the large finished files, `open` (a file still being written),
    /// then, when no `syncfs` ran, every folder that gained an entry, deepest first.
    func sync(open: Int32? = nil) throws(InstallError) {
        if createdSinceSync {
            guard CLinuxSystem_syncFileSystem(fd) == 0 else { throw syncFailure("syncfs", errno, path) }
            createdSinceSync = false
            changedFolders.removeAll()
        }
        try finished.syncAll(failure: syncFailure)
        if let open, fsync(open) != 0 { throw syncFailure("fsync", errno, path) }
        for folder in changedFolders.sorted(by: { $0.count > $1.count }) {
            let descriptor = try openFolder(folder.split(separator: "/").map(String.init)[...])
            defer { close(descriptor) }
            try FileSystemCalls.sync(descriptor, display: folder.isEmpty ? path : path + "/" + folder)
        }
        changedFolders.removeAll()
    }

    /// The size of the regular file `relative`, or `nil` when it is missing or not a regular file.
    func size(of relative: String) -> Int64? {
        var info = stat()
        guard fstatat(fd, relative, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG else { return nil }
        return Int64(info.st_size)
    }

    /// Opens (making as needed, `0755`) the folder `components` below the tree; returns an owned descriptor.
    private func openFolder(_ components: ArraySlice<String>) throws(InstallError) -> Int32 {
        var current = dup(fd)
        guard current >= 0 else { throw .system(operation: "dup", path: path, errno: errno) }
        var relative = ""
        for component in components {
            let parentRelative = relative
            relative = relative.isEmpty ? component : relative + "/" + component
            let display = path + "/" + relative
            // Every path arrives as an ``InstallPath``; this holds the walk itself to the same rule, so no
            // component can lead out of the tree whoever calls it.
            guard !component.isEmpty, component != ".", component != "..", !component.utf8.contains(0) else {
                close(current)
                throw .refusedManifest(path: display, reason: "has an empty, '.' or '..' component; nothing is written outside the tree")
            }
            var next: Int32?
            do throws(InstallError) {
                next = try FileSystemCalls.openDirectory(in: current, component, display: display)
                if next == nil {
                    if mkdirat(current, component, 0o755) != 0, errno != EEXIST {
                        throw spaceError(errno) ?? .system(operation: "mkdir", path: display, errno: errno)
                    }
                    changedFolders.insert(parentRelative)
                    next = try FileSystemCalls.openDirectory(in: current, component, display: display)
                    if let next { fchmod(next, 0o755) }
                }
            } catch {
                close(current)
                throw error
            }
            close(current)
            guard let next else { throw .system(operation: "open directory", path: display, errno: ENOENT) }
            current = next
        }
        return current
    }

    private var syncFailure: (_ operation: String, _ errno: Int32, _ path: String) -> InstallError {
        let expected = expectedBytes
        return { operation, code, path in
            Self.spaceError(code, path: path, expected: expected) ?? .system(operation: operation, path: path, errno: code)
        }
    }

    private func spaceError(_ code: Int32) -> InstallError? { Self.spaceError(code, path: path, expected: expectedBytes) }

    /// ENOSPC/EDQUOT → ``InstallError/insufficientSpace(needed:available:)``.
    private static func spaceError(_ code: Int32, path: String, expected: Int64) -> InstallError? {
        guard code == ENOSPC || code == EDQUOT else { return nil }
        return .insufficientSpace(needed: expected, available: FileSystemCalls.availableBytes(path))
    }
}
