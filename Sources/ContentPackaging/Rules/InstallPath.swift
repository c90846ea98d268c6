/// A path inside an installed content folder that passed the one install-path check: the only form in which a
/// path reaches a writer (`openat`, `linkat`, `mkdirat`) on a client.
///
/// **Why a type.** A manifest's paths pass ``PathRules`` when it is decoded, but packs and variants map them
/// afterwards (`Contents/Voices#language=de/a.ogg` installs at `Contents/Voices/a.ogg`), and a mapped path is new
/// text no decoder saw: `Contents/..#language=de/x` maps to `Contents/../x`. Writers take this type, and the only
/// way to make one is ``init(_:)``, so every path — mapped or not — is checked after the mapping and right before
/// use, and no path reaches a system call that did not pass it.
///
/// The check: ``PathRules`` (valid UTF-8, no control character or `\`, not absolute, no empty, `.` or `..`
/// component, components ≤ 255 bytes, the path ≤ 1024 bytes), then the layout: `ContentInfo.plist`, `Contents`,
/// or a path below `Contents/`.
package struct InstallPath: Sendable, Hashable, CustomStringConvertible {
    /// The checked path, relative to the content folder.
    package let string: String

    /// Checks `path`.
    /// - Throws: ``InstallPathProblem`` naming the path and the first rule it breaks.
    package init(_ path: String) throws(InstallPathProblem) {
        if let reason = Self.problem(path) { throw InstallPathProblem(path: path, reason: reason) }
        string = path
    }

    /// The first rule `path` breaks, or `nil` when it is an install path. A quick byte scan passes the usual path;
    /// only a path it doubts goes through ``PathRules`` for the message.
    package static func problem(_ path: String) -> String? {
        var plain = !path.isEmpty && path.utf8.count <= PathRules.maxPathBytes
        if plain {
            var length = 0, dots = 0
            for byte in path.utf8 {
                if byte == UInt8(ascii: "/") {
                    if length == 0 || length == dots && dots <= 2 { plain = false; break }
                    length = 0
                    dots = 0
                    continue
                }
                if byte < 0x20 || byte == 0x7F || byte == UInt8(ascii: "\\") || byte >= 0x80 { plain = false; break }
                length += 1
                if byte == UInt8(ascii: ".") { dots += 1 }
            }
            if length == 0 || length == dots && dots <= 2 || length > PathRules.maxComponentBytes { plain = false }
        }
        if !plain, let first = PathRules.problems(inPath: Array(path.utf8)).first { return first }
        if path.hasSuffix("/") { return "ends in '/'" }
        let isContents = path == "Contents" || path.hasPrefix("Contents/")
        guard isContents || path == ContentInfo.fileName else {
            return "lies outside the content folder's layout (ContentInfo.plist, or a path below Contents/)"
        }
        return nil
    }

    /// The path's components, for a walk from the content folder's descriptor.
    package var components: [Substring] { string.split(separator: "/") }

    /// The path.
    package var description: String { string }
}

/// A path that is not an install path, and why.
package struct InstallPathProblem: Error, Sendable, Equatable, CustomStringConvertible {
    /// The path as given.
    package var path: String
    /// The rule it breaks.
    package var reason: String

    /// `'<path>' is not an install path: <reason>`.
    package var description: String { "'\(path)' is not an install path: \(reason)" }
}
