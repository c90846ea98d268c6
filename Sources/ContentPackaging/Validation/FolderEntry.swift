/// One object found under a package folder, described from `lstat` (links are never followed).
public struct FolderEntry: Sendable, Equatable {
    /// The kind of file system object, from the `S_IFMT` bits.
    public enum Kind: Sendable, Equatable, CustomStringConvertible {
        /// A regular file (hard links included: each name is an ordinary file).
        case regular
        /// A directory.
        case directory
        /// A symbolic link (never followed).
        case symlink
        /// A named pipe.
        case fifo
        /// A Unix-domain socket.
        case socket
        /// A character device node.
        case characterDevice
        /// A block device node.
        case blockDevice
        /// Any other `S_IFMT` value.
        case unknown

        /// A human name used in messages.
        public var description: String {
            switch self {
            case .regular: "regular file"
            case .directory: "directory"
            case .symlink: "symbolic link"
            case .fifo: "FIFO (named pipe)"
            case .socket: "socket"
            case .characterDevice: "character device"
            case .blockDevice: "block device"
            case .unknown: "unknown file type"
            }
        }
    }

    /// Path relative to the package root, raw bytes, `/`-separated (may be invalid UTF-8).
    public var pathBytes: [UInt8]
    /// The path decoded as UTF-8 (invalid bytes replaced), for messages.
    public var path: String { String(decoding: pathBytes, as: UTF8.self) }
    /// Object kind.
    public var kind: Kind
    /// Size in bytes for regular files, 0 otherwise.
    public var size: Int64

    /// Creates an entry.
    public init(pathBytes: [UInt8], kind: Kind, size: Int64) {
        self.pathBytes = pathBytes
        self.kind = kind
        self.size = size
    }
}
