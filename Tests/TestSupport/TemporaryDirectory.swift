public import Foundation
import Synchronization
#if canImport(Glibc)
import Glibc
#endif

/// A fresh directory under the system temp dir, removed when the value is released.
public final class TemporaryDirectory: Sendable {
    /// The directory.
    public let url: URL
    /// The directory's path.
    public var path: String { url.path }

    /// Creates `/tmp/iapcontent-<prefix>-XXXXXX`.
    public init(_ prefix: String = "test") throws {
        var template = Array("\(NSTemporaryDirectory())/iapcontent-\(prefix)-XXXXXX".utf8CString)
        guard let made = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }) else {
            throw CocoaError(.fileWriteUnknown)
        }
        url = URL(fileURLWithPath: String(cString: made)).standardizedFileURL
    }

    deinit {
        // Make everything removable first when needed (tests chmod things).
        if (try? FileManager.default.removeItem(at: url)) == nil {
            Self.makeWritable(url.path)
            try? FileManager.default.removeItem(at: url)
        }
    }

    /// `chmod -R u+rwx` on the folders below `path` (not following symbolic links), so that everything in them
    /// can be removed.
    private static func makeWritable(_ path: String) {
        var status = stat()
        guard lstat(path, &status) == 0, status.st_mode & S_IFMT == S_IFDIR else { return }
        _ = chmod(path, (status.st_mode & 0o7777) | S_IRWXU)
        for name in (try? FileManager.default.contentsOfDirectory(atPath: path)) ?? [] {
            makeWritable(path + "/" + name)
        }
    }

    /// Creates `/tmp/iapcontent-<prefix>-<random>` for tests that keep folders past a scope. The caller may remove
    /// it; whatever is left when the test process exits is removed then (many callers, e.g. `makeStore()` and
    /// fixtures holding a store, never do).
    public static func make(prefix: String) throws -> URL {
        let url = FileManager.default.temporaryDirectory
            .appendingPathComponent("iapcontent-\(prefix)-\(UUID().uuidString.prefix(8))", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
        removeAtExit(url)
        return url
    }

    /// Folders from ``make(prefix:)``, removed by an `atexit` handler (registered with the first).
    private static let madeFolders = Mutex<[URL]>([])
    private static let exitHandler: Void = { atexit { TemporaryDirectory.removeMadeFolders() } }()

    private static func removeAtExit(_ url: URL) {
        _ = exitHandler
        madeFolders.withLock { $0.append(url) }
    }

    /// Removes what is left of every ``make(prefix:)`` folder: in-process (no child processes while exiting),
    /// making read-only folders writable first.
    private static func removeMadeFolders() {
        let folders = madeFolders.withLock { folders in
            defer { folders = [] }
            return folders
        }
        for folder in folders where FileManager.default.fileExists(atPath: folder.path) {
            if (try? FileManager.default.removeItem(at: folder)) == nil {
                makeWritable(folder.path)
                try? FileManager.default.removeItem(at: folder)
            }
        }
    }

    /// `url/relative`.
    public func appending(_ relative: String) -> URL {
        url.appendingPathComponent(relative)
    }
}
