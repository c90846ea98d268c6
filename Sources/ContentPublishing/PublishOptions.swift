/// How a publish sends and reports, the same for a catalog folder (``CatalogPublisher``) and a repository folder
/// (``RepositoryPublisher``).
package struct PublishOptions {
    /// Objects longer than this go by multipart upload in parts of this size.
    package var partSize: Int64 = 16 << 20
    /// Parts in flight at once.
    package var parallelParts = 4
    /// Progress and decisions.
    package var onEvent: (PublishEvent) -> Void = { _ in }
    /// Runs just before the switch (`catalog.json`, or `metadata/timestamp.json`); a test hook lines two publishers up there.
    package var beforeSwitch: () -> Void = {}

    /// The defaults: 16 MiB parts, 4 at once, no events.
    package init() {}
}
