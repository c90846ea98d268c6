/// Where a client learns what its customer is entitled to: the host implements it (its own account
/// service) or uses the signed-document source the downloads module offers.
///
/// The queue asks it when it opens, restores the `active` products whose content is missing or
/// outdated, and removes the content of `revoked` and `expired` ones. Implementations must only
/// return what they verified: the queue acts on the answer without further checks.
public protocol EntitlementSource: Sendable {
    /// The customer's current entitlements.
    ///
    /// - Throws: when they cannot be fetched or verified; the queue then changes nothing.
    func entitlements() async throws -> Entitlements
}
