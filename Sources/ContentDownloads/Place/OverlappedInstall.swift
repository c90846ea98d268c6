internal import SystemSupport
internal import ContentDelivery
internal import ContentPackaging
internal import Dispatch
internal import Foundation
internal import Synchronization

/// Extracts a download into private staging while its bytes are still arriving, so installing
/// costs almost nothing after the last byte instead of a pre-scan plus a second decompression.
///
/// One thread per download follows the partial file through its ``GrowingArchive`` and runs the
/// ``SafeExtractor`` with every ``EntryPolicy`` rule applied header by header (the streaming form
/// of the pre-scan). Nothing is visible until the transfer has verified the whole archive's length
/// and SHA-256 against the signed catalog: only then does ``result()`` succeed, and only then does
/// ``ContentInstaller/commit(_:product:store:archivePath:options:)`` swap the folder in. When the
/// attempt is abandoned (pause, cancel, failure, a restart from zero) or any rule fails, the staging
/// folder is deleted and the caller installs from the verified archive the ordinary way, which
/// reports the same error with the same words.
///
/// The trade-off, stated plainly: the decompressor and tar parser see bytes before their hash is
/// known (the ordinary path verifies first). They are the same libarchive readers with only tar +
/// zstd enabled, writing only into a private folder through ``SafeExtractor``'s `openat` rules.
final class OverlappedInstall: Sendable {
    /// The feed the transfer publishes to.
    let feed = GrowingArchive()
    /// What is being installed.
    let product: CatalogProduct
    private let outcome = Mutex<Result<StagingFolder, InstallError>?>(nil)
    private let done = DispatchSemaphore(value: 0)

    /// Starts following `partialPath` (renamed to `archivePath` once verified) on a new thread.
    init(
        product: CatalogProduct, store: Store, partialPath: String, archivePath: String,
        options: InstallSettings
    ) {
        self.product = product
        NamedThread.start("iap-install") { [self] in
            let result: Result<StagingFolder, InstallError>
            do throws(InstallError) {
                result = .success(try Self.extract(
                    product: product, store: store, feed: feed, partialPath: partialPath, archivePath: archivePath,
                    options: options))
            } catch {
                result = .failure(error)
            }
            outcome.withLock { $0 = result }
            done.signal()
        }
    }

    /// Waits (off the cooperative pool) for the extraction; success only for a verified archive.
    func result() async -> Result<StagingFolder, InstallError> {
        await withCheckedContinuation { continuation in
            DispatchQueue.global(qos: .utility).async { [self] in
                done.wait()
                done.signal()  // later waiters return at once
                continuation.resume(returning: outcome.withLock { $0! })
            }
        }
    }

    /// Stops following (the attempt was replaced) and deletes a finished staging folder nobody took.
    func discard() {
        feed.abandon()
        DispatchQueue.global(qos: .utility).async { [self] in
            done.wait()
            done.signal()
            if case .success(let staging) = outcome.withLock({ $0! }) { staging.remove() }
        }
    }

    private static func extract(
        product: CatalogProduct, store: Store, feed: GrowingArchive, partialPath: String, archivePath: String,
        options: InstallSettings
    ) throws(InstallError) -> StagingFolder {
        try options.spacePreflight?.check(store: store, archiveLength: 0, uncompressedSize: product.uncompressedSize)
        let staging = try StagingFolder(store: store, productID: product.productID, expectedBytes: product.uncompressedSize)
        options.observer?.install(of: product.productID, reached: .extracting)
        do throws(InstallError) {
            let source = GrowingArchiveSource(feed: feed, partialPath: partialPath, archivePath: archivePath)
            var reader: ArchiveReader
            do { reader = try ArchiveReader(source: source, displayPath: partialPath) } catch { throw .archive(error) }
            var extractor = SafeExtractor(stagingFD: staging.fd, stagingPath: staging.path)
            var policy = EntryPolicy(limits: InstallLimits(product: product, manifest: nil))
            _ = try extractor.extract(from: &reader, admitting: &policy)
            // The tar end may come before the file's end: only a verified archive counts.
            guard source.waitForVerification() else {
                throw .archive(ArchiveError(message: "the download stopped before it was verified", path: partialPath))
            }
            return staging
        } catch {
            staging.remove()
            throw error
        }
    }
}
