internal import BitCollections
internal import SystemSupport
internal import CLinuxSystem
import Glibc

/// Which of a plan's chunks are in place in its tree: the resume state of a chunk plan, kept beside the tree
/// (`<tree>.placed`) as an append-only log of 12-byte records.
///
/// Chunks arrive in any order over many connections, so one offset cannot say what is done; this set does.
/// Records: `placed(chunk)` appended after the chunk's bytes were written into the tree (never fsynced on its own);
/// `durable` appended after the tree was fsynced at a checkpoint, then the log fsynced — every chunk before a
/// `durable` mark is on the device; `boot(hash)` opens each run, naming the kernel boot it writes in.
///
/// On load, chunks before the last `durable` mark count always. Chunks after it count only when the log's last
/// `boot` record is this boot's: a `kill -9` ends the process, not the page cache, so what it wrote is still
/// there, and ``load(treePath:)`` makes it durable (`syncfs`) and marks it before anything newer is written.
/// After a reboot or power loss they are fetched again. Each record carries a check word, so a torn or
/// never-written record (zeros) is ignored: its chunk is fetched again, never trusted.
///
/// - Important: Owned by one thread at a time (loaded on the transfer thread, then written by `iap-install`).
final class PlacedChunks {
    private let fd: Int32
    /// Chunks in place (durable, or written in this boot).
    private(set) var placed: Set<Int>
    /// Chunks placed since the last durable mark.
    private var pending = 0

    private enum Tag: UInt32 {
        case placed = 0x504C_4344  // "PLCD"
        case durable = 0x4455_5242  // "DURB"
        case boot = 0x424F_4F54  // "BOOT"
        case region = 0x4844_5243  // "HDRC"
    }

    /// Header regions (``HeaderRegions``) found right so far: a check result, kept so a restart need not
    /// fetch their chunks again.
    private(set) var passedRegions: BitSet

    /// The log beside the tree at `treePath`.
    static func path(treePath: String) -> String { Store.placedChunksFile(treePath: treePath) }

    /// Opens the log of the tree at `treePath` (creating it), reads what it vouches for, makes a killed run's
    /// writes durable when they count, and starts this run with a `boot` record.
    /// - Throws: ``InstallError/system(operation:path:errno:)`` when the log cannot be opened or written.
    init(treePath: String, chunkCount: Int) throws(InstallError) {
        let path = Self.path(treePath: treePath)
        fd = open(path, O_RDWR | O_CREAT | O_APPEND | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .system(operation: "open", path: path, errno: errno) }
        let (durable, written, lastBoot, regions) = Self.read(fd, chunkCount: chunkCount)
        passedRegions = regions
        let thisBoot = Self.bootHash
        if !written.isEmpty, lastBoot != nil, lastBoot == thisBoot {
            // The killed run's bytes are in the page cache: make them durable before they count.
            let tree = open(treePath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
            if tree >= 0 {
                _ = CLinuxSystem_syncFileSystem(tree)
                close(tree)
            }
            placed = durable.union(written)
            try append(.durable, 0)
            guard fsync(fd) == 0 else { throw .system(operation: "fsync", path: path, errno: errno) }
        } else {
            placed = durable
        }
        try append(.boot, thisBoot ?? 0)
    }

    deinit { close(fd) }

    /// Records chunk `index` as written into the tree (not yet durable).
    func record(_ index: Int) throws(InstallError) {
        placed.insert(index)
        pending += 1
        try append(.placed, UInt32(index))
    }

    /// The tree was fsynced: every chunk recorded so far is durable. Appends the mark and fsyncs the log.
    func markDurable() throws(InstallError) {
        guard pending > 0 else { return }
        try append(.durable, 0)
        guard fsync(fd) == 0 else { throw .system(operation: "fsync", path: "the placed-chunks log", errno: errno) }
        pending = 0
    }

    /// Records header region `index` as found right.
    func recordRegion(_ index: Int) throws(InstallError) {
        passedRegions.insert(index)
        try append(.region, UInt32(index))
    }

    private func append(_ tag: Tag, _ value: UInt32) throws(InstallError) {
        var record = (tag.rawValue.littleEndian, value.littleEndian, (tag.rawValue ^ value ^ 0xA5A5_A5A5).littleEndian)
        let written = withUnsafeBytes(of: &record) { Glibc.write(fd, $0.baseAddress, 12) }
        guard written == 12 else { throw .system(operation: "write", path: "the placed-chunks log", errno: written < 0 ? errno : EIO) }
    }

    /// Chunks before the last durable mark, chunks after it, and the last boot record's value.
    private static func read(_ fd: Int32, chunkCount: Int) -> (durable: Set<Int>, written: Set<Int>, boot: UInt32?, regions: BitSet) {
        var info = stat()
        guard fstat(fd, &info) == 0, info.st_size >= 12 else { return ([], [], nil, []) }
        var bytes = [UInt8](repeating: 0, count: Int(info.st_size))
        let count = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, $0.count, 0) }
        guard count > 0 else { return ([], [], nil, []) }
        var durable = Set<Int>(), written = Set<Int>(), boot: UInt32?, regions = BitSet()
        var offset = 0
        while offset + 12 <= count {
            let word = { (at: Int) -> UInt32 in
                UInt32(bytes[at]) | UInt32(bytes[at + 1]) << 8 | UInt32(bytes[at + 2]) << 16 | UInt32(bytes[at + 3]) << 24
            }
            let tag = word(offset), value = word(offset + 4), check = word(offset + 8)
            offset += 12
            guard check == tag ^ value ^ 0xA5A5_A5A5, let kind = Tag(rawValue: tag) else { continue }
            switch kind {
            case .placed where Int(value) < chunkCount: written.insert(Int(value))
            case .placed: continue
            case .durable:
                durable.formUnion(written)
                written.removeAll()
            case .boot: boot = value
            // A bit per region: a value past any package's regions (a damaged log) would cost memory, not a chunk.
            case .region where Int(value) <= InstallLimits.maxEntriesCap: regions.insert(Int(value))
            case .region: continue
            }
        }
        return (durable, written, boot, regions)
    }

    /// This boot's identity folded to 32 bits (`nil` when the kernel gives none: nothing unsynced is trusted).
    static let bootHash: UInt32? = BootIdentity.current.map { identity in
        var hash: UInt32 = 2_166_136_261
        for byte in identity.utf8 { hash = (hash ^ UInt32(byte)) &* 16_777_619 }
        return hash == 0 ? 1 : hash
    }
}
