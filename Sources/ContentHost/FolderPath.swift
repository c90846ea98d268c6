import Foundation
import Glibc

/// Maps a request path onto a file inside the served folder, or refuses it.
///
/// Refused with 400: anything not starting with `/`, bad percent-encoding, empty, `.` or `..`
/// segments (plain or percent-encoded, e.g. `%2e%2e`), encoded `/` or `\`, backslashes and NUL.
/// Refused with 404: hidden names (leading `.`, which also hides the builder's temp files),
/// directories, missing files, and anything whose real path (after following symlinks) leaves
/// the folder.
struct FolderPath {
    /// The served folder's real path, without a trailing slash.
    let root: String

    enum Resolution: Equatable {
        /// An existing path: its real path and that real path relative to the root
        /// (`archives/x.tar.zst`; symlinks inside the folder are already resolved).
        case file(realPath: String, relative: String)
        /// Malformed or traversal attempt.
        case invalid
        /// Not servable.
        case notFound
    }

    /// Resolves `root` itself to a real path.
    init(root: URL) throws {
        guard let real = realpath(root.path, nil) else {
            throw FileSystemFailure(operation: "realpath", path: root.path, errno: errno)
        }
        defer { free(real) }
        var path = String(cString: real)
        while path.count > 1, path.hasSuffix("/") { path.removeLast() }
        self.root = path
    }

    /// Resolves a raw (percent-encoded) request path.
    func resolve(_ rawPath: String) -> Resolution {
        guard rawPath.hasPrefix("/") else { return .invalid }
        var segments: [String] = []
        for raw in rawPath.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            guard let segment = String(raw).removingPercentEncoding else { return .invalid }
            if segment.isEmpty || segment == "." || segment == ".." || segment.contains("/")
                || segment.contains("\\") || segment.contains("\0")
            {
                return .invalid
            }
            if segment.hasPrefix(".") { return .notFound }
            segments.append(segment)
        }
        guard let real = realpath(root + "/" + segments.joined(separator: "/"), nil) else { return .notFound }
        defer { free(real) }
        let realPath = String(cString: real)
        let prefix = root == "/" ? "/" : root + "/"
        guard realPath.hasPrefix(prefix) else { return .notFound }
        return .file(realPath: realPath, relative: String(realPath.dropFirst(prefix.count)))
    }
}

/// A failed system call while setting up the server.
struct FileSystemFailure: Error, CustomStringConvertible {
    var operation: String
    var path: String
    var errno: Int32

    var description: String {
        "\(operation) \(path): \(String(cString: strerror(errno))) (errno \(errno))"
    }
}
