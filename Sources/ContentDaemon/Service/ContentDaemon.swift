public import ContentDownloads
internal import Foundation
internal import Logging
internal import SystemSupport

/// A `ContentQueue` served to other programs over a Unix socket: JSON-RPC 2.0, one message a line, with
/// the queue's changes pushed to subscribed clients.
///
/// One daemon drives one store (the store's driver lock: a second daemon, or a `download`, is refused). Its
/// methods mirror the queue's public API; only the socket's owner (same uid, checked with `SO_PEERCRED`) may
/// connect. ``start()`` opens the queue and listens; ``stop()`` closes the queue (transfers checkpoint and
/// resume at the next start) and the socket.
public actor ContentDaemon {
    /// The queue it serves (not yet opened).
    public nonisolated let queue: ContentQueue
    private let configuration: DaemonConfiguration
    private var server: SocketServer?
    private var tasks: [Task<Void, Never>] = []
    /// The periodic update check (``DaemonConfiguration/updateCheckInterval``), cancelled at ``stop()``.
    private var updateCheck: Task<Void, Never>?
    private let stopped = AsyncStream.makeStream(of: Void.self)
    /// Set by a ``stop()`` that came while starting: the start then stops at once.
    private var stopRequested = false
    private let logger = Logger(label: "iapcontent.daemon")

    /// A daemon for `queue` (which it opens at ``start()``).
    public init(queue: ContentQueue, configuration: DaemonConfiguration = DaemonConfiguration()) {
        self.queue = queue
        self.configuration = configuration
    }

    /// Opens the queue, then listens (the socket systemd passed, or ``DaemonConfiguration/socketPath``, or the
    /// default path) and starts forwarding the queue's changes. Returns the socket's path.
    /// - Throws: ``DaemonError/storeBusy(store:pid:)`` when another process drives the store;
    ///   ``DaemonError`` when the socket cannot be used; the queue's errors when it cannot open.
    @discardableResult
    public func start() async throws -> String {
        let updates = queue.updates  // before open: what it re-delivers is forwarded too
        do { try await queue.open() } catch DriverLockError.busy(let store, let pid) {
            throw DaemonError.storeBusy(store: store, pid: pid)
        }
        let listenFD: Int32
        let path: String
        let owned: String?
        do {
            if configuration.socketPath == nil, let fd = SocketActivation.takeListeningSocket(environment: configuration.environment) {
                listenFD = fd
                path = UnixSocket.boundPath(of: fd) ?? "fd \(fd)"
                owned = nil
            } else {
                path = try configuration.socketPath ?? DaemonConfiguration.defaultSocketPath(environment: configuration.environment)
                listenFD = try UnixSocket.listen(path: path)
                owned = path
            }
        } catch {
            await queue.close()
            throw error
        }
        let server = try SocketServer(listenFD: listenFD, ownedPath: owned)
        self.server = server
        server.start()
        let forwarder = NotificationForwarder(server: server)
        let dispatcher = RequestDispatcher(server: server, methods: DaemonMethods(queue: queue, configuration: configuration, server: server))
        tasks = [Task { await forwarder.run(updates) }, Task { await dispatcher.run() }]
        if let load = configuration.catalogLoader, let interval = configuration.updateCheckInterval, interval > .zero {
            let refresh = CatalogRefresh(queue: queue, load: load)
            updateCheck = Task { await refresh.periodically(every: interval) }
        }
        writeSocketRecord(path)
        logger.info("daemon: serving \(queue.store.root.path) on \(path)")
        if stopRequested { await stop() }
        return path
    }

    /// Returns once ``stop()`` has finished.
    public func run() async {
        for await _ in stopped.stream {}
    }

    /// Closes the queue (transfers stop with a checkpoint; the next start resumes them), then the socket and
    /// every connection. Idempotent.
    public func stop() async {
        guard let server else {
            stopRequested = true
            return
        }
        self.server = nil
        updateCheck?.cancel()
        await updateCheck?.value
        updateCheck = nil
        await queue.close()
        await server.stop()
        for task in tasks { await task.value }
        tasks = []
        try? FileManager.default.removeItem(at: queue.store.daemonSocketFile)
        logger.info("daemon: stopped; downloads resume at the next start")
        stopped.continuation.finish()
    }

    /// The protocol's OpenRPC 1.3 document (every method, its params and result, every notification), as
    /// `rpc.discover` answers it: pretty-printed JSON with sorted keys (what `docs/openrpc.json` holds).
    public static var openRPCDocument: String {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
        // A document of literals always encodes.
        return (try? String(decoding: encoder.encode(DaemonInterface.document), as: UTF8.self)) ?? "{}"
    }

    /// Writes the socket path into the store, so commands given `--store` find this daemon.
    private func writeSocketRecord(_ path: String) {
        do { try DurableFile.write(Data((path + "\n").utf8), to: queue.store.daemonSocketFile) } catch {
            logger.warning("daemon: cannot write \(queue.store.daemonSocketFile.path): \(error); `iapcontent pause|resume|cancel` will use the journal instead")
        }
    }
}
