internal import Glibc

/// systemd socket activation (`sd_listen_fds`): the listening socket a socket unit passed as fd 3.
enum SocketActivation {
    /// The first descriptor systemd passes.
    static let firstDescriptor: Int32 = 3

    /// fd 3 when `LISTEN_PID` is this process and `LISTEN_FDS` is at least 1 (the variables are then removed so
    /// children do not inherit them), else `nil`. The descriptor is made close-on-exec and non-blocking.
    static func takeListeningSocket(environment: [String: String]) -> Int32? {
        guard let pid = environment["LISTEN_PID"].flatMap({ Int32($0) }), pid == getpid(),
              let count = environment["LISTEN_FDS"].flatMap({ Int($0) }), count >= 1
        else { return nil }
        unsetenv("LISTEN_PID")
        unsetenv("LISTEN_FDS")
        unsetenv("LISTEN_FDNAMES")
        let fd = firstDescriptor
        _ = fcntl(fd, F_SETFD, FD_CLOEXEC)
        UnixSocket.setNonBlocking(fd)
        return fd
    }
}
