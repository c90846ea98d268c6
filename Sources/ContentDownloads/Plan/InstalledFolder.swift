internal import SystemSupport
internal import ContentPackaging
internal import Crypto
import Glibc

/// The installed version's folder, read (never written) by an update or a repair: paths are walked from the
/// folder's descriptor without following links, and a file counts as unchanged only when it is a regular file
/// of the manifest's size that was last modified before the version was sealed (``seal``) — else it is hashed.
///
/// Why a seal: linking unchanged files must not cost reading them, yet a file edited or damaged by hand must
/// not slip into the new version. Every write changes a file's modification time, and the store sets the
/// kept manifest's modification time when the version is installed, after the last byte was written; so a
/// file modified later is newer than the manifest. A file the check cannot vouch for is hashed, and used only
/// if it still matches.
///
/// - Important: Owned by one thread.
final class InstalledFolder {
    let path: String
    private let fd: Int32
    /// The version's seal (the kept manifest's modification time); `nil`: hash every file used.
    private let seal: timespec?

    /// Paths known to be damaged (a repair's verification): never linked (their chunks may still be read: each
    /// is checked against its signed hash).
    private let distrusted: Set<String>

    init(path: String, seal: timespec?, distrusted: Set<String> = []) throws(InstallError) {
        self.path = path
        self.seal = seal
        self.distrusted = distrusted
        fd = try FileSystemCalls.openDirectory(path)
    }

    deinit { close(fd) }

    /// Runs `body` with the open folder holding `relative` and the last component; `nil` when a folder on the
    /// way is missing or is not a folder.
    func withParent<T>(of relative: String, _ body: (Int32, String) throws(InstallError) -> T) throws(InstallError) -> T? {
        let components = relative.split(separator: "/").map(String.init)
        guard let name = components.last else { return nil }
        var current = dup(fd)
        guard current >= 0 else { return nil }
        defer { close(current) }
        for component in components.dropLast() {
            guard let next = try? FileSystemCalls.openDirectory(in: current, component, display: path + "/" + relative) else { return nil }
            close(current)
            current = next
        }
        return try body(current, name)
    }

    /// Whether the installed file at `relative` still holds `file`'s content (see the type's discussion).
    func holds(_ file: PackageManifest.File, at relative: String) -> Bool {
        guard !distrusted.contains(relative) else { return false }
        let result: Bool? = try? withParent(of: relative) { parent, name in
            var info = stat()
            guard fstatat(parent, name, &info, AT_SYMLINK_NOFOLLOW) == 0, info.st_mode & S_IFMT == S_IFREG,
                  Int64(info.st_size) == file.size
            else { return false }
            if let seal, Self.isBefore(info.st_mtim, seal) { return true }
            return Self.sha256(parent, name) == file.sha256.lowercased()
        }
        return result ?? false
    }

    /// Reads `count` bytes of `relative` at `offset` into `buffer`; false when the file is missing or short.
    func read(_ relative: String, at offset: Int64, count: Int, into buffer: UnsafeMutableRawBufferPointer) -> Bool {
        let result: Bool? = try? withParent(of: relative) { parent, name in
            let file = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
            guard file >= 0 else { return false }
            defer { close(file) }
            var done = 0
            while done < count {
                let got = pread(file, buffer.baseAddress! + done, count - done, off_t(offset + Int64(done)))
                if got < 0, errno == EINTR { continue }
                guard got > 0 else { return false }
                done += got
            }
            return true
        }
        return result ?? false
    }

    private static func isBefore(_ time: timespec, _ seal: timespec) -> Bool {
        time.tv_sec < seal.tv_sec || (time.tv_sec == seal.tv_sec && time.tv_nsec < seal.tv_nsec)
    }

    /// The SHA-256 of a file, read without following links.
    private static func sha256(_ parent: Int32, _ name: String) -> String? {
        let file = openat(parent, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC)
        guard file >= 0 else { return nil }
        defer { close(file) }
        var hasher = SHA256()
        let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: 1 << 20, alignment: 4096)
        defer { buffer.deallocate() }
        while true {
            let count = Glibc.read(file, buffer.baseAddress, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count >= 0 else { return nil }
            if count == 0 { return hasher.finalizeHex() }
            hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: buffer[0..<count]))
        }
    }
}
