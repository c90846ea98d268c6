import ArgumentParser
import ContentDownloads

/// How `download` and `restore` fetch archives, as one option group: `@OptionGroup var transfer: TransferOptions`,
/// then ``downloadOptions()`` for the queue or the manager and ``loadCatalog(_:publicKeys:store:)`` for the catalog
/// (both honour `--ca-file`).
struct TransferOptions: ParsableArguments {
    @Option(help: "Downloads running at once.")
    var concurrency: Int = 3

    @Option(name: .customLong("max-rate"), help: "Total receive cap in bytes per second (divided among downloads).")
    var maxRate: Int64?

    @Option(name: .customLong("ca-file"), help: "A PEM file of extra trusted certificate authorities.")
    var caFile: String?

    @Option(name: .customLong("max-attempts"), help: "Attempts per download on network errors before failing.")
    var maxAttempts: Int = 5

    @Option(name: .customLong("retry-delay"), help: "First retry delay in seconds (doubles per attempt).")
    var retryDelay: Double = 1

    @Option(name: .customLong("stall-timeout"), help: "Seconds without data before a connection is retried.")
    var stallTimeout: Int = 30

    /// Refuses values the engine cannot use (a usage error, exit status 2).
    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        if let maxRate, maxRate < 1 { throw ValidationError("--max-rate must be a positive number of bytes per second") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard retryDelay >= 0 else { throw ValidationError("--retry-delay must be zero or more seconds") }
        // 0 would turn libcurl's stall detection off, and a stalled connection would then hang the run.
        guard stallTimeout >= 1 else { throw ValidationError("--stall-timeout must be at least 1 second") }
    }

    /// The engine's options for these flags (its defaults for everything they do not set).
    func downloadOptions() -> DownloadOptions {
        var options = DownloadOptions()
        options.concurrency = concurrency
        options.maxBytesPerSecond = maxRate ?? 0
        options.maxAttempts = maxAttempts
        options.retryBaseDelay = retryDelay
        options.transfer.caFile = caFile
        options.transfer.lowSpeedTime = stallTimeout
        return options
    }

    /// Loads the catalog at `location` through the client's one trust path
    /// (``CatalogSource/loadVerified(_:pinnedPublicKeys:store:caFile:now:)``): signature when keys are pinned,
    /// expiry and rollback always; an https catalog is fetched trusting `--ca-file` too.
    func loadCatalog(_ location: String, publicKeys: [String], store: Store) throws(DownloadError) -> CatalogSource {
        try CatalogSource.loadVerified(location, pinnedPublicKeys: publicKeys, store: store, caFile: caFile)
    }
}
