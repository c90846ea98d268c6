public import ContentDelivery

extension Store {
    /// An `EntitlementSource` reading the signed entitlements document at `location` (an `http`, `https` or
    /// `file` URL, or a path), for ``ContentQueue/setEntitlementSource(_:removingWithdrawnContent:)``.
    ///
    /// With keys pinned, `<document>.sig` is fetched from beside it and must verify with one of them; with
    /// none pinned the document is accepted unsigned (development only). Expiry and rollback always apply:
    /// this store's journal remembers the highest `sequence` accepted per subject.
    /// - Parameters:
    ///   - location: The document's URL or path.
    ///   - pinnedPublicKeys: Base64 Ed25519 public keys (from `iapcontent keygen`); any one may sign.
    ///   - subject: The customer the document must be for, when known (refuses another customer's document).
    ///   - transport: The connection settings (CA file and the like), as for the archives and the catalog.
    public func signedEntitlements(
        at location: String, pinnedPublicKeys: [String], subject: String? = nil,
        transport: TransferSettings = TransferSettings()
    ) -> any EntitlementSource {
        SignedEntitlementSource(
            location: CatalogSource.resolve(location), pinnedPublicKeys: pinnedPublicKeys, subject: subject,
            store: self, transport: transport)
    }
}
