package import ContentPackaging

/// One entry the pre-scan accepted: a normalized relative path, its kind and its declared size.
package struct PlannedEntry: Sendable, Equatable {
    /// What is installed: a file, a directory, or a second name of a file this archive held earlier (a hard link
    /// `pack` writes for an identical file, made with `linkat` inside the staging folder).
    package enum Kind: Sendable, Equatable { case file, directory, link }
    /// Relative path without a trailing `/` (`ContentInfo.plist`, `Contents/a/b.png`).
    package var path: String
    /// File or directory.
    package var kind: Kind
    /// Declared size in bytes (0 for directories and links); the extractor refuses to write more.
    package var size: Int64
    /// A link's target: the path of a regular file admitted earlier (`nil` for files and directories).
    package var linkTarget: String? = nil
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
/// Accepts only what `ArchiveLayoutRules` (ContentPackaging) accepts, the rules
/// `iapcontent inspect` reports too: regular files, directories, and hard links (no data) to a regular
/// file admitted earlier from the same archive, with safe names
/// (``PathRules``) inside the hosted-content layout (`ContentInfo.plist` at the root, everything
/// else under `Contents/`), with no duplicates and no names that collide by case or Unicode
/// normalization (including implied parent directories); and only within the entry-count and size
/// caps of ``InstallLimits``. Owners, permissions, times and extended attributes in headers are
/// ignored: files install as 0644 and directories as 0755, so a setuid or sticky mode is not an
/// error, it is simply not restored.
package struct EntryPolicy: Sendable {
    /// The caps applied.
    package let limits: InstallLimits
    /// Whether ``finish()`` returns the entries admitted (an extraction replays them); a check of a manifest's
    /// paths keeps none, so a million paths are not held twice.
    private let keepsPlan: Bool
    private var layout = ArchiveLayoutRules()
    private var entries: [PlannedEntry] = []
    private var totalBytes: Int64 = 0
    private var count = 0

    /// A policy with the given caps; `keepsPlan` false when nothing needs ``finish()``'s entries;
    /// `remembersPaths` false when every path is matched against a list already checked as a whole (the
    /// headers of a chunk plan against its manifest), so duplicates and collisions cannot arise; `expectedEntries`
    /// the entries to come when known (sizes the remembered paths once).
    package init(limits: InstallLimits, keepsPlan: Bool = true, remembersPaths: Bool = true, expectedEntries: Int = 0) {
        self.limits = limits
        self.keepsPlan = keepsPlan
        layout = ArchiveLayoutRules(remembersPaths: remembersPaths, expectedEntries: expectedEntries)
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
        let verdict = layout.classify(header)
        if let refusal = verdict.refusals.first {
            throw Self.error(for: refusal, of: header)
        }
        if header.kind == .hardlink, let target = header.linkTarget {
            let entry = try admitLink(header, path: verdict.path, target: target)
            if keepsPlan { entries.append(entry) }
            return entry
        }
        let kind: PlannedEntry.Kind = header.kind == .directory ? .directory : .file
        var size: Int64 = 0
        if kind == .file { size = try admitSize(of: header, path: verdict.path) }
        let entry = PlannedEntry(path: verdict.path, kind: kind, size: size)
        if keepsPlan { entries.append(entry) }
        return entry
    }

    /// A hard link the layout rules accepted (its target a regular file admitted earlier): it carries no data, and
    /// with a manifest both names must be listed with one size.
    private func admitLink(_ header: ArchiveEntryHeader, path: String, target: String) throws(InstallError) -> PlannedEntry {
        guard header.size == 0 else {
            throw .unsafeEntry(path: header.path, reason: "is a hard link to '\(target)' that carries \(header.size) bytes of data")
        }
        if let manifest = limits.manifestSizes {
            guard let expected = manifest[path], manifest[target] == expected else {
                throw .unsafeEntry(path: header.path, reason: "is a hard link to '\(target)', but the package manifest does not list both with one size")
            }
        }
        return PlannedEntry(path: path, kind: .link, size: 0, linkTarget: target)
    }

    /// Checks a file's declared size against the manifest and the caps and counts it in the total.
    private mutating func admitSize(of header: ArchiveEntryHeader, path: String) throws(InstallError) -> Int64 {
        let display = header.path
        let size = header.size
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
        return size
    }

    /// The install error for a layout refusal, naming the entry as the archive spells it.
    private static func error(for refusal: ArchiveLayoutRefusal, of header: ArchiveEntryHeader) -> InstallError {
        if case .outsideLayout = refusal { return .outsideLayout(path: header.path) }
        return .unsafeEntry(path: header.path, reason: refusal.reason(kind: header.kind, linkTarget: header.linkTarget))
    }

    /// Ends the scan: the archive must have held a `ContentInfo.plist`.
    package func finish() throws(InstallError) -> ExtractionPlan {
        guard layout.hasContentInfo else {
            throw .wrongContent(expected: "a ContentInfo.plist at the archive root", found: "no ContentInfo.plist")
        }
        return ExtractionPlan(entries: entries, totalBytes: totalBytes)
    }
}
