public import ContentDelivery
public import Foundation
import Hummingbird
public import Logging
import NIOCore

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

    /// Creates a server; nothing is bound until ``run(onReady:)``.
    public init(configuration: Configuration, logger: Logger = Logger(label: "iapcontent.serve")) {
        self.configuration = configuration
        self.logger = logger
    }

    /// Serves until SIGINT/SIGTERM (graceful: in-flight responses finish) or task cancellation.
    ///
    /// - Parameter onReady: Called once with the base URL actually listening
    ///   (e.g. `http://127.0.0.1:49152/`).
    /// - Throws: When the folder does not exist or the address cannot be bound.
    public func run(onReady: @escaping @Sendable (URL) async -> Void) async throws {
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
        try await app.runService()
    }
}
