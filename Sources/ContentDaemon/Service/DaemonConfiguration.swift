public import ContentDownloads
public import Foundation

/// How an ``ContentDaemon`` listens and what its methods may use beyond the queue.
public struct DaemonConfiguration: Sendable {
    /// The socket to listen on. `nil`: the socket systemd passed (`LISTEN_FDS`), else ``defaultSocketPath(environment:)``.
    public var socketPath: String?
    /// Loads the catalog again (the `reloadCatalog` method and the periodic update check); `nil` refuses that
    /// method and checks nothing. Given the products the daemon needs (installed, in its queue, being added): a TUF
    /// repository's client (`RepositoryClient`) fetches only their bins; a `catalog.json` loader may ignore them.
    public var catalogLoader: (@Sendable (_ productIDs: [String]) async throws -> CatalogSource)?
    /// How often the daemon loads the catalog to find updates (`update.available`); `nil`: never by itself. With a
    /// TUF repository a check that finds nothing new costs one root probe and one 304.
    public var updateCheckInterval: Duration?
    /// The keys an entitlements document must be signed with (`restore` with `entitlements`).
    public var publicKeys: [String]
    /// How requests for entitlements documents reach the server.
    public var transport: TransferSettings
    /// The environment to read `LISTEN_PID`, `LISTEN_FDS` and `XDG_RUNTIME_DIR` from.
    public var environment: [String: String]

    /// A configuration; every argument has the default a plain `iapcontent daemon` uses.
    public init(
        socketPath: String? = nil, catalogLoader: (@Sendable (_ productIDs: [String]) async throws -> CatalogSource)? = nil,
        updateCheckInterval: Duration? = nil, publicKeys: [String] = [], transport: TransferSettings = TransferSettings(),
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.socketPath = socketPath
        self.catalogLoader = catalogLoader
        self.updateCheckInterval = updateCheckInterval
        self.publicKeys = publicKeys
        self.transport = transport
        self.environment = environment
    }

    /// `$XDG_RUNTIME_DIR/iapcontent/daemon.sock`.
    /// - Throws: ``DaemonError/noRuntimeDirectory`` when `XDG_RUNTIME_DIR` is unset or relative.
    public static func defaultSocketPath(environment: [String: String]) throws(DaemonError) -> String {
        guard let runtime = environment["XDG_RUNTIME_DIR"], runtime.hasPrefix("/") else { throw .noRuntimeDirectory }
        return URL(fileURLWithPath: runtime).appendingPathComponent("iapcontent/daemon.sock").path
    }
}
