public import Foundation
#if canImport(Glibc)
import Glibc
#endif

/// The one way a test server opens its socket: listening on 127.0.0.1 at a port the kernel picks (tests stay on
/// loopback, and many run at once).
public enum LoopbackListener {
    /// A socket listening on 127.0.0.1 at a free port with `backlog`, and the port; the caller owns the descriptor.
    /// - Throws: ``TestSupportError`` naming the call and its errno.
    public static func open(backlog: Int32 = 16) throws -> (fd: Int32, port: Int) {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw TestSupportError("socket: errno \(errno)") }
        var yes: Int32 = 1
        setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, socklen_t(MemoryLayout<Int32>.size))
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) }
        }
        guard bound == 0, listen(fd, backlog) == 0 else {
            let code = errno
            close(fd)
            throw TestSupportError("bind/listen: errno \(code)")
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        return (fd, Int(UInt16(bigEndian: address.sin_port)))
    }

    /// Accepts connections on `listener` until `stopped()` or `deadline`, handing each to `handle` (which owns it),
    /// polling every 200 ms so a stop or the deadline is seen; closes `listener` when it returns. The loop every
    /// test server runs on its own thread, so none outlives its test.
    public static func acceptEach(
        on listener: Int32, until deadline: Date, stopped: () -> Bool, _ handle: (Int32) -> Void
    ) {
        defer { close(listener) }
        while !stopped(), Date() < deadline {
            var pfd = pollfd(fd: listener, events: Int16(POLLIN), revents: 0)
            guard poll(&pfd, 1, 200) > 0 else { continue }
            let client = accept(listener, nil, nil)
            guard client >= 0 else { continue }
            handle(client)
        }
    }
}
