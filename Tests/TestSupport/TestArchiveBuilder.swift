import CArchive
public import Foundation

/// Writes tar archives with any header a test needs — including the malicious ones a real packer
/// never produces (`../x`, symlinks, devices, hard links carrying data, size lies, non-UTF-8 names).
///
/// Uses libarchive's own writer, so the bytes are what a real hostile archive would hold.
///
/// ```swift
/// var builder = TestArchiveBuilder()
/// builder.file("ContentInfo.plist", TestArchiveBuilder.contentInfo(productID: "p", version: "1"))
/// builder.symlink("Contents/esc", target: "/etc")
/// try builder.write(to: url)
/// ```
public struct TestArchiveBuilder: Sendable {
    /// The tar dialect to write.
    public enum Format: Sendable {
        /// POSIX pax (libarchive's "restricted pax": ustar unless a field needs an extension).
        case pax
        /// Plain ustar: names are stored as raw bytes.
        case ustar
        /// POSIX.1 portable cpio ("odc", magic `070707`): what pkgbuild writes into a package's `Payload`.
        case cpioODC
        /// SVR4 cpio without checksums ("newc", magic `070701`).
        case cpioNewc
        /// xar, the container of macOS installer packages. libarchive's writer cleans names (`a/../../x` is
        /// stored as `x`, a leading `/` dropped), so hostile xar names need ``XarBuilder``.
        case xar
    }

    /// One header plus the data written after it.
    public struct Entry: Sendable {
        /// File type bits (`0o100000` regular, `0o040000` directory, `0o120000` symlink, …).
        public var type: UInt32
        /// Path exactly as stored (raw bytes, may be invalid UTF-8).
        public var pathBytes: [UInt8]
        /// Declared size; `nil` means "the data's length".
        public var size: Int64?
        /// Permission bits (`0o644`, `0o6755`, …).
        public var permissions: UInt32
        /// Symlink target.
        public var symlink: String?
        /// Hard-link target.
        public var hardlink: String?
        /// Owner id and name stored in the header.
        public var uid: Int64
        /// Owner name stored in the header.
        public var uname: String?
        /// Device number for character/block devices.
        public var rdev: UInt64
        /// Data bytes, or a count of zero bytes (for bombs without holding them in memory).
        public var data: Data
        /// Extra zero bytes streamed after `data` (compression bombs).
        public var zeroBytes: Int64
        /// Inode number and link count (0: not set); cpio marks a hard link by a repeated inode with links > 1.
        public var inode: Int64 = 0
        /// Link count stored with ``inode``.
        public var links: UInt32 = 0

        /// Creates an entry.
        public init(
            type: UInt32, pathBytes: [UInt8], size: Int64? = nil, permissions: UInt32 = 0o644,
            symlink: String? = nil, hardlink: String? = nil, uid: Int64 = 1000, uname: String? = nil,
            rdev: UInt64 = 0, data: Data = Data(), zeroBytes: Int64 = 0
        ) {
            self.type = type
            self.pathBytes = pathBytes
            self.size = size
            self.permissions = permissions
            self.symlink = symlink
            self.hardlink = hardlink
            self.uid = uid
            self.uname = uname
            self.rdev = rdev
            self.data = data
            self.zeroBytes = zeroBytes
        }
    }

    /// Entries in archive order.
    public var entries: [Entry] = []
    /// Tar dialect.
    public var format: Format = .pax
    /// Compress with zstd (the production format) or leave plain tar.
    public var zstd: Bool = true
    /// Compress with gzip instead (a package's `Payload`), without a timestamp so the bytes are reproducible.
    public var gzip: Bool = false

    /// An empty builder.
    public init(format: Format = .pax, zstd: Bool = true, gzip: Bool = false) {
        self.format = format
        self.zstd = zstd && !gzip
        self.gzip = gzip
    }

    /// Appends a regular file.
    public mutating func file(_ path: String, _ data: Data, permissions: UInt32 = 0o644) {
        entries.append(Entry(type: 0o100000, pathBytes: Array(path.utf8), permissions: permissions, data: data))
    }

    /// Appends a regular file holding `text` as UTF-8.
    public mutating func file(_ path: String, text: String, permissions: UInt32 = 0o644) {
        file(path, Data(text.utf8), permissions: permissions)
    }

    /// Appends a directory.
    public mutating func directory(_ path: String, permissions: UInt32 = 0o755) {
        entries.append(Entry(type: 0o040000, pathBytes: Array(path.utf8), permissions: permissions))
    }

    /// Appends a symbolic link.
    public mutating func symlink(_ path: String, target: String) {
        entries.append(Entry(type: 0o120000, pathBytes: Array(path.utf8), permissions: 0o777, symlink: target))
    }

    /// Appends a hard link, optionally carrying data (CVE-2016-5418's shape).
    public mutating func hardlink(_ path: String, target: String, data: Data = Data()) {
        entries.append(Entry(type: 0o100000, pathBytes: Array(path.utf8), hardlink: target, data: data))
    }

    /// Appends any entry.
    public mutating func append(_ entry: Entry) {
        entries.append(entry)
    }

    /// A minimal `ContentInfo.plist` (XML) with the two required keys.
    public static func contentInfo(productID: String, version: String) -> Data {
        Data("""
        <?xml version="1.0" encoding="UTF-8"?>
        <!DOCTYPE plist PUBLIC "-//Apple//DTD PLIST 1.0//EN" "http://www.apple.com/DTDs/PropertyList-1.0.dtd">
        <plist version="1.0">
        <dict>
        \t<key>ContentVersion</key>
        \t<string>\(version)</string>
        \t<key>IAPProductIdentifier</key>
        \t<string>\(productID)</string>
        </dict>
        </plist>

        """.utf8)
    }

    /// A builder holding a well-formed package: plist, `Contents/`, and the given files under `Contents/`.
    public static func package(productID: String, version: String, files: [String: Data]) -> TestArchiveBuilder {
        var builder = TestArchiveBuilder()
        builder.file("ContentInfo.plist", contentInfo(productID: productID, version: version))
        builder.directory("Contents/")
        var directories = Set<String>()
        for path in files.keys.sorted() {
            let parts = path.split(separator: "/").dropLast()
            var prefix = "Contents"
            for part in parts {
                prefix += "/" + part
                if directories.insert(prefix).inserted { builder.directory(prefix + "/") }
            }
            builder.file("Contents/" + path, files[path]!)
        }
        return builder
    }

    /// Sum of the declared sizes of regular files (what a catalog's `uncompressedSize` would say).
    public var declaredUncompressedSize: Int64 {
        entries.filter { $0.type == 0o100000 && $0.hardlink == nil }
            .reduce(0) { $0 + ($1.size ?? Int64($1.data.count) + $1.zeroBytes) }
    }

    /// Writes the archive to `url`, replacing any file there.
    public func write(to url: URL) throws {
        guard let archive = archive_write_new() else { throw BuilderError("archive_write_new failed") }
        defer { archive_write_free(archive) }
        switch format {
        case .pax: archive_write_set_format_pax_restricted(archive)
        case .ustar: archive_write_set_format_ustar(archive)
        case .cpioODC: archive_write_set_format_cpio_odc(archive)
        case .cpioNewc: archive_write_set_format_cpio_newc(archive)
        case .xar: archive_write_set_format_xar(archive)
        }
        if gzip {
            archive_write_add_filter_gzip(archive)
            try check(archive, archive_write_set_filter_option(archive, "gzip", "timestamp", nil))
        } else if zstd {
            archive_write_add_filter_zstd(archive)
        } else {
            archive_write_add_filter_none(archive)
        }
        archive_write_set_bytes_in_last_block(archive, 1)
        try check(archive, archive_write_open_filename(archive, url.path))
        let zeros = [UInt8](repeating: 0, count: 1 << 16)
        for item in entries {
            guard let entry = archive_entry_new() else { throw BuilderError("archive_entry_new failed") }
            defer { archive_entry_free(entry) }
            var pathBytes = item.pathBytes.map { CChar(bitPattern: $0) }
            pathBytes.append(0)
            archive_entry_copy_pathname(entry, pathBytes)
            archive_entry_set_filetype(entry, item.type)
            archive_entry_set_perm(entry, mode_t(item.permissions))
            archive_entry_set_uid(entry, item.uid)
            archive_entry_set_gid(entry, item.uid)
            if let uname = item.uname { archive_entry_set_uname(entry, uname) }
            if item.rdev != 0 { archive_entry_set_rdev(entry, dev_t(item.rdev)) }
            if item.inode != 0 { archive_entry_set_ino64(entry, item.inode) }
            if item.links != 0 { archive_entry_set_nlink(entry, item.links) }
            if let link = item.symlink { archive_entry_copy_symlink(entry, link) }
            if let link = item.hardlink { archive_entry_copy_hardlink(entry, link) }
            let dataLength = Int64(item.data.count) + item.zeroBytes
            if item.type == 0o100000 || item.hardlink != nil {
                archive_entry_set_size(entry, item.size ?? dataLength)
            } else {
                archive_entry_set_size(entry, item.size ?? 0)
            }
            try check(archive, archive_write_header(archive, entry))
            if !item.data.isEmpty {
                let written = item.data.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, $0.count) }
                if written < 0 { try check(archive, Int32(written)) }
            }
            var remaining = item.zeroBytes
            while remaining > 0 {
                let chunk = Int(min(remaining, Int64(zeros.count)))
                let written = zeros.withUnsafeBytes { archive_write_data(archive, $0.baseAddress, chunk) }
                if written < 0 { try check(archive, Int32(written)) }
                remaining -= Int64(chunk)
            }
            try check(archive, archive_write_finish_entry(archive))
        }
        try check(archive, archive_write_close(archive))
    }

    /// The archive's bytes.
    public func data() throws -> Data {
        let directory = try TemporaryDirectory("archive-builder")
        let url = directory.appending("archive")
        try write(to: url)
        return try Data(contentsOf: url)
    }

    private func check(_ archive: OpaquePointer, _ status: Int32) throws {
        guard status >= ARCHIVE_WARN else {
            let message = archive_error_string(archive).map { String(cString: $0) } ?? "status \(status)"
            throw BuilderError("libarchive writer: \(message)")
        }
    }

    /// A test-archive construction failure.
    public struct BuilderError: Error, CustomStringConvertible {
        /// What went wrong.
        public var description: String
        init(_ description: String) { self.description = description }
    }
}
