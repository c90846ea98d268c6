public import Foundation

extension RepositoryClient {
    /// `check(productIDs:ifPresent:now:)` without blocking a thread of Swift's cooperative pool: the requests and the
    /// writes of the trusted metadata run on a thread of its own (`iap-catalog`) while the caller is suspended.
    /// - Throws: ``DownloadError`` with the same codes as the blocking variant.
    public func check(productIDs: [String], ifPresent: [String] = [], now: Date = Date()) async throws(DownloadError) -> RepositoryCheck {
        try await BlockingCall.run(thread: "iap-catalog") { () throws(DownloadError) in
            try check(productIDs: productIDs, ifPresent: ifPresent, now: now)
        }
    }

    /// `catalogSource(for:ifPresent:now:)` on a thread of its own (`iap-catalog`), as the asynchronous `check` runs.
    public func catalogSource(for productIDs: [String], ifPresent: [String] = [], now: Date = Date()) async throws(DownloadError) -> CatalogSource {
        try await check(productIDs: productIDs, ifPresent: ifPresent, now: now).source
    }
}
