import Glibc

/// Recognises executable code by its first bytes, whatever the file is called.
///
/// Hosted content is data; shipping code through it breaks App Review rules and would let a
/// compromised host run code on clients. Formats: ELF, Mach-O (thin 32/64-bit both byte orders,
/// fat/fat64 — told apart from Java class files, which share `CAFEBABE`, by the architecture
/// count), PE (`MZ` with a `PE\0\0` signature at `e_lfanew`), and `#!` scripts.
/// Reads at most 64 bytes plus 4 at `e_lfanew`: memory stays flat.
public enum ExecutableSniffer {
    /// How many leading bytes ``kind(prefix:peek:)`` wants.
    public static let prefixLength = 64

    /// A human name of the executable format at the start of a file, or `nil` for data.
    ///
    /// - Parameters:
    ///   - prefix: the file's first bytes (up to ``prefixLength``).
    ///   - peek: reads 4 bytes at a file offset (for the PE signature); `nil` past the end.
    public static func kind(prefix: [UInt8], peek: (Int64) -> [UInt8]?) -> String? {
        guard prefix.count >= 2 else { return nil }
        if prefix[0] == 0x23, prefix[1] == 0x21 { return "script with a '#!' line" }
        if prefix.count >= 4 {
            let magic = prefix[0..<4].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            switch magic {
            case 0x7F45_4C46: return "ELF executable or library"
            case 0xFEED_FACE, 0xCEFA_EDFE: return "Mach-O executable (32-bit)"
            case 0xFEED_FACF, 0xCFFA_EDFE: return "Mach-O executable (64-bit)"
            case 0xCAFE_BABE, 0xCAFE_BABF:
                // Fat header: big-endian nfat_arch follows. Java class files put minor/major
                // version there instead (major ≥ 45), so a small non-zero count means Mach-O.
                if prefix.count >= 8 {
                    let count = prefix[4..<8].reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
                    if count > 0, count < 0x20 { return "Mach-O universal (fat) binary" }
                }
            default: break
            }
        }
        if prefix[0] == 0x4D, prefix[1] == 0x5A, prefix.count >= 0x40 {  // "MZ"
            let offset = prefix[0x3C..<0x40].reversed().reduce(UInt32(0)) { $0 << 8 | UInt32($1) }
            if offset >= 0x40, let signature = peek(Int64(offset)), signature == [0x50, 0x45, 0, 0] {
                return "Windows PE executable"
            }
        }
        return nil
    }

    /// Sniffs the regular file at `path` (raw bytes); `nil` for data or when it cannot be read.
    static func kind(ofFileAt path: [UInt8]) -> String? {
        let fd = (path + [0]).withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_RDONLY | O_NOFOLLOW | O_CLOEXEC) }
        }
        guard fd >= 0 else { return nil }
        defer { close(fd) }
        var prefix = [UInt8](repeating: 0, count: prefixLength)
        let count = prefix.withUnsafeMutableBytes { pread(fd, $0.baseAddress, prefixLength, 0) }
        guard count > 0 else { return nil }
        prefix.removeLast(prefixLength - count)
        return kind(prefix: prefix) { offset in
            var bytes = [UInt8](repeating: 0, count: 4)
            let read = bytes.withUnsafeMutableBytes { pread(fd, $0.baseAddress, 4, off_t(offset)) }
            return read == 4 ? bytes : nil
        }
    }
}
