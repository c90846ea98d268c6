import ArgumentParser
import ContentCommandLine
import ContentDaemon
import ContentDownloads
import Foundation

extension IAPContent {
    /// `iapcontent daemon`: the store's queue served over a Unix socket (JSON-RPC 2.0, one message a line).
    struct Daemon: AsyncParsableCommand {
        static let configuration = CommandConfiguration(
            commandName: "daemon",
            abstract: "Serve the store's download queue to other programs over a Unix socket (JSON-RPC 2.0, events pushed).",
            discussion: HelpText.daemon)

        @OptionGroup var storeOptions: StoreLocationOptions

        @Option(help: ArgumentHelp(
            "The socket to listen on (default: the one systemd passes, else $XDG_RUNTIME_DIR/iapcontent/daemon.sock).",
            valueName: "path"))
        var socket: String?

        @OptionGroup var catalogOptions: CatalogOptions

        @OptionGroup var global: GlobalOptions

        @OptionGroup var transfer: TransferOptions

        @Option(
            name: .customLong("check-interval"),
            help: ArgumentHelp(
                "Seconds between update checks (the catalog loaded again; `update.available` for each new version); 0: none.",
                valueName: "seconds"))
        var checkInterval: Int = 3600

        @Flag(help: "Print the protocol's OpenRPC document (what `rpc.discover` answers; docs/openrpc.json) and exit.")
        var openrpc = false

        func run() async throws {
            if openrpc { return Output.line(ContentDaemon.openRPCDocument) }
            global.bootstrapLogging()
            let store = try storeOptions.openStore()
            let keys = catalogOptions.publicKeys()
            let settings = transfer.transferSettings()
            let root = catalogOptions.trustedRoot()
            let location = try root.map { _ in try catalogOptions.catalog() }
            let repository = try root.map { root in
                try exitingOnDownloadError { () throws(DownloadError) in
                    try RepositoryClient(repository: location!, trustedRootFile: root, store: store, transport: settings)
                }
            }
            let loader: (@Sendable ([String]) async throws -> CatalogSource)? = (try? catalogOptions.catalog()).map { location in
                if let repository { return { products in try await repository.catalogSource(for: products) } }
                return { _ in try await CatalogSource.loadVerified(location, pinnedPublicKeys: keys, store: store, transport: settings) }
            }
            var catalog: CatalogSource?
            if let loader {
                do { catalog = try await loader(store.installedProductIDs()) } catch {
                    Output.error("\(error); the daemon starts without a catalog (`reloadCatalog` tries again)")
                }
            }
            let queue = try ContentQueue(
                store: store, catalog: catalog, options: transfer.downloadOptions(),
                installOptions: ContentInstaller.Options(deferDeletion: false))
            let daemon = ContentDaemon(
                queue: queue,
                configuration: DaemonConfiguration(
                    socketPath: socket, catalogLoader: loader, updateCheckInterval: checkInterval > 0 ? .seconds(checkInterval) : nil,
                    publicKeys: keys, transport: settings))
            let interrupted = InterruptFlag()
            let signals = interrupted.trapTerminationSignals { Task { await daemon.stop() } }
            defer { signals.forEach { $0.cancel() } }
            let path = try await exitingOnOpenFailure(store: store) { try await daemon.start() }
            if !global.quiet { Output.line("listening on \(path)") }
            await daemon.run()
        }
    }
}
