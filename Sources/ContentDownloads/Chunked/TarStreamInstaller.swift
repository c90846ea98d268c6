internal import ContentPackaging
import Glibc

/// Installs a tar stream whose bytes arrive already verified (chunk by chunk, against the signed manifest):
/// it reads each header, checks it with ``EntryPolicy`` and against the manifest, and writes each file's data
/// straight into its place in a ``StagingTree``. No archive is kept.
///
/// The manifest decides what is installed; the headers must agree with it. A regular file's header must be
/// the next file the manifest lists in stream order, with the same path and size, its data starting at the
/// manifest's `dataOffset`; directories must pass the same rules as today's installer; anything the
/// installer refuses (links, devices, unsafe or colliding names, entries outside the layout) is refused with
/// the same words. So what lands in the tree is exactly what `bsdtar -x` of the same archive would make.
///
/// An install can start at any ``TarStreamPosition`` (``ChunkedPackage/isRestartPoint``): inside a file's
/// data, or where a run of headers begins. The files before it are taken as written (their sizes are
/// checked) and admitted to the policy again, so duplicates and collisions are still caught.
///
/// - Important: Owned by one install thread.
struct TarStreamInstaller: ~Copyable {
    private enum State {
        /// Gathering a 512-byte header block.
        case headers
        /// Reading a pax extended header's data (`remaining` bytes, then `padding`).
        case pax(remaining: Int64, padding: Int64)
        /// Writing file `file`'s data: `written` bytes in place, `fd` open.
        case data(file: Int, fd: Int32, written: Int64)
        /// Skipping the zero bytes that pad data to a block.
        case padding(remaining: Int64)
        /// After the end-of-archive block: only zero bytes may follow.
        case trailer
    }

    private let package: ChunkedPackage
    private let tree: StagingTree
    private var policy: EntryPolicy
    private var state: State = .headers
    /// The tar-stream offset of the next byte.
    private(set) var streamOffset: Int64
    /// The next file the manifest expects a header for.
    private var nextFile = 0
    private var block: [UInt8] = []
    private var pax: [UInt8] = []
    private var overrides: [String: [UInt8]] = [:]

    /// The largest pax extended header accepted (a path and a few numbers; libarchive writes far less).
    static let largestPaxHeader: Int64 = 1 << 20

    /// An installer continuing at `position` (tar-stream byte `streamOffset`) in `tree`.
    /// - Throws: ``InstallError/archiveMismatch(path:reason:)`` when a file written before is missing or
    ///   has the wrong size (the caller starts over), or a policy refusal.
    init(package: ChunkedPackage, tree: StagingTree, at position: TarStreamPosition, streamOffset: Int64) throws(InstallError) {
        self.package = package
        self.tree = tree
        self.streamOffset = streamOffset
        policy = EntryPolicy(limits: InstallLimits(
            maxTotalBytes: package.manifest.uncompressedSize, maxEntries: InstallLimits.maxEntriesCap))
        block.reserveCapacity(TarHeaderBlock.length)
        let done: Int
        switch position {
        case .headers(let next): done = next
        case .data(let file, _): done = file
        }
        for index in 0..<done {
            let file = package.files[index]
            guard tree.size(of: file.path) == file.size else {
                throw .archiveMismatch(path: tree.path + "/" + file.path, reason: "is missing or changed since it was written; the download starts over")
            }
            _ = try policy.admit(ArchiveEntryHeader(pathBytes: Array(file.path.utf8), kind: .regular, size: file.size, permissions: 0o644))
        }
        nextFile = done
        if case .data(let index, let written) = position {
            let file = package.files[index]
            _ = try policy.admit(ArchiveEntryHeader(pathBytes: Array(file.path.utf8), kind: .regular, size: file.size, permissions: 0o644))
            state = .data(file: index, fd: try tree.openFile(file.path, truncate: false), written: written)
            nextFile = index + 1
        }
    }

    deinit {
        if case .data(_, let fd, _) = state { close(fd) }
    }

    /// Takes the next verified bytes of the tar stream.
    mutating func consume(_ bytes: UnsafeRawBufferPointer) throws(InstallError) {
        var rest = bytes[...]
        while !rest.isEmpty {
            let used: Int
            switch state {
            case .headers:
                used = min(TarHeaderBlock.length - block.count, rest.count)
                block.append(contentsOf: rest.prefix(used))
                streamOffset += Int64(used)
                if block.count == TarHeaderBlock.length { try headerBlock() }
                rest = rest.dropFirst(used)
                continue
            case .pax(let remaining, let padding):
                used = Int(min(Int64(rest.count), remaining))
                pax.append(contentsOf: rest.prefix(used))
                state = remaining - Int64(used) > 0 ? .pax(remaining: remaining - Int64(used), padding: padding) : .padding(remaining: padding)
                if remaining == Int64(used) { try readPaxRecords() }
            case .data(let index, let fd, let written):
                let file = package.files[index]
                used = Int(min(Int64(rest.count), file.size - written))
                let piece = UnsafeRawBufferPointer(rebasing: rest.prefix(used))
                // Runs of zeros stay holes: the file's size is set at its end, and reads give zeros all the same.
                if !Self.isAllZero(piece) { try tree.write(piece, to: fd, at: written, display: file.path) }
                if written + Int64(used) == file.size {
                    state = .padding(remaining: ChunkedPackage.headersAfter(file) - ChunkedPackage.end(of: file))
                    try tree.finish(fd, size: file.size, relative: file.path)
                } else {
                    state = .data(file: index, fd: fd, written: written + Int64(used))
                }
            case .padding(let remaining):
                used = Int(min(Int64(rest.count), remaining))
                state = remaining == Int64(used) ? .headers : .padding(remaining: remaining - Int64(used))
            case .trailer:
                guard let stray = rest.firstIndex(where: { $0 != 0 }) else {
                    used = rest.count
                    break
                }
                throw refusal("data after the end of the archive at tar-stream byte \(streamOffset + Int64(stray - rest.startIndex))")
            }
            streamOffset += Int64(used)
            rest = rest.dropFirst(used)
        }
    }

    /// The stream ended: it must have reached the end-of-archive block with every manifest file written.
    mutating func finish() throws(InstallError) {
        guard case .trailer = state, nextFile == package.files.count else {
            let missing = nextFile < package.files.count ? package.files[nextFile].path : "the end-of-archive block"
            throw refusal("the tar stream ended before \(missing)")
        }
        _ = try policy.finish()
        try tree.sync()
    }

    /// Makes everything written so far durable (a checkpoint).
    mutating func sync() throws(InstallError) {
        if case .data(_, let fd, _) = state { try tree.sync(open: fd) } else { try tree.sync() }
    }

    /// A whole header block has arrived (it ended at ``streamOffset``).
    private mutating func headerBlock() throws(InstallError) {
        defer { block.removeAll(keepingCapacity: true) }
        if block.allSatisfy({ $0 == 0 }) {
            state = .trailer
            return
        }
        let header: TarHeaderBlock
        switch block.withUnsafeBytes(Self.parse) {
        case .success(let parsed): header = parsed
        case .failure(let error):
            throw refusal("the tar header at stream byte \(streamOffset - Int64(TarHeaderBlock.length)) is damaged: \(error.reason)")
        }
        switch header.typeFlag {
        case UInt8(ascii: "x"):
            guard header.size <= Self.largestPaxHeader else { throw refusal("a \(header.size)-byte pax header at stream byte \(streamOffset)") }
            state = .pax(remaining: header.size, padding: Self.padding(header.size))
            if header.size == 0 { state = .padding(remaining: 0) }
        case UInt8(ascii: "g"), UInt8(ascii: "L"), UInt8(ascii: "K"):
            throw .unsafeEntry(path: String(decoding: header.name, as: UTF8.self), reason: "is a tar '\(Character(UnicodeScalar(header.typeFlag)))' header, which `iapcontent pack` never writes")
        default:
            try entry(ArchiveEntryHeader(header, overrides: overrides))
            overrides = [:]
        }
    }

    /// Checks one entry and starts writing it.
    private mutating func entry(_ header: ArchiveEntryHeader) throws(InstallError) {
        let planned = try policy.admit(header)
        if planned.kind == .directory {
            guard header.size == 0 else { throw .unsafeEntry(path: header.path, reason: "a directory entry carries \(header.size) bytes of data") }
            try tree.makeDirectory(planned.path)
            return
        }
        guard nextFile < package.files.count else {
            throw .unsafeEntry(path: header.path, reason: "is not listed in the signed package manifest")
        }
        let expected = package.files[nextFile]
        guard expected.path == planned.path, expected.size == planned.size, expected.dataOffset == streamOffset else {
            throw .unsafeEntry(
                path: header.path,
                reason: "the tar header (\(planned.size) bytes, data at stream byte \(streamOffset)) disagrees with the signed package manifest, which lists \(expected.path) (\(expected.size) bytes at \(expected.dataOffset!)) next")
        }
        let fd = try tree.openFile(planned.path, truncate: true)
        nextFile += 1
        if expected.size == 0 {
            try tree.finish(fd, size: 0, relative: expected.path)
        } else {
            state = .data(file: nextFile - 1, fd: fd, written: 0)
        }
    }

    /// A pax header's data is complete: keep the records that name the next entry.
    private mutating func readPaxRecords() throws(InstallError) {
        defer { pax.removeAll() }
        do {
            for record in try PaxRecords.parse(pax) where ["path", "linkpath", "size"].contains(record.key) {
                overrides[record.key] = record.value
            }
        } catch {
            throw refusal("the pax header before stream byte \(streamOffset) is damaged: \(error.reason)")
        }
    }

    /// Whether every byte is zero: the first is, and each equals the next (glibc's `memcmp` runs at memory speed).
    static func isAllZero(_ bytes: UnsafeRawBufferPointer) -> Bool {
        guard let first = bytes.first, first == 0 else { return bytes.isEmpty }
        return memcmp(bytes.baseAddress!, bytes.baseAddress! + 1, bytes.count - 1) == 0
    }

    private static func parse(_ bytes: UnsafeRawBufferPointer) -> Result<TarHeaderBlock, TarHeaderError> {
        do { return .success(try TarHeaderBlock(bytes)) } catch { return .failure(error) }
    }

    private static func padding(_ size: Int64) -> Int64 {
        let block = Int64(TarHeaderBlock.length)
        return (block - size % block) % block
    }

    private func refusal(_ what: String) -> InstallError {
        .archiveMismatch(path: tree.path, reason: "\(what); the archive does not match its signed manifest — tell the publisher")
    }
}

extension ArchiveEntryHeader {
    /// The entry a ustar header and the pax records before it describe.
    init(_ header: TarHeaderBlock, overrides: [String: [UInt8]]) {
        let kind: Kind
        switch header.typeFlag {
        case 0, UInt8(ascii: "0"), UInt8(ascii: "7"): kind = .regular
        case UInt8(ascii: "5"): kind = .directory
        case UInt8(ascii: "1"): kind = .hardlink
        case UInt8(ascii: "2"): kind = .symlink
        case UInt8(ascii: "3"): kind = .characterDevice
        case UInt8(ascii: "4"): kind = .blockDevice
        case UInt8(ascii: "6"): kind = .fifo
        default: kind = .unknown(UInt32(header.typeFlag))
        }
        let size = overrides["size"].flatMap { Int64(String(decoding: $0, as: UTF8.self)) } ?? header.size
        let link = overrides["linkpath"] ?? header.linkName
        self.init(
            pathBytes: overrides["path"] ?? header.name, kind: kind, size: kind == .regular ? size : (kind == .directory ? size : 0),
            permissions: header.mode, linkTarget: kind == .symlink || kind == .hardlink ? String(decoding: link, as: UTF8.self) : nil)
    }
}
