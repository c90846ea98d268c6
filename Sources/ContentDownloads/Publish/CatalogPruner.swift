internal import ContentDelivery
internal import Crypto
package import Foundation
internal import SystemSupport

/// Deletes what no recent catalog needs: every object under `archives/`, `manifests/`, `signatures/`,
/// `catalogs/` and `probes/` that neither the live `catalog.json` nor the last `keep` published catalogs (by
/// catalogVersion, from the history `catalogs/<sha256>.json` the publisher keeps) reference.
///
/// Never touches `catalog.json` or `catalog.json.sig`, nor an object written less than ``minimumAge`` ago (a
/// publish under way may have sent it and not switched yet). It reads the live catalog again just before
/// deleting and stops when a publish switched it meanwhile.
package struct CatalogPruner {
    /// The object store.
    package let client: ObjectStoreClient
    /// How many published catalogs, newest first, keep their objects (the live one always does).
    package let keep: Int
    /// Objects younger than this are kept whatever references them.
    package var minimumAge: TimeInterval = 3600
    /// List only: delete nothing.
    package var dryRun = false
    /// Called for each object deleted (or, with ``dryRun``, that would be).
    package var onDelete: (ObjectStoreClient.ListedObject) -> Void = { _ in }

    /// A pruner keeping the objects of the last `keep` catalogs.
    package init(client: ObjectStoreClient, keep: Int) {
        self.client = client
        self.keep = keep
    }

    /// What a prune did.
    package struct Summary: Sendable, Equatable {
        /// Catalogs whose objects were kept.
        package var keptCatalogs = 0
        /// Objects deleted (with `dryRun`: that would be).
        package var deletedObjects = 0
        /// Their bytes.
        package var deletedBytes: Int64 = 0
        /// Unreferenced objects kept because they are younger than the minimum age.
        package var youngObjects = 0
    }

    /// Prunes.
    /// - Throws: ``PublishError`` naming the object or listing that failed.
    package func prune(now: Date = Date()) throws(PublishError) -> Summary {
        let location = client.location
        guard let live = try client.get(Catalog.fileName) else {
            throw PublishError("\(location.displayName(Catalog.fileName)) does not exist: nothing is published there, so nothing is pruned; check the location")
        }
        var catalogs: [(sha: String, catalog: Catalog)] = []
        for object in try client.list("catalogs/") where object.name.hasSuffix(".json") {
            guard let stored = try client.get(object.name),
                  let catalog = try? Catalog.decoder.decode(Catalog.self, from: stored.data)
            else { continue }
            catalogs.append((SHA256.hash(data: stored.data).lowercaseHex, catalog))
        }
        let liveCatalog: Catalog
        do { liveCatalog = try Catalog.decoder.decode(Catalog.self, from: live.data) } catch {
            throw PublishError("\(location.displayName(Catalog.fileName)) is not a catalog (\(error)); nothing was deleted")
        }
        let recent = catalogs.sorted { $0.catalog.catalogVersion > $1.catalog.catalogVersion }.prefix(max(keep, 0))
        let kept = [(SHA256.hash(data: live.data).lowercaseHex, liveCatalog)] + recent.map { ($0.sha, $0.catalog) }
        var referenced = Set<String>()
        for (sha, catalog) in kept {
            referenced.insert(Catalog.signaturePath(catalogSHA256: sha))
            referenced.insert(Catalog.historyPath(catalogSHA256: sha))
            for product in catalog.products {
                referenced.insert(product.path)
                if let manifest = product.manifest { referenced.insert(manifest.path) }
            }
        }
        var summary = Summary(keptCatalogs: Set(kept.map(\.0)).count)
        var doomed: [ObjectStoreClient.ListedObject] = []
        for folder in ["archives/", "manifests/", "signatures/", "catalogs/", ConditionalWriteProbe.folder] {
            for object in try client.list(folder) where !referenced.contains(object.name) {
                guard let written = object.lastModified, now.timeIntervalSince(written) >= minimumAge else {
                    summary.youngObjects += 1
                    continue
                }
                doomed.append(object)
            }
        }
        guard try client.get(Catalog.fileName)?.data == live.data else {
            throw PublishError("\(location.displayName(Catalog.fileName)) changed while prune read the bucket (a publish ran); nothing was deleted: run prune again")
        }
        for object in doomed {
            if !dryRun { try client.delete(object.name) }
            summary.deletedObjects += 1
            summary.deletedBytes += max(object.length, 0)
            onDelete(object)
        }
        return summary
    }
}
