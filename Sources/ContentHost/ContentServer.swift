public import ContentDelivery
public import Foundation
import Hummingbird
public import Logging
import NIOCore
import ServiceLifecycle
import UnixSignals

/// `iapcontent serve`: a small, read-only HTTP server for a catalog folder (Hummingbird 2).
///
/// Good for development, demos and small deployments; in production put the same folder behind
/// nginx, S3 or a CDN (docs/HOSTING.md). Binds loopback by default.
public struct ContentServer: Sendable {
    /// What to serve and where.
    public struct Configuration: Sendable {
        /// The catalog folder (`catalog.json`, `catalog.json.sig`, `archives/`).
        public var root: URL
        /// Address to bind; loopback unless the publisher opts in.
        public var host: String
        /// Port to bind; `0` picks a free one (the real one is passed to `onReady`).
        public var port: Int
        /// When set, `archives/*` need a valid purchaser token; the catalog stays public.
        public var tokenKey: URLTokenKey?

        /// Creates a configuration.
        public init(root: URL, host: String = "127.0.0.1", port: Int = 8080, tokenKey: URLTokenKey? = nil) {
            self.root = root
            self.host = host
            self.port = port
            self.tokenKey = tokenKey
        }
    }

    /// The configuration in use.
    public let configuration: Configuration
    let logger: Logger

    /// Creates a server; nothing is bound until ``run(until:onReady:)``.
    public init(configuration: Configuration, logger: Logger = Logger(label: "iapcontent.serve")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until SIGINT/SIGTERM, until `stop` returns, or until the task is cancelled.
    ///
    /// SIGINT, SIGTERM and `stop` shut down gracefully: the listener closes and in-flight
    /// responses finish. Task cancellation stops at once.
    /// - Parameters:
    ///   - stop: Optional; when it returns, the server shuts down gracefully (used by tests and
    ///     embedders that own the server's lifetime).
    ///   - onReady: Called once with the base URL actually listening
    ///     (e.g. `http://127.0.0.1:49152/`).
    /// - Throws: When the folder does not exist or the address cannot be bound.
    public func run(
        until stop: (@Sendable () async -> Void)? = nil, onReady: @escaping @Sendable (URL) async -> Void
    ) async throws {
        let folder = try FolderPath(root: configuration.root)
        let responder = CatalogFolderResponder(
            folder: folder, tokenVerifier: configuration.tokenKey.map(URLTokenVerifier.init(key:)), logger: logger)
        let host = configuration.host
        let app = Application(
            responder: responder,
            configuration: .init(address: .hostname(host, port: configuration.port), serverName: nil),
            onServerRunning: { channel in
                let port = channel.localAddress?.port ?? 0
                let printable = host.contains(":") ? "[\(host)]" : host
                await onReady(URL(string: "http://\(printable):\(port)/")!)
            },
            logger: logger)
        let group = ServiceGroup(
            configuration: .init(services: [app], gracefulShutdownSignals: [.sigterm, .sigint], logger: logger))
        try await withThrowingTaskGroup(of: Bool.self) { tasks in
            tasks.addTask {
                try await group.run()
                return true  // the server finished
            }
            if let stop {
                tasks.addTask {
                    await stop()
                    await group.triggerGracefulShutdown()
                    return false
                }
            }
            while let serverFinished = try await tasks.next() {
                if serverFinished { tasks.cancelAll() }
            }
        }
    }
}
