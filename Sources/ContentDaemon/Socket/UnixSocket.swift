internal import CLinuxSystem
internal import Glibc

/// Plain `AF_UNIX` stream sockets: the few calls the daemon and its clients make, each returning a descriptor
/// or a ``DaemonError`` naming the path and what to do.
enum UnixSocket {
    /// The most bytes a socket path may have (`sun_path` holds 108 with its terminating zero).
    static let maximumPathBytes = 107

    /// Calls `body` with `path` as a `sockaddr_un`.
    private static func withAddress<T>(
        _ path: String, _ body: (UnsafePointer<sockaddr>, socklen_t) -> T
    ) throws(DaemonError) -> T {
        let bytes = Array(path.utf8)
        guard !bytes.isEmpty, bytes.count <= maximumPathBytes else {
            throw .socket(path: path, reason: "a socket path has 1 to \(maximumPathBytes) bytes; pass a shorter --socket")
        }
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        withUnsafeMutableBytes(of: &address.sun_path) { raw in
            raw.copyBytes(from: bytes)
            raw[bytes.count] = 0
        }
        return withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { body($0, socklen_t(MemoryLayout<sockaddr_un>.size)) }
        }
    }

    /// A new stream socket, close-on-exec, blocking or not.
    private static func makeSocket(path: String, nonBlocking: Bool) throws(DaemonError) -> Int32 {
        var type = Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        if nonBlocking { type |= Int32(SOCK_NONBLOCK.rawValue) }
        let fd = socket(AF_UNIX, type, 0)
        guard fd >= 0 else { throw .socket(path: path, reason: lastError()) }
        return fd
    }

    /// Connects to the socket at `path` (blocking); the descriptor, or an error saying nothing listens there.
    static func connect(path: String) throws(DaemonError) -> Int32 {
        let fd = try makeSocket(path: path, nonBlocking: false)
        let result = try withAddress(path) { Glibc.connect(fd, $0, $1) }
        guard result == 0 else {
            let reason = lastError()
            close(fd)
            throw .notRunning(socket: path, reason: reason)
        }
        return fd
    }

    /// Binds and listens at `path`, mode 0600, its folder created with mode 0700 when missing. A socket file
    /// nobody answers on (left by a killed daemon) is replaced; a live one is refused.
    static func listen(path: String) throws(DaemonError) -> Int32 {
        try makeParentFolder(of: path)
        var status = stat()
        if lstat(path, &status) == 0 {
            guard status.st_mode & S_IFMT == S_IFSOCK else {
                throw .socket(path: path, reason: "the path exists and is not a socket; remove it or pass another --socket")
            }
            if let live = try? connect(path: path) {
                close(live)
                throw .socketInUse(path: path)
            }
            unlink(path)
        }
        let fd = try makeSocket(path: path, nonBlocking: true)
        let bound = try withAddress(path) { bind(fd, $0, $1) }
        guard bound == 0, chmod(path, 0o600) == 0, Glibc.listen(fd, 128) == 0 else {
            let reason = lastError()
            close(fd)
            throw .socket(path: path, reason: reason)
        }
        return fd
    }

    /// The path a listening socket is bound to (for a socket systemd passed), `nil` for an unnamed one.
    static func boundPath(of fd: Int32) -> String? {
        var address = sockaddr_un()
        var length = socklen_t(MemoryLayout<sockaddr_un>.size)
        let result = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        guard result == 0, address.sun_family == sa_family_t(AF_UNIX) else { return nil }
        let path = withUnsafeBytes(of: &address.sun_path) { raw in
            String(decoding: raw.prefix(while: { $0 != 0 }), as: UTF8.self)
        }
        return path.isEmpty ? nil : path
    }

    /// The uid and pid of the process at the other end of `fd`.
    static func peer(of fd: Int32) -> (uid: UInt32, pid: Int32)? {
        var uid: UInt32 = 0
        var pid: Int32 = 0
        return CLinuxSystem_peerCredentials(fd, &uid, &pid) == 0 ? (uid, pid) : nil
    }

    /// Makes `fd` non-blocking.
    static func setNonBlocking(_ fd: Int32) {
        let flags = fcntl(fd, F_GETFL)
        _ = fcntl(fd, F_SETFL, flags | O_NONBLOCK)
    }

    /// `mkdir -p` of the socket's folder; a folder it creates gets mode 0700 (`$XDG_RUNTIME_DIR/iapcontent`).
    private static func makeParentFolder(of path: String) throws(DaemonError) {
        var components = path.split(separator: "/", omittingEmptySubsequences: false).dropLast()
        var current = path.hasPrefix("/") ? "" : "."
        if components.first == "" { components = components.dropFirst() }
        for component in components where !component.isEmpty {
            current += "/" + component
            if mkdir(current, 0o700) != 0, errno != EEXIST {
                throw .socket(path: path, reason: "cannot create the folder \(current): \(lastError())")
            }
        }
    }

    /// `strerror(errno)`.
    static func lastError() -> String { String(cString: strerror(errno)) }
}
