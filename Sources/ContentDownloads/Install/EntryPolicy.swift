package import ContentPackaging

/// One entry the pre-scan accepted: a normalized relative path, its kind and its declared size.
package struct PlannedEntry: Sendable, Equatable {
    /// The two kinds of object that are ever installed.
    package enum Kind: Sendable, Equatable { case file, directory }
    /// Relative path without a trailing `/` (`ContentInfo.plist`, `Contents/a/b.png`).
    package var path: String
    /// File or directory.
    package var kind: Kind
    /// Declared size in bytes (0 for directories); the extractor refuses to write more.
    package var size: Int64
}

/// What the header pre-scan found acceptable: the exact sequence the extraction pass must see again.
package struct ExtractionPlan: Sendable, Equatable {
    /// Entries in archive order.
    package var entries: [PlannedEntry]
    /// Sum of the declared file sizes.
    package var totalBytes: Int64
}

/// Checks every archive header against the install policy BEFORE anything is written.
///
/// Accepts only regular files and directories with safe names (``PathRules``) inside the hosted
/// content layout (`ContentInfo.plist` at the root, everything else under `Contents/`), with no
/// duplicates and no names that collide by case or Unicode normalization (including implied
/// parent directories), within the entry-count and size caps of ``InstallLimits``. Owners,
/// permissions, times and extended attributes in headers are ignored: files install as 0644 and
/// directories as 0755, so a setuid or sticky mode is not an error, it is simply not restored.
package struct EntryPolicy: Sendable {
    private struct Seen: Sendable {
        var path: String
        var isDirectory: Bool
        var explicit: Bool
    }

    /// The caps applied.
    package let limits: InstallLimits
    private var seen: [String: Seen] = [:]
    private var entries: [PlannedEntry] = []
    private var totalBytes: Int64 = 0
    private var count = 0

    /// A policy with the given caps.
    package init(limits: InstallLimits) {
        self.limits = limits
    }

    /// Reads every header of `reader` (skipping data) and returns the plan, or throws at the first bad entry.
    package static func prescan(_ reader: inout ArchiveReader, limits: InstallLimits) throws(InstallError) -> ExtractionPlan {
        var policy = EntryPolicy(limits: limits)
        while true {
            let header: ArchiveEntryHeader?
            do { header = try reader.nextHeader() } catch { throw .archive(error) }
            guard let header else { break }
            _ = try policy.admit(header)
            do { try reader.skipData() } catch { throw .archive(error) }
        }
        return try policy.finish()
    }

    /// Checks one header; returns the planned entry or throws the reason it is refused.
    package mutating func admit(_ header: ArchiveEntryHeader) throws(InstallError) -> PlannedEntry {
        count += 1
        if count > limits.maxEntries {
            throw .tooManyEntries(declared: limits.maxEntries, found: count)
        }
        let display = header.path
        let kind: PlannedEntry.Kind
        switch header.kind {
        case .regular: kind = .file
        case .directory: kind = .directory
        case .symlink, .hardlink:
            throw .unsafeEntry(
                path: display,
                reason: "is a \(header.kind) to '\(header.linkTarget ?? "")'; links are never installed")
        default:
            throw .unsafeEntry(path: display, reason: "is a \(header.kind); only regular files and directories are installed")
        }
        let problems = PathRules.problems(inPath: header.pathBytes)
        if !problems.isEmpty {
            var unique: [String] = []
            for problem in problems where !unique.contains(problem) { unique.append(problem) }
            throw .unsafeEntry(path: display, reason: unique.joined(separator: "; "))
        }
        var path = display
        if path.hasSuffix("/") {
            guard kind == .directory else { throw .unsafeEntry(path: display, reason: "a file name ends in '/'") }
            path.removeLast()
        }
        let components = path.split(separator: "/", omittingEmptySubsequences: false).map(String.init)
        // Layout: exactly `ContentInfo.plist` at the root, everything else under `Contents/`.
        if components == ["ContentInfo.plist"] {
            guard kind == .file else { throw .outsideLayout(path: display) }
        } else if components[0] == "Contents" {
            if components.count == 1, kind != .directory { throw .outsideLayout(path: display) }
        } else {
            throw .outsideLayout(path: display)
        }
        // Implied parent directories must not be files and must not collide with other spellings.
        var prefix = ""
        for component in components.dropLast() {
            prefix = prefix.isEmpty ? component : prefix + "/" + component
            let key = PathRules.collisionKey(prefix)
            if let other = seen[key] {
                if !other.isDirectory {
                    throw .unsafeEntry(path: display, reason: "'\(other.path)' is a file but this entry uses it as a directory")
                }
                if !Array(other.path.utf8).elementsEqual(prefix.utf8) {
                    throw .unsafeEntry(
                        path: display,
                        reason: "'\(prefix)' collides with '\(other.path)' on case-insensitive or normalizing file systems")
                }
            } else {
                seen[key] = Seen(path: prefix, isDirectory: true, explicit: false)
            }
        }
        let key = PathRules.collisionKey(path)
        if let other = seen[key] {
            if !Array(other.path.utf8).elementsEqual(path.utf8) {
                throw .unsafeEntry(
                    path: display,
                    reason: "collides with '\(other.path)' on case-insensitive or normalizing file systems")
            }
            if other.explicit || !other.isDirectory || kind != .directory {
                throw .unsafeEntry(path: display, reason: "duplicate entry (the archive holds this path twice)")
            }
        }
        seen[key] = Seen(path: path, isDirectory: kind == .directory, explicit: true)

        var size: Int64 = 0
        if kind == .file {
            size = header.size
            guard size >= 0 else { throw .unsafeEntry(path: display, reason: "negative size \(size)") }
            if let manifest = limits.manifestSizes {
                guard let expected = manifest[path] else {
                    throw .unsafeEntry(path: display, reason: "not listed in the package manifest")
                }
                guard expected == size else {
                    throw .sizeExceeded(path: display, declared: expected, written: size)
                }
            }
            if size > limits.maxTotalBytes {
                throw .sizeExceeded(path: display, declared: limits.maxTotalBytes, written: size)
            }
            totalBytes += size
            if totalBytes > limits.maxTotalBytes {
                throw .sizeExceeded(path: display, declared: limits.maxTotalBytes, written: totalBytes)
            }
        }
        let entry = PlannedEntry(path: path, kind: kind, size: size)
        entries.append(entry)
        return entry
    }

    /// Ends the scan: the archive must have held a `ContentInfo.plist`.
    package func finish() throws(InstallError) -> ExtractionPlan {
        guard seen[PathRules.collisionKey("ContentInfo.plist")]?.isDirectory == false else {
            throw .wrongContent(expected: "a ContentInfo.plist at the archive root", found: "no ContentInfo.plist")
        }
        return ExtractionPlan(entries: entries, totalBytes: totalBytes)
    }
}
