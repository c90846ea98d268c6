internal import CLinuxSystem
internal import ContentDownloads
internal import Logging
internal import Glibc
internal import SystemSupport
import Synchronization

/// The daemon's socket side: one thread, `iap-rpc`, owns the listening socket and every client connection and
/// runs a `poll(2)` loop over them; nothing else touches a client's socket or queue.
///
/// Requests it reads go out, in order, through ``events``; what to write comes in through a mutex-guarded inbox
/// and an `eventfd` that wakes the loop (the transfer engine's pattern). Bad input is answered on this thread
/// (parse errors, oversized lines, other users) and never reaches the dispatcher.
final class SocketServer: Sendable {
    /// Bounds that keep one client from costing the daemon more than a few megabytes.
    struct Limits: Sendable {
        /// The longest request line.
        var lineBytes = 1 << 20
        /// Kept lines (responses, state changes) a client may leave unread before it is dropped.
        var maximumQueued = 4096
        /// Requests of one client in the dispatcher before the server stops reading that client.
        var maximumInFlight = 64
        /// Bytes gathered into one `send`.
        var batchBytes = 64 << 10
    }

    /// What the loop hands the dispatcher.
    enum Event: Sendable {
        /// A request of a client (a notification when its id is absent).
        case request(client: UInt64, RPCRequest)
        /// A batch of a client: its members, each a request or the error it is answered with; one reply for all.
        case batch(client: UInt64, [Result<RPCRequest, RPCError>])
        /// The client is gone; its requests in flight are answered into the void.
        case disconnected(client: UInt64)
    }

    /// What the dispatcher and the forwarder ask of the loop.
    enum Command: Sendable {
        /// The answer to a request (`nil` for a JSON-RPC notification, which gets none).
        case reply(client: UInt64, [UInt8]?)
        /// A notification for every subscribed client; `progressOf` names the download when it only moves
        /// progress (coalesced while unread).
        case broadcast([UInt8], progressOf: String?)
        /// Starts or stops notifications for a client.
        case subscribe(client: UInt64, Bool)
        /// Closes every connection and the listening socket, and ends ``events``.
        case stop
    }

    /// Requests, in the order read.
    let events: AsyncStream<Event>
    private let continuation: AsyncStream<Event>.Continuation
    private let inbox = Mutex<[Command]>([])
    private let wakeFD: Int32
    private let listenFD: Int32
    /// The socket file to remove when stopping (`nil` when systemd owns it).
    private let ownedPath: String?
    private let limits: Limits
    private let logger: Logger
    /// Ends when the loop has closed every socket.
    private let stopped = AsyncStream.makeStream(of: Void.self)

    /// A server on the listening socket `listenFD`; it starts reading at ``start()``. `logger` gets the lines
    /// about clients refused and dropped.
    init(
        listenFD: Int32, ownedPath: String?, limits: Limits = Limits(), logger: Logger = Logger(label: "iapcontent.daemon")
    ) throws(DaemonError) {
        self.logger = logger
        let wake = CLinuxSystem_eventfd()
        guard wake >= 0 else { throw .socket(path: ownedPath ?? "fd \(listenFD)", reason: UnixSocket.lastError()) }
        wakeFD = wake
        self.listenFD = listenFD
        self.ownedPath = ownedPath
        self.limits = limits
        (events, continuation) = AsyncStream.makeStream(of: Event.self)
    }

    /// Starts the `iap-rpc` thread.
    func start() {
        NamedThread.start("iap-rpc") { [self] in
            Loop(server: self).run()
        }
    }

    /// Hands a command to the loop and wakes it. Commands after ``Command/stop`` are ignored.
    func post(_ command: Command) {
        inbox.withLock { $0.append(command) }
        var one: UInt64 = 1
        _ = write(wakeFD, &one, 8)
    }

    /// Posts ``Command/stop`` and waits until the loop has closed every socket (call it once).
    func stop() async {
        post(.stop)
        for await _ in stopped.stream {}
    }

    /// The loop's state: only the `iap-rpc` thread has it.
    private final class Loop {
        let server: SocketServer
        var clients: [UInt64: ClientConnection] = [:]
        var nextID: UInt64 = 1
        let ownUID = geteuid()

        init(server: SocketServer) { self.server = server }

        func run() {
            var descriptors: [pollfd] = []
            var order: [UInt64] = []
            while true {
                descriptors.removeAll(keepingCapacity: true)
                order.removeAll(keepingCapacity: true)
                descriptors.append(pollfd(fd: server.wakeFD, events: Int16(POLLIN), revents: 0))
                descriptors.append(pollfd(fd: server.listenFD, events: Int16(POLLIN), revents: 0))
                for (id, client) in clients {
                    var events: Int32 = 0
                    if client.refused
                        || (!client.readClosed && client.inFlight < server.limits.maximumInFlight && client.queued.count < server.limits.maximumQueued / 4)
                    {
                        events |= Int32(POLLIN)
                    }
                    if client.hasOutput { events |= Int32(POLLOUT) }
                    descriptors.append(pollfd(fd: client.fd, events: Int16(events), revents: 0))
                    order.append(id)
                }
                let ready = poll(&descriptors, nfds_t(descriptors.count), -1)
                if ready < 0 {
                    if errno == EINTR { continue }
                    server.logger.error("daemon socket loop: poll failed: \(UnixSocket.lastError())")
                    break
                }
                if descriptors[0].revents != 0 {
                    var value: UInt64 = 0
                    _ = read(server.wakeFD, &value, 8)
                    if !applyCommands() { break }
                }
                if descriptors[1].revents & Int16(POLLIN) != 0 { acceptAll() }
                for (index, id) in order.enumerated() {
                    let revents = descriptors[index + 2].revents
                    guard revents != 0, let client = clients[id] else { continue }
                    // Both directions closed, or an error: nothing more can be read or written.
                    if revents & Int16(POLLHUP | POLLERR) != 0 { drop(client, reason: nil); continue }
                    if revents & Int16(POLLIN) != 0, !readAll(client) { drop(client, reason: nil); continue }
                    if client.hasOutput || client.readClosed { writeOut(client) }
                }
            }
            shutDown()
        }

        /// Applies the inbox; `false` once asked to stop.
        func applyCommands() -> Bool {
            let commands = server.inbox.withLock { inbox in
                defer { inbox.removeAll(keepingCapacity: true) }
                return inbox
            }
            var touched: [ObjectIdentifier: ClientConnection] = [:]
            for command in commands {
                switch command {
                case .stop:
                    return false
                case .reply(let id, let line):
                    guard let client = clients[id] else { continue }
                    client.inFlight -= 1
                    if let line { enqueue(line, progressOf: nil, to: client) }
                    touched[ObjectIdentifier(client)] = client
                case .broadcast(let line, let key):
                    for client in clients.values where client.subscribed {
                        enqueue(line, progressOf: key, to: client)
                        touched[ObjectIdentifier(client)] = client
                    }
                case .subscribe(let id, let on):
                    clients[id]?.subscribed = on
                }
            }
            for client in touched.values where clients[client.id] != nil { writeOut(client) }
            return true
        }

        /// Queues a line for a client, or drops the client when it let too much pile up.
        func enqueue(_ line: [UInt8], progressOf key: String?, to client: ClientConnection) {
            guard clients[client.id] != nil else { return }
            client.queued.append(line, progressOf: key)
        }

        /// Accepts every pending connection; another user's gets one error line and is closed.
        func acceptAll() {
            while true {
                let fd = CLinuxSystem_acceptNonBlocking(server.listenFD)
                if fd < 0 {
                    if errno == EINTR { continue }
                    if errno != EAGAIN, errno != EWOULDBLOCK {
                        server.logger.warning("daemon socket: accept failed: \(UnixSocket.lastError())")
                    }
                    return
                }
                let peer = UnixSocket.peer(of: fd)
                let client = ClientConnection(id: nextID, fd: fd, peerPID: peer?.pid ?? 0, lineLimit: server.limits.lineBytes)
                nextID += 1
                clients[client.id] = client
                guard let peer, peer.uid == ownUID else {
                    let uid = peer?.uid ?? UInt32.max
                    server.logger.warning("daemon socket: refused a connection from uid \(uid) (pid \(client.peerPID)): only uid \(ownUID) may connect")
                    client.queued.append(RPCMessage.error(.forbidden(peerUID: uid, ownUID: ownUID)), progressOf: nil)
                    client.refused = true
                    writeOut(client)
                    continue
                }
                server.logger.debug("daemon socket: client \(client.id) connected (pid \(client.peerPID))")
            }
        }

        /// Reads what the client sent (a bounded amount per turn); `false` when the connection failed. At the end
        /// of its stream the client is marked ``ClientConnection/readClosed``.
        func readAll(_ client: ClientConnection) -> Bool {
            var buffer = [UInt8](repeating: 0, count: 64 << 10)
            for _ in 0..<4 {
                let n = buffer.withUnsafeMutableBytes { recv(client.fd, $0.baseAddress, $0.count, 0) }
                if n == 0 {
                    if client.refused { return false }
                    client.readClosed = true
                    return true
                }
                if n < 0 {
                    if errno == EINTR { continue }
                    return errno == EAGAIN || errno == EWOULDBLOCK
                }
                if client.refused { continue }
                for piece in client.framer.append(buffer[0..<n]) { handle(piece, from: client) }
                if client.inFlight >= server.limits.maximumInFlight { return true }
            }
            return true
        }

        /// Answers bad input here; hands a request to the dispatcher.
        func handle(_ piece: LineFramer.Piece, from client: ClientConnection) {
            switch piece {
            case .oversized:
                client.queued.append(RPCMessage.error(.oversized(limit: server.limits.lineBytes)), progressOf: nil)
            case .line(let line):
                switch RPCLine.parse(line) {
                case .single(.failure(let error)):
                    client.queued.append(RPCMessage.error(error), progressOf: nil)
                case .single(.success(let request)):
                    client.inFlight += 1
                    server.continuation.yield(.request(client: client.id, request))
                case .batch(let members):
                    client.inFlight += 1
                    server.continuation.yield(.batch(client: client.id, members))
                }
            }
        }

        /// Writes what is queued; drops a client that is gone or lets too much pile up.
        func writeOut(_ client: ClientConnection) {
            guard client.flush(batchBytes: server.limits.batchBytes) else { return drop(client, reason: nil) }
            if client.queued.count > server.limits.maximumQueued {
                return drop(client, reason: "it left \(client.queued.count) messages unread")
            }
            if client.readClosed, client.inFlight == 0, !client.hasOutput { return drop(client, reason: nil) }
            if client.refused, !client.hasOutput, !client.shutDownWriting {
                client.shutDownWriting = true
                shutdown(client.fd, Int32(SHUT_WR))
            }
        }

        /// Closes a client; with a reason, says why in the log.
        func drop(_ client: ClientConnection, reason: String?) {
            guard clients[client.id] === client else { return }
            if let reason {
                server.logger.warning("daemon socket: dropped client \(client.id) (pid \(client.peerPID)): \(reason)")
            } else {
                server.logger.debug("daemon socket: client \(client.id) disconnected")
            }
            close(client.fd)
            clients[client.id] = nil
            server.continuation.yield(.disconnected(client: client.id))
        }

        /// Closes everything and ends ``events``.
        func shutDown() {
            for client in clients.values { close(client.fd) }
            clients.removeAll()
            close(server.listenFD)
            if let path = server.ownedPath { unlink(path) }
            close(server.wakeFD)
            server.continuation.finish()
            server.stopped.continuation.finish()
        }
    }
}
