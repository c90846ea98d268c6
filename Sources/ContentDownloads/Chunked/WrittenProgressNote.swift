import Glibc

/// How far an in-place install has *written* (not necessarily made durable), for a restart in the same boot:
/// `<tree>.written` holds this boot's identity and the archive offset of the restart point after the last
/// chunk written. It is rewritten after each chunk and never fsynced.
///
/// Why: checkpoints fsync every file written since the last one, which on ext4 also commits its journal; one
/// every 4 MiB cost a 1 GiB download 0.2–0.4 s (1.27–1.56 s against 1.07–1.22 s at 32 MiB or more, `curl -o`
/// 1.11–1.14 s, same run). So checkpoints are far apart (``TransferSettings/chunkedCheckpointBytes``), and a
/// `kill -9` — which ends the process but not the page cache — must not throw away what was written since. In
/// the same boot the next run continues from this note (after `syncfs`, so that what the killed process wrote
/// is durable before anything newer is recorded); after a reboot or power loss the note's boot differs and
/// the journal's durable offset counts, as it must.
///
/// - Important: Owned by the install thread (writes) or read once before it starts.
final class WrittenProgressNote {
    private let fd: Int32
    private let boot: String

    /// Opens (creating) the note beside `treePath`; `nil` when the kernel gives no boot identity or the file
    /// cannot be opened (then restarts use the durable offset only).
    init?(treePath: String) {
        guard let boot = BootIdentity.current else { return nil }
        let fd = open(treePath + ".written", O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { return nil }
        self.fd = fd
        self.boot = boot
    }

    deinit { close(fd) }

    /// Records `offset` as written (a restart point); one `pwrite` into the page cache.
    func record(_ offset: Int64) {
        let line = Array("\(boot) \(offset)\n".utf8) + Array(repeating: UInt8(ascii: " "), count: 8)
        _ = line.withUnsafeBytes { pwrite(fd, $0.baseAddress, $0.count, 0) }
    }

    /// The offset written in this boot, if the note says one.
    static func offset(treePath: String) -> Int64? {
        guard let boot = BootIdentity.current else { return nil }
        let fd = open(treePath + ".written", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 128)
        let count = bytes.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let fields = String(decoding: bytes[0..<count], as: UTF8.self).split(whereSeparator: { $0 == " " || $0 == "\n" })
        guard fields.count >= 2, fields[0] == boot else { return nil }
        return Int64(fields[1])
    }

    /// Deletes the note of `treePath`.
    static func remove(treePath: String) { unlink(treePath + ".written") }
}
