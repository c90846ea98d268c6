/// What reconciling the store with the customer's entitlements did (``ContentQueue/reconcileEntitlements()``, and
/// ``ContentQueue/open()`` with an entitlement source): published as
/// ``ContentQueueUpdate/entitlementsReconciled(_:)`` and kept in ``ContentQueue/lastReconciliation``.
public struct EntitlementReconciliation: Sendable, Equatable {
    /// The `restored` transactions added for entitled products whose content was missing or outdated.
    public var restored: [String]
    /// The products whose content was removed because their entitlement was revoked or expired.
    public var removed: [String]
    /// Why the entitlements were not used — the document was refused (signature, expiry, rollback, another
    /// subject) or could not be fetched — with its stable code; nothing was changed. `nil` when reconciled.
    public var refusal: DownloadError?

    /// A reconciliation's outcome.
    public init(restored: [String] = [], removed: [String] = [], refusal: DownloadError? = nil) {
        self.restored = restored
        self.removed = removed
        self.refusal = refusal
    }
}
