internal import Glibc

/// Which boot of the kernel this process runs in (`/proc/sys/kernel/random/boot_id`).
///
/// A `kill -9` ends a process but not the page cache: every byte a `write(2)` put in the partial
/// file before the kill is still there, synced or not, until the machine goes down. So a restart in
/// the same boot may keep the partial file's whole length, while a restart after a reboot or power
/// loss keeps only what was fsynced (``TransferRecord/durableOffset``). The journal records the boot
/// at each checkpoint (``TransferRecord/writtenInBoot``); a new boot gets a new random identity.
enum BootIdentity {
    /// This boot's identity, or `nil` if the kernel does not say (then nothing past the durable offset is kept).
    static let current: String? = readFromKernel()

    private static func readFromKernel() -> String? {
        let fd = open("/proc/sys/kernel/random/boot_id", O_RDONLY | O_CLOEXEC)
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var bytes = [UInt8](repeating: 0, count: 64)
        let count = bytes.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
        guard count > 0 else { return nil }
        let text = String(decoding: bytes[0..<count].filter { $0 > 0x20 }, as: UTF8.self)
        return text.isEmpty ? nil : text
    }
}
