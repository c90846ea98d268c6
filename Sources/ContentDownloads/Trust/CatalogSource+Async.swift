public import Foundation

extension CatalogSource {
    /// Loads and decodes the catalog at `location` like ``load(_:transport:)-2yqgz``, without blocking a thread of
    /// Swift's cooperative pool: the blocking libcurl request runs on a thread of its own (`iap-catalog`) while
    /// the caller is suspended. Cancelling the calling task does not cut the request short (it times out after 60 s).
    /// - Throws: ``DownloadError`` with code `.catalog`, naming the location and what to check.
    public static func load(_ location: String, transport: TransferSettings) async throws(DownloadError) -> CatalogSource {
        try await BlockingCall.run(thread: "iap-catalog") { () throws(DownloadError) in try load(location, transport: transport) }
    }

    /// Loads and checks a catalog like ``loadVerified(_:pinnedPublicKeys:store:transport:now:)-2ovgw`` (signature,
    /// expiry, rollback), with the requests and the journal update on a thread of its own (`iap-catalog`) instead
    /// of one of Swift's cooperative pool.
    /// - Throws: ``DownloadError`` with the same codes as the blocking variant.
    public static func loadVerified(
        _ location: String, pinnedPublicKeys: [String], store: Store, transport: TransferSettings, now: Date = Date()
    ) async throws(DownloadError) -> CatalogSource {
        try await BlockingCall.run(thread: "iap-catalog") { () throws(DownloadError) in
            try loadVerified(location, pinnedPublicKeys: pinnedPublicKeys, store: store, transport: transport, now: now)
        }
    }
}
