public import ContentDelivery
internal import Foundation
internal import Logging

extension ContentQueue {
    /// Sets (or clears) where the queue learns what the customer is entitled to (proactive restore).
    ///
    /// With a source set, ``open()`` reconciles the store with it. `removingWithdrawnContent: false` keeps
    /// the content of revoked and expired products installed (the host decides; a log line still says so).
    public func setEntitlementSource(_ source: (any EntitlementSource)?, removingWithdrawnContent: Bool = true) {
        entitlementSource = source
        removesWithdrawnContent = removingWithdrawnContent
    }

    /// Reconciles the store with the entitlement source: each `active` product whose content is missing or
    /// older than the catalog's version is delivered as a `restored` transaction — no purchase needed, as
    /// for a restore — and the installed content of each `revoked` or `expired` product is removed
    /// atomically (its unfinished transactions cancelled and finished first), unless the host opted out; listeners
    /// of ``updates`` and the observer are told with ``ContentQueueUpdate/contentRemoved(_:)``.
    ///
    /// - Returns: The restored transactions and the product IDs whose content was removed.
    /// - Throws: what the source throws (nothing changes then), or a journal or ``InstallError``.
    @discardableResult
    public func reconcileEntitlements() async throws -> (restored: [ContentTransaction], removed: [String]) {
        guard let source = entitlementSource else { return ([], []) }
        let entitlements: Entitlements
        do { entitlements = try await source.entitlements() } catch {
            let code = (error as? any ContentError)?.errorCode ?? "entitlements"
            let refusal = DownloadError(code: .init(rawValue: code), message: "\(error)")
            lastReconciliation = EntitlementReconciliation(refusal: refusal)
            await deliver(.entitlementsReconciled(EntitlementReconciliation(refusal: refusal)))
            throw error
        }
        DownloadLog.queue.debug(
            "entitlements verified",
            metadata: ["subject": "\(entitlements.subject)", "sequence": "\(entitlements.sequence)",
                       "active": "\(entitlements.activeProductIDs.count)", "withdrawn": "\(entitlements.withdrawnProductIDs.count)"])
        let removed = try await removeWithdrawn(entitlements)
        if !removed.isEmpty { await deliver(.contentRemoved(removed)) }
        let restored = try await restoreEntitled(entitlements)
        let outcome = EntitlementReconciliation(restored: restored.map(\.id), removed: removed)
        lastReconciliation = outcome
        await deliver(.entitlementsReconciled(outcome))
        return (restored, removed)
    }

    /// ``reconcileEntitlements()`` as ``open()`` runs it: a failure changes nothing; it is logged as an error and
    /// published (``ContentQueueUpdate/entitlementsReconciled(_:)`` with its refusal, ``lastReconciliation``).
    func reconcileEntitlementsAtOpen() async {
        do { try await reconcileEntitlements() } catch {
            DownloadLog.queue.error(
                "entitlements not reconciled; installed content left as it is", metadata: ["reason": "\(error)"])
        }
    }

    /// Adds a restore transaction for each active product whose content is missing or outdated.
    private func restoreEntitled(_ entitlements: Entitlements) async throws -> [ContentTransaction] {
        var restored: [ContentTransaction] = []
        let delivering = Set(rows.values.map(\.productID))
        for productID in entitlements.activeProductIDs where !delivering.contains(productID) {
            guard let product = catalog?.catalog.product(productID) else {
                DownloadLog.queue.debug(
                    "entitled product is not in the catalog; nothing to restore", metadata: ["product": "\(productID)"])
                continue
            }
            if let installed = store.installedVersion(forProductID: productID), installed >= product.contentVersion { continue }
            let id = "entitled-\(productID)-\(product.contentVersion)-\(UUID().uuidString.prefix(8))"
            restored.append(try await add(VerifiedPurchase(transactionID: id, productID: productID, kind: .restore)))
        }
        return restored
    }

    /// Removes the installed content of revoked and expired products (when the policy allows); their IDs.
    private func removeWithdrawn(_ entitlements: Entitlements) async throws -> [String] {
        var removed: [String] = []
        for productID in entitlements.withdrawnProductIDs {
            let state = entitlements.products[productID]?.rawValue ?? "withdrawn"
            guard removesWithdrawnContent else {
                if store.installedVersion(forProductID: productID) != nil {
                    DownloadLog.queue.debug(
                        "entitlement withdrawn; content kept as the host asked", metadata: ["product": "\(productID)", "state": "\(state)"])
                }
                continue
            }
            for row in rows.values where row.productID == productID {
                try await cancelDownloadsAndFinish(row.id)
            }
            if try store.deleteContent(forProductID: productID) {
                removed.append(productID)
                await manager.forgetFinished(productID)  // `status` then shows it as what it is: not installed
                DownloadLog.queue.debug(
                    "entitlement withdrawn; installed content removed", metadata: ["product": "\(productID)", "state": "\(state)"])
            }
        }
        return removed
    }
}
