import Foundation
import Glibc
import TestSupport

/// Ways to break a valid package folder, for the invalid-folder tests.
enum FolderDamage {
    static func write(_ root: URL, _ path: String, _ bytes: [UInt8]) throws {
        let url = root.appendingPathComponent(path)
        try FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        try Data(bytes).write(to: url)
    }

    static func contentInfo(_ root: URL, _ values: [String: String?]) throws {
        try PackageFixture.binaryContentInfo(values).write(to: root.appendingPathComponent("ContentInfo.plist"))
    }

    static func version(_ version: String) -> @Sendable (URL) throws -> Void {
        { root in try contentInfo(root, ["IAPProductIdentifier": "com.example.test", "ContentVersion": version]) }
    }

    static func productID(_ id: String) -> @Sendable (URL) throws -> Void {
        { root in try contentInfo(root, ["IAPProductIdentifier": id, "ContentVersion": "1.0"]) }
    }

    /// Creates a file whose name is the raw bytes given (possibly invalid UTF-8), via `open(2)`.
    static func rawNamedFile(_ root: URL, _ name: [UInt8]) throws {
        let path = Array((root.path + "/Contents/").utf8) + name + [0]
        let fd = path.withUnsafeBufferPointer { buffer in
            buffer.withMemoryRebound(to: CChar.self) { open($0.baseAddress!, O_WRONLY | O_CREAT | O_EXCL, 0o644) }
        }
        guard fd >= 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
        close(fd)
    }

    /// Binds an AF_UNIX socket at `path`, leaving the socket file behind.
    static func socketFile(at path: String) throws {
        let fd = socket(AF_UNIX, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        defer { close(fd) }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        let bytes = Array(path.utf8)
        precondition(bytes.count < MemoryLayout.size(ofValue: address.sun_path))
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
        }
        let result = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(fd, $0, socklen_t(MemoryLayout<sockaddr_un>.size))
            }
        }
        guard result == 0 else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    }

    /// A minimal PE file: `MZ`, `e_lfanew` = 0x80, `PE\0\0` there.
    static var peBytes: [UInt8] {
        var bytes = [UInt8](repeating: 0, count: 0x100)
        bytes[0] = 0x4D
        bytes[1] = 0x5A
        bytes[0x3C] = 0x80
        bytes[0x80] = 0x50
        bytes[0x81] = 0x45
        return bytes
    }
}
