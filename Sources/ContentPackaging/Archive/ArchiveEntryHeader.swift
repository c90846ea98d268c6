/// What one archive header says, read before any of the entry's data.
///
/// Readers check these against policy (only files and directories, safe names, declared sizes)
/// before writing a byte; see `PathRules`.
public struct ArchiveEntryHeader: Sendable, Equatable {
    /// The kind of file system object an entry describes.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// The kinds a tar header can name: a regular file (the only kind with data), a directory, and the
        /// kinds that are never installed — symbolic and hard links, FIFOs, character and block devices, sockets.
        case regular, directory, symlink, hardlink, fifo, characterDevice, blockDevice, socket
        /// A type libarchive reports that none of the above matches (raw `S_IFMT` bits).
        case unknown(UInt32)

        /// A human name used in error messages.
        public var description: String {
            switch self {
            case .regular: "regular file"
            case .directory: "directory"
            case .symlink: "symbolic link"
            case .hardlink: "hard link"
            case .fifo: "FIFO"
            case .characterDevice: "character device"
            case .blockDevice: "block device"
            case .socket: "socket"
            case .unknown(let bits): "unknown file type (mode bits \(String(bits, radix: 8)))"
            }
        }
    }

    /// The path exactly as stored (raw bytes; may be invalid UTF-8).
    public var pathBytes: [UInt8]
    /// The path decoded as UTF-8 (invalid sequences replaced); use ``pathBytes`` for checks.
    public var path: String { String(decoding: pathBytes, as: UTF8.self) }
    /// Object kind.
    public var kind: Kind
    /// Declared data size in bytes (0 for directories).
    public var size: Int64
    /// Permission bits as stored (ignored on extraction: files 0644, directories 0755).
    public var permissions: UInt32
    /// Link target for symlinks and hard links.
    public var linkTarget: String?

    /// Creates a header value.
    public init(pathBytes: [UInt8], kind: Kind, size: Int64, permissions: UInt32, linkTarget: String? = nil) {
        self.pathBytes = pathBytes
        self.kind = kind
        self.size = size
        self.permissions = permissions
        self.linkTarget = linkTarget
    }
}
