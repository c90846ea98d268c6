import ArgumentParser
import ContentCommandLine
import ContentDownloads
import ContentPackaging

/// How `download` and `restore` fetch the catalog, manifests and archives, as one option group:
/// `@OptionGroup var transfer: TransferOptions`, then ``downloadOptions()`` for the queue or the manager and
/// ``loadCatalog(_:_:products:store:)`` for the catalog. Both use the same ``transferSettings()``, so `--ca-file`,
/// `--proxy`, `--cert`/`--key`, `--user-agent` and `--header` reach every request.
struct TransferOptions: ParsableArguments {
    @Option(help: "Downloads running at once.")
    var concurrency: Int = 3

    @Option(name: .customLong("max-rate"), help: "Total receive cap in bytes per second (divided among downloads).")
    var maxRate: Int64?

    @Option(name: .customLong("ca-file"), help: "A PEM file of extra trusted certificate authorities.")
    var caFile: String?

    @Option(
        name: .customLong("header"),
        help: ArgumentHelp(
            "An extra request header for the catalog, manifests and archives (repeatable), e.g. 'Authorization: Bearer <token>'.",
            valueName: "header"))
    var headers: [String] = []

    @Option(name: .customLong("user-agent"), help: "The User-Agent of every request (default: iapcontent/<version>).")
    var userAgent: String?

    @Option(
        help: ArgumentHelp(
            "A proxy for every request: http://host:port, socks5h://host:port; '' for none (default: $https_proxy, $http_proxy).",
            valueName: "url"))
    var proxy: String?

    @Option(help: ArgumentHelp("A PEM client certificate, for servers that ask for one.", valueName: "file"))
    var cert: String?

    @Option(help: ArgumentHelp("The private key of --cert, PEM and unencrypted (default: in the --cert file).", valueName: "file"))
    var key: String?

    @Option(name: .customLong("max-attempts"), help: "Attempts per download on network errors before failing.")
    var maxAttempts: Int = 5

    @Option(name: .customLong("retry-delay"), help: "First retry delay in seconds (doubles per attempt).")
    var retryDelay: Double = 1

    @Option(name: .customLong("stall-timeout"), help: "Seconds without data before a connection is retried.")
    var stallTimeout: Int = 30

    @Option(help: ArgumentHelp(
        "Connections a chunk-indexed download opens at first, over all mirrors (twice as many streams with --http2; it adds more while they pay, up to --max-connections).",
        valueName: "n"))
    var connections: Int = TransferSettings().connections

    @Option(name: .customLong("max-connections"), help: ArgumentHelp("The most connections one chunk-indexed download uses.", valueName: "n"))
    var maxConnections: Int = TransferSettings().maxConnections

    @Flag(help: ArgumentHelp(
        "Ask for HTTP/2: a chunk-indexed download's connections become streams of one connection per server (over TLS when the server agrees; over http: the server must speak HTTP/2 directly). The default, HTTP/1.1, opens separate connections, which servers that cap each connection serve faster."))
    var http2 = false

    @Option(name: .customLong("select"), help: ArgumentHelp(
        "This device on a variant axis, most preferred first (repeatable): language=fr, language=pt-BR,pt, arch=aarch64, texture=astc,etc2. A product's first install picks its variants by it; the rest come from LANGUAGE/LANG and uname -m.",
        valueName: "axis=value[,value]"))
    var select: [String] = []

    @Flag(name: .customLong("no-prefetch"), help: "Install only a purchase's essential packs; its prefetch packs wait for `iapcontent packs --add`.")
    var noPrefetch = false

    /// Refuses values the engine cannot use (a usage error, exit status 2).
    func validate() throws {
        guard concurrency >= 1 else { throw ValidationError("--concurrency must be at least 1") }
        if let maxRate, maxRate < 1 { throw ValidationError("--max-rate must be a positive number of bytes per second") }
        guard maxAttempts >= 1 else { throw ValidationError("--max-attempts must be at least 1") }
        guard retryDelay >= 0 else { throw ValidationError("--retry-delay must be zero or more seconds") }
        // 0 would turn libcurl's stall detection off, and a stalled connection would then hang the run.
        guard stallTimeout >= 1 else { throw ValidationError("--stall-timeout must be at least 1 second") }
        guard connections >= 1, maxConnections >= connections, maxConnections <= 64 else {
            throw ValidationError("--connections must be at least 1 and at most --max-connections (at most 64)")
        }
        if let problem = transferSettings().headerProblem() { throw ValidationError("--header: \(problem)") }
        if key != nil, cert == nil { throw ValidationError("--key needs --cert (the certificate it belongs to)") }
        var profile = DeviceProfile()
        for assignment in select {
            do { try profile.set(assignment) } catch { throw ValidationError("--select: \(error.message)") }
        }
    }

    /// `profile` with each `--select` axis set (validated already).
    func applyingSelect(to profile: DeviceProfile) -> DeviceProfile {
        var profile = profile
        for assignment in select { try? profile.set(assignment) }
        return profile
    }

    /// How every request reaches the server: `--ca-file`, `--proxy`, `--cert`, `--key`, `--user-agent`,
    /// `--header`, `--stall-timeout`, `--connections`, `--max-connections` and `--http2` over the engine's defaults.
    func transferSettings() -> TransferSettings {
        var settings = TransferSettings()
        settings.caFile = caFile
        settings.proxy = proxy
        settings.clientCertificate = cert
        settings.clientKey = key
        settings.userAgent = userAgent ?? "iapcontent/\(ProgramVersion.release)"
        settings.headers = headers
        settings.lowSpeedTime = stallTimeout
        settings.connections = connections
        settings.maxConnections = maxConnections
        settings.httpVersion = http2 ? .http2 : .http1_1
        return settings
    }

    /// The engine's options for these flags (its defaults for everything they do not set).
    func downloadOptions() -> DownloadOptions {
        var options = DownloadOptions()
        options.concurrency = concurrency
        options.maxBytesPerSecond = maxRate ?? 0
        options.maxAttempts = maxAttempts
        options.retryBaseDelay = retryDelay
        options.transfer = transferSettings()
        options.deviceProfile = applyingSelect(to: options.deviceProfile)
        options.prefetchesPacks = !noPrefetch
        return options
    }

    /// Loads the catalog at `location` through the client's one trust path: with a trusted root, the TUF
    /// repository there (``RepositoryClient``: root chain, timestamp, snapshot tree, the bins of `products`, and of
    /// `ifPresent`, which may be missing); else the signed `catalog.json`
    /// (``CatalogSource/loadVerified(_:pinnedPublicKeys:store:transport:now:)``: signature when keys are pinned, expiry
    /// and rollback always). Fetched with the archives' ``transferSettings()``.
    func loadCatalog(
        _ location: String, _ catalogOptions: CatalogOptions, products: [String], ifPresent: [String] = [], store: Store
    ) throws(DownloadError) -> CatalogSource {
        if let root = catalogOptions.trustedRoot() {
            let client = try RepositoryClient(repository: location, trustedRootFile: root, store: store, transport: transferSettings())
            return try client.catalogSource(for: products, ifPresent: ifPresent)
        }
        return try CatalogSource.loadVerified(
            location, pinnedPublicKeys: catalogOptions.publicKeys(), store: store, transport: transferSettings())
    }

    /// The verified catalog of `products` at `location` (``loadCatalog(_:_:products:store:)``), or the exit the
    /// download error calls for: how `repair`, `restore` and `packs` begin.
    func verifiedCatalog(
        _ location: String, _ catalogOptions: CatalogOptions, products: [String], ifPresent: [String] = [], store: Store
    ) throws -> CatalogSource {
        try exitingOnDownloadError { () throws(DownloadError) in
            try loadCatalog(location, catalogOptions, products: products, ifPresent: ifPresent, store: store)
        }
    }
}
