internal import ContentDownloads
internal import Glibc

/// One connected client, owned by the server thread (`iap-rpc`): its socket, the framer of what it sends, and
/// its bounded queue of lines to write.
///
/// The queue keeps every response and state notification, and at most one unread progress notification per
/// download (a newer one replaces it: ``CoalescingBuffer``). A client that lets more than
/// ``SocketServer/Limits/maximumQueued`` kept lines pile up is dropped.
final class ClientConnection {
    /// The server's number for it (in logs and in the dispatcher).
    let id: UInt64
    /// The connected socket (non-blocking).
    let fd: Int32
    /// The peer's process id, for log lines.
    let peerPID: Int32
    /// Cuts what it sends into lines.
    var framer: LineFramer
    /// Lines to write, coalesced per download for progress.
    var queued = CoalescingBuffer<[UInt8], String>()
    /// The bytes being written (a batch of lines) and how far.
    var writing: [UInt8] = []
    var written = 0
    /// Requests handed to the dispatcher and not answered yet.
    var inFlight = 0
    /// Receives notifications.
    var subscribed = false
    /// A peer of another user: it gets its error, then end of stream; what it sends is discarded until it
    /// closes (closing with its request unread would reset the connection before it read the error).
    var refused = false
    /// Set once the write side was shut down after the refusal.
    var shutDownWriting = false
    /// The peer shut down its writing side (`socat`, `nc` at the end of their input): its requests are still
    /// answered, then the connection is closed.
    var readClosed = false

    init(id: UInt64, fd: Int32, peerPID: Int32, lineLimit: Int) {
        self.id = id
        self.fd = fd
        self.peerPID = peerPID
        framer = LineFramer(limit: lineLimit)
    }

    /// Whether bytes wait to be written.
    var hasOutput: Bool { written < writing.count || !queued.isEmpty }

    /// Writes what it can without blocking; `false` when the peer is gone.
    func flush(batchBytes: Int) -> Bool {
        while true {
            if written == writing.count {
                writing.removeAll(keepingCapacity: writing.capacity <= batchBytes * 2)
                written = 0
                while writing.count < batchBytes, let line = queued.popFirst() { writing.append(contentsOf: line) }
                if writing.isEmpty { return true }
            }
            let n = writing.withUnsafeBytes { raw in
                send(fd, raw.baseAddress! + written, raw.count - written, Int32(MSG_NOSIGNAL))
            }
            if n > 0 {
                written += n
            } else if n < 0, errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR {
                return true
            } else {
                return false
            }
        }
    }
}
