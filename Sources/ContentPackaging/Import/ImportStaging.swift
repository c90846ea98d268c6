import Glibc
import SystemSupport

/// The folder an import builds, entry by entry, under the rules every archive entry meets.
///
/// Each entry a source offers, named by its place in the content layout (`ContentInfo.plist`,
/// `Contents/…`), goes through the same ``ArchiveLayoutRules`` the installer and `inspect` apply
/// (only regular files and directories, safe names, the layout, no duplicates or collisions), worded
/// the same way (``ArchiveLayoutRefusal/reason(kind:linkTarget:)``). OS litter is dropped with a note
/// before the rules see it, and a file whose first bytes are executable code is removed after it is
/// written, with a note. Refusals are collected, so one run lists them all; the folder is never used
/// when there is one. Limits end the import at once: the total size (``maxTotalBytes``, a decompression
/// bomb), a file longer than its declared size, too many entries.
struct ImportStaging: ~Copyable {
    /// The folder being built (a fresh, private directory).
    let root: String
    /// Largest total of file bytes.
    let maxTotalBytes: Int64
    /// Most entries accepted.
    static let maxEntries = 1 << 20

    private var layout = ArchiveLayoutRules()
    private(set) var notes: [ImportNote] = []
    private(set) var refusals: [ImportNote] = []
    private(set) var fileCount = 0
    private(set) var totalBytes: Int64 = 0
    private var entryCount = 0

    init(root: String, maxTotalBytes: Int64) {
        self.root = root
        self.maxTotalBytes = maxTotalBytes
    }

    /// Records an entry a source left out itself, with its reason.
    mutating func note(_ note: ImportNote) {
        notes.append(note)
    }

    /// Records a refusal found by a source itself (a path outside the project, a bad archive member name).
    mutating func refuse(_ entry: String, reason: String) {
        refusals.append(ImportNote(.refused, entry: entry, reason: reason))
    }

    /// Offers one entry: drops, refuses or writes it.
    ///
    /// - Parameters:
    ///   - header: the entry's place in the content layout (`pathBytes`), kind, declared size and link target.
    ///   - origin: the entry as the source names it, for the report.
    ///   - data: called for a regular file that is kept, to write its bytes into the sink.
    /// - Throws: ``ImportError`` when a limit is passed or a system call fails; refusals are collected instead.
    mutating func add(
        _ header: ArchiveEntryHeader, origin: String,
        data: (inout ImportFileSink) throws(ImportError) -> Void
    ) throws(ImportError) {
        entryCount += 1
        if entryCount > Self.maxEntries {
            throw .refused([ImportNote(.refused, entry: origin, reason: "more than \(Self.maxEntries) entries; split the content")])
        }
        if let litter = Self.litterReason(header.pathBytes) {
            notes.append(ImportNote(.dropped, entry: origin, reason: litter))
            return
        }
        let verdict = layout.classify(header)
        if let refusal = verdict.refusals.first {
            refuse(origin, reason: refusal.reason(kind: header.kind, linkTarget: header.linkTarget))
            return
        }
        guard refusals.isEmpty else { return }  // nothing more is written once the import is bound to fail
        let path = root + "/" + verdict.path
        if header.kind == .directory {
            try makeDirectories(path)
            return
        }
        guard header.size >= 0, header.size <= maxTotalBytes - totalBytes else {
            throw .refused([ImportNote(.refused, entry: origin, reason: Self.bombReason(maxTotalBytes))])
        }
        try makeDirectories(String(path[..<path.lastIndex(of: "/")!]))
        var sink = try ImportFileSink(path: path, origin: origin, declaredSize: header.size)
        defer { sink.close() }
        try data(&sink)
        try sink.finish()
        if let kind = ExecutableSniffer.kind(ofFileAt: Array(path.utf8)) {
            unlink(path)
            notes.append(ImportNote(.dropped, entry: origin, reason: "is executable code (\(kind)); hosted content must be data only"))
            return
        }
        fileCount += 1
        totalBytes += sink.written
    }

    /// Why a path is OS litter that is never imported, or `nil`.
    static func litterReason(_ pathBytes: [UInt8]) -> String? {
        for component in pathBytes.split(separator: UInt8(ascii: "/")) {
            guard let name = String(validating: component, as: UTF8.self), PathRules.isOSLitter(name) else { continue }
            if name.hasPrefix("._") { return "AppleDouble file ('._' resource fork or extended attributes of a Mac file); never installed" }
            if name == ".DS_Store" { return "Finder metadata (.DS_Store); never installed" }
            return "operating-system litter ('\(name)'); never installed"
        }
        return nil
    }

    /// The refusal of a source that expands past the size limit.
    static func bombReason(_ limit: Int64) -> String {
        "expands to more than \(limit) bytes, the limit (a decompression bomb, or content that needs --max-size); nothing was kept"
    }

    /// `mkdir -p` below ``root`` (every component was checked by the layout rules, and nothing here is a link).
    private func makeDirectories(_ path: String) throws(ImportError) {
        guard path.count > root.count else { return }
        var current = root
        for component in path.dropFirst(root.count + 1).split(separator: "/") {
            current += "/" + component
            if mkdir(current, 0o755) != 0, errno != EEXIST {
                throw .system(FileSystemError(operation: "mkdir", path: current, errno: errno))
            }
        }
    }
}

/// Where an imported file's bytes go: a new file in the staging folder, held to its declared size.
struct ImportFileSink: ~Copyable {
    private var fd: Int32
    private let path: String
    private let origin: String
    /// The size the source declared for this file.
    let declaredSize: Int64
    /// Bytes written so far.
    private(set) var written: Int64 = 0

    init(path: String, origin: String, declaredSize: Int64) throws(ImportError) {
        fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(FileSystemError(operation: "create", path: path, errno: errno)) }
        self.path = path
        self.origin = origin
        self.declaredSize = declaredSize
    }

    /// Appends `bytes`; refuses a file that grows past its declared size.
    mutating func write(_ bytes: UnsafeRawBufferPointer) throws(ImportError) {
        guard Int64(bytes.count) <= declaredSize - written else {
            throw .refused([ImportNote(
                .refused, entry: origin,
                reason: "holds more than the \(declaredSize) bytes its header declares; the source is damaged or hostile")])
        }
        do { try DurableFile.writeAll(fd, bytes, path: path) } catch { throw .system(error) }
        written += Int64(bytes.count)
    }

    /// Checks the file is complete and makes it durable.
    mutating func finish() throws(ImportError) {
        guard written == declaredSize else {
            throw .refused([ImportNote(
                .refused, entry: origin,
                reason: "holds \(written) bytes but its header declares \(declaredSize); the source is truncated or changed while read")])
        }
        guard fsync(fd) == 0 else { throw .system(FileSystemError(operation: "fsync", path: path, errno: errno)) }
    }

    /// Closes the file (once).
    mutating func close() {
        if fd >= 0 { Glibc.close(fd) }
        fd = -1
    }
}
