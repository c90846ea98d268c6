internal import ContentDelivery
internal import Foundation

/// The built-in ``EntitlementSource``: a signed entitlements document fetched over HTTP(S) (or read from a
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

    /// Fetches the document (and `<document>.sig` when keys are pinned) off the cooperative pool, verifies
    /// it, then raises the remembered sequence of its subject. A refused document changes nothing.
    /// - Throws: ``DownloadError`` naming the document, with one code per refusal.
    func entitlements() async throws -> Entitlements {
        let (data, signature) = try await fetch()
        return try verify(data, signature: signature)
    }

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

    /// The document and its signature (when keys are pinned), read on a global queue: libcurl blocks.
    private func fetch() async throws -> (Data, Data?) {
        let location = location, transport = transport, signed = !pinnedPublicKeys.isEmpty
        return try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global(qos: .utility).async {
                do throws(DownloadError) {
                    guard let data = try Self.read(location, transport: transport, what: "entitlements"), !data.isEmpty else {
                        throw DownloadError(code: .entitlements, message: "the entitlements \(location.absoluteString) are empty; check the URL")
                    }
                    let signature = signed
                        ? try Self.read(
                            CatalogSource.signatureURL(for: location), transport: transport, what: "entitlements signature",
                            allowMissing: true)
                        : nil
                    continuation.resume(returning: (data, signature))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// One document through the catalog's reader (size cap, redirects, HTTP status), with `transport`'s CA file.
    static func read(
        _ url: URL, transport: TransferSettings, what: String, allowMissing: Bool = false
    ) throws(DownloadError) -> Data? {
        try CatalogSource.read(url, caFile: transport.caFile, what: what, allowMissing: allowMissing)
    }
}
