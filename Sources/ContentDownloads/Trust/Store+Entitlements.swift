public import ContentDelivery

extension Store {
    /// An ``EntitlementSource`` reading the signed entitlements document at `location` (an `http`, `https` or
    /// `file` URL, or a path), for ``ContentQueue/setEntitlementSource(_:removingWithdrawnContent:)``.
    ///
    /// With keys pinned, `<document>.sig` is fetched from beside it and must verify with one of them; with
    /// none pinned the document is accepted unsigned (development only). Expiry and rollback always apply:
    /// this store's journal remembers the highest `sequence` accepted per subject.
    /// - Parameters:
    ///   - location: The document's URL or path.
    ///   - pinnedPublicKeys: Base64 Ed25519 public keys (from `iapcontent keygen`); any one may sign.
    ///   - caFile: Extra trusted certificate authorities (PEM).
    public func signedEntitlements(at location: String, pinnedPublicKeys: [String], caFile: String? = nil)
        -> any EntitlementSource
    {
        SignedEntitlementSource(
            location: CatalogSource.resolve(location), pinnedPublicKeys: pinnedPublicKeys, store: self, caFile: caFile)
    }
}
