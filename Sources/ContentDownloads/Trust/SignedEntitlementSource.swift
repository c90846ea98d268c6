internal import ContentDelivery
internal import Foundation

/// The built-in `EntitlementSource`: a signed entitlements document fetched over HTTP(S) (or read from a
/// file), checked with the catalog's trust rules, its sequence remembered in the store's journal.
///
/// Made by ``Store/signedEntitlements(at:pinnedPublicKeys:subject:transport:)``; internal so the module's public
/// surface stays the protocol.
struct SignedEntitlementSource: EntitlementSource {
    let location: URL
    let pinnedPublicKeys: [String]
    /// The subject the document must be for; `nil` accepts any.
    let subject: String?
    let store: Store
    /// The connection settings of the requests (CA file and the like), as for the catalog.
    let transport: TransferSettings

    /// Fetches the document (and `<document>.sig` when keys are pinned), verifies it, then raises the
    /// remembered sequence of its subject, all on a thread of its own (`iap-entitle`: libcurl and the
    /// journal's fsync block), off the cooperative pool. A refused document changes nothing.
    /// - Throws: ``DownloadError`` naming the document, with one code per refusal.
    func entitlements() async throws -> Entitlements {
        let source = self
        return try await BlockingCall.run(thread: "iap-entitle") { () throws(DownloadError) -> Entitlements in
            let (data, signature) = try source.fetch()
            return try source.verify(data, signature: signature)
        }
    }

    /// Checks the bytes (signature, subject, expiry, rollback against the journal), then records the sequence.
    func verify(_ data: Data, signature: Data?, now: Date = Date()) throws(DownloadError) -> Entitlements {
        let document = location.absoluteString
        let verifier: EntitlementsVerifier
        do throws(EntitlementsVerificationError) {
            verifier = pinnedPublicKeys.isEmpty ? .allowingUnsigned : try EntitlementsVerifier(pinnedPublicKeys: pinnedPublicKeys)
        } catch {
            throw .untrustedEntitlements(error)
        }
        let journal: SQLiteJournal
        do { journal = try store.journal() } catch {
            throw DownloadError(code: .io, message: "cannot read the store's journal \(store.journalFile.path): \(error); check permissions")
        }
        var readFailure: (any Error)?
        let entitlements: Entitlements
        do throws(EntitlementsVerificationError) {
            entitlements = try verifier.verify(data, signatureData: signature, document: document, subject: subject, highestSeenSequence: { subject in
                do { return try journal.highestEntitlementSequence(subject: subject) } catch {
                    readFailure = error
                    return nil
                }
            }, now: now)
        } catch {
            throw .untrustedEntitlements(error)
        }
        do {
            if let readFailure { throw readFailure }
            try journal.recordEntitlementSequence(entitlements.sequence, subject: entitlements.subject)
        } catch {
            throw DownloadError(code: .io, message: "cannot record the entitlements sequence in \(store.journalFile.path): \(error); check permissions and free space")
        }
        return entitlements
    }

    /// The document and its signature (when keys are pinned); blocks while libcurl fetches them.
    private func fetch() throws(DownloadError) -> (Data, Data?) {
        guard let data = try Self.read(location, transport: transport, what: "entitlements"), !data.isEmpty else {
            throw DownloadError(code: .entitlements, message: "the entitlements \(location.absoluteString) are empty; check the URL")
        }
        guard !pinnedPublicKeys.isEmpty else { return (data, nil) }
        let signatureURL = CatalogSource.signatureURL(for: location)
        return (data, try Self.read(signatureURL, transport: transport, what: "entitlements signature", allowMissing: true))
    }

    /// One document through the catalog's reader (size cap, redirects, HTTP status), with `transport`'s settings.
    static func read(
        _ url: URL, transport: TransferSettings, what: String, allowMissing: Bool = false
    ) throws(DownloadError) -> Data? {
        try CatalogSource.read(url, transport: transport, what: what, allowMissing: allowMissing)
    }
}
