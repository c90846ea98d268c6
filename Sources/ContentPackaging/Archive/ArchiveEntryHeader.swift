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
    public var pathBytes: [UInt8] {
        didSet { spelledPath = nil }
    }
    /// The path decoded as UTF-8 (invalid sequences replaced); use ``pathBytes`` for checks.
    public var path: String { String(decoding: pathBytes, as: UTF8.self) }
    /// The path as a stored path: the one a caller made the header from (a manifest file's), else one sharing
    /// ``pathBytes``; the rules that remember paths keep this, so neither copies the bytes.
    package var storedPath: StoredPath { spelledPath ?? StoredPath(bytes: pathBytes) }
    /// The stored path a caller already holds for these bytes (a manifest's, in a buffer shared with its other
    /// paths); `nil` uses ``pathBytes``.
    private var spelledPath: StoredPath?
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

    /// A header for `path`, a valid `String`.
    package init(path: String, kind: Kind, size: Int64, permissions: UInt32) {
        self.init(pathBytes: Array(path.utf8), kind: kind, size: size, permissions: permissions)
    }

    /// A header for `storedPath`, a valid path the caller keeps (a manifest file's): ``storedPath`` returns that
    /// very path, so what remembers paths shares its buffer.
    package init(storedPath: StoredPath, kind: Kind, size: Int64, permissions: UInt32) {
        self.init(pathBytes: Array(storedPath.utf8), kind: kind, size: size, permissions: permissions)
        spelledPath = storedPath
    }

    /// Headers are equal when what they say is: the path's bytes, kind, size, permissions and link target.
    public static func == (lhs: ArchiveEntryHeader, rhs: ArchiveEntryHeader) -> Bool {
        lhs.pathBytes == rhs.pathBytes && lhs.kind == rhs.kind && lhs.size == rhs.size
            && lhs.permissions == rhs.permissions && lhs.linkTarget == rhs.linkTarget
    }
}
