internal import CurlTransport
internal import Logging
package import ContentDelivery
internal import ContentPackaging
internal import Foundation

/// Mirrors, the URL authorizer and the no-downgrade rule.
///
/// Failover keeps the bytes on disk: an archive is identified by the SHA-256 the signed catalog
/// names, so a partial file fetched from mirror A is a valid prefix for mirror B. What does not
/// carry over is A's validator (ETag/Last-Modified): B's would differ, so an `If-Range` with A's
/// value would only make B resend everything. On failover the validator is dropped and B gets a plain
/// `Range` request; B's own validator is recorded from its reply. If B serves different bytes, the
/// final SHA-256 check fails and the download restarts from zero (and, after the usual second
/// mismatch, moves on to the next mirror) — nothing unverified is ever installed.
extension DownloadManager {
    /// Installs (or removes) the hook that authorizes each archive request (fresh tokens).
    package func setArchiveURLAuthorizer(_ authorizer: ArchiveURLAuthorizer?) { self.authorizer = authorizer }

    /// Adds a product whose archive may come from any of `candidates` (best first), failing over on
    /// connection errors, HTTP 5xx/404, and on any transient error that outlasted its retries.
    ///
    /// The mirror that last delivered a verified archive for `catalogURL` is tried first; an unfinished
    /// download continues on the mirror its bytes came from. Refuses an older version than the installed one.
    /// - Parameters:
    ///   - product: The catalog entry (from a verified catalog).
    ///   - candidates: Archive URLs, e.g. ``CatalogSource/archiveURLCandidates(for:)``.
    ///   - catalogURL: Remembers the working mirror under this key (`nil`: do not remember).
    /// - Throws: ``DownloadError`` `.downgrade`, or `.catalog` when there is no candidate.
    @discardableResult
    package func enqueue(
        _ product: CatalogProduct, candidates: [String], catalogURL: String?, transactionID: String? = nil,
        plan: DownloadPlanKind, planned: PlannedFetch? = nil
    ) throws -> DownloadSnapshot {
        let id = product.productID
        guard !candidates.isEmpty else {
            throw DownloadError(code: .catalog, message: "no archive URL for \(id) in the catalog; tell the publisher")
        }
        try store.checkNoDowngrade(product)
        var ordered = candidates
        if let catalogURL, let preferred = try? journal.preferredMirror(catalogURL: catalogURL) {
            ordered = ordered.filter { ArchiveRoute.origin(of: $0) == preferred }
                + ordered.filter { ArchiveRoute.origin(of: $0) != preferred }
        }
        if let existing = records[id], existing.expectedSHA256 == product.sha256.lowercased(),
           [.waiting, .active, .paused].contains(existing.downloadState), let index = ordered.firstIndex(of: existing.url)
        {
            ordered.insert(ordered.remove(at: index), at: 0)
        }
        routes[id] = ArchiveRoute(candidates: ordered, catalogKey: catalogURL)
        return try enqueue(product, url: ordered[0], transactionID: transactionID, plan: plan, planned: planned)
    }

    /// Hands a request to the engine, through the authorizer when one is installed.
    func submit(_ request: TransferRequest) {
        var request = request
        request.feed = feedProvider?(request)
        guard let authorizer, let base = URL(string: request.url) else {
            engine.submit(request)
            return
        }
        let id = request.id
        var route = routes[id] ?? ArchiveRoute(candidates: [request.url])
        route.authorization += 1
        let generation = route.authorization
        routes[id] = route
        Task { [weak self] in
            let result: Result<URL, any Error>
            do { result = .success(try await authorizer(id, base)) } catch { result = .failure(error) }
            await self?.authorized(request, generation: generation, result: result)
        }
    }

    /// Submits the authorized request, unless the download was paused, cancelled or re-submitted meanwhile
    /// (then the engine already reported it stopped, or a newer authorization is on its way).
    private func authorized(_ request: TransferRequest, generation: Int, result: Result<URL, any Error>) {
        let id = request.id
        guard routes[id]?.authorization == generation, attempts[id] == request.attemptID, !isShutDown,
              var record = records[id], record.downloadState == .active
        else {
            request.feed?.abandon()
            return
        }
        switch result {
        case .success(let url):
            var authorizedRequest = request
            authorizedRequest.url = url.absoluteString
            engine.submit(authorizedRequest)
        case .failure(let error):
            request.feed?.abandon()
            active.remove(id)
            attempts[id] = nil
            live[id]?.pace.stop()
            let failure = DownloadError.authorizerFailed(productID: id, url: record.url, error: error)
            record.fail(with: failure)
            save(&record)
            emit(id, force: true)
            admit()
        }
    }

    /// The server accepted a request: a later 403/410 may re-ask the authorizer again.
    func routeStarted(_ id: String) { routes[id]?.reauthorized = false }

    /// Decides between re-authorizing, failing over to the next mirror, or the usual retry policy.
    /// On failover `record` moves to the next URL with its bytes kept and its validator dropped.
    func reroute(_ id: String, failure: TransferFailure, givingUp: Bool, record: inout TransferRecord) -> Reroute {
        if case .httpStatus(let status, _, _) = failure, status == 403 || status == 410, authorizer != nil {
            if routes[id]?.reauthorized == true {
                return .fail(.unauthorized(productID: id, status: status, url: record.url))
            }
            routes[id, default: ArchiveRoute(candidates: [record.url])].reauthorized = true
            return .retryNow
        }
        guard var route = routes[id], route.index + 1 < route.candidates.count else { return .unchanged }
        let failOver: Bool
        switch failure {
        case .network(let error):
            failOver = givingUp || error.code == .couldNotConnect || error.code == .couldNotResolveHost
        case .httpStatus(let status, _, _):
            failOver = givingUp || status >= 500 || status == 404
        case .checksumMismatch, .lengthMismatch, .endlessData, .badChunk:
            failOver = givingUp
        case .cannotResume, .io, .install, .insufficientSpace:
            failOver = false
        }
        guard failOver else { return .unchanged }
        if case .network(let error) = failure, error.trustAdvice != nil { route.untrusted = error }
        route.index += 1
        route.reauthorized = false
        routes[id] = route
        record.switchMirror(to: route.candidates[route.index])
        return .retryNow
    }

    /// `error`, followed by the trust failure of a candidate failed over before it (``ArchiveRoute/untrusted``): the
    /// last candidate's error alone (a missing local copy, a refused connection) would hide that the fix is `--ca-file`.
    func withTrustAdvice(_ error: DownloadError, _ id: String) -> DownloadError {
        guard let untrusted = routes[id]?.untrusted, let advice = untrusted.trustAdvice, !error.message.contains(advice)
        else { return error }
        return DownloadError(code: error.code, message: "\(error.message); before that \(untrusted); \(advice)")
    }

    /// Remembers the origin that delivered a verified archive, so the next run tries it first.
    func rememberMirror(_ id: String) {
        guard let key = routes[id]?.catalogKey, let url = records[id]?.url, let origin = ArchiveRoute.origin(of: url)
        else { return }
        do { try journal.recordPreferredMirror(origin, catalogURL: key) } catch {
            DownloadLog.transfer.warning("cannot remember the mirror", metadata: ["origin": "\(origin)", "error": "\(error)"])
        }
    }
}
