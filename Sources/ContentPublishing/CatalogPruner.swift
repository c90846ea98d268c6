internal import ContentDelivery
internal import Crypto
package import Foundation
internal import SystemSupport

/// Deletes what no recent catalog needs: every object under `archives/`, `manifests/`, `patches/`, `signatures/`,
/// `catalogs/` and `probes/` that neither the live `catalog.json` nor the last `keep` published catalogs (by
/// catalogVersion, from the history `catalogs/<sha256>.json` the publisher keeps) reference.
///
/// Never deletes `catalog.json`, `catalog.json.sig`, the live catalog's `signatures/<sha256>.sig` and
/// `catalogs/<sha256>.json`, anything the live catalog or the last `keep` catalogs name, nor an object written less
/// than ``minimumAge`` ago (a publish under way may have sent it and not switched yet); nor anything outside the
/// five folders (the listing refuses a key that is not under the folder asked for, see
/// ``ObjectStoreClient/list(_:)``). The protected names are checked again right before each DELETE, whatever the
/// listing said. It reads the live catalog again just before deleting and stops when a publish switched it meanwhile.
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

    /// The folders under the prefix whose unreferenced objects are deleted.
    static let folders = ["archives/", "manifests/", "patches/", "signatures/", "catalogs/", ConditionalWriteProbe.folder]

    /// The last check before a DELETE, whatever the listing and the reference sets said: the object is in one of
    /// ``CatalogPruner/folders``, its full key is `prefix/` + its name, its name has no empty, `.` or `..` segment,
    /// and it is none of the protected names (the two catalog files, the live catalog's signature and history
    /// entry, and everything a kept catalog names).
    struct DeletionGuard {
        /// Names never deleted.
        let protected: Set<String>
        /// `prefix/` (empty at the bucket's root).
        let keyPrefix: String

        /// - Throws: ``PublishError`` naming the object and why it stays; the prune stops there.
        func check(_ object: ObjectStoreClient.ListedObject, location: ObjectStoreLocation) throws(PublishError) {
            let name = object.name
            let reason: String?
            if protected.contains(name) {
                reason = "the live catalog or a kept one needs it"
            } else if object.key != keyPrefix + name {
                reason = "its listed key \(ObjectStoreClient.quoted(object.key)) is not the prefix and its name"
            } else if !CatalogPruner.folders.contains(where: { name.utf8.starts(with: $0.utf8) && name.utf8.count > $0.utf8.count }) {
                reason = "it is not in \(CatalogPruner.folders.joined(separator: ", "))"
            } else if let problem = ObjectStoreClient.keyProblem(object.key, under: keyPrefix) {
                reason = "its key \(problem)"
            } else {
                reason = nil
            }
            if let reason {
                throw PublishError("prune refuses to delete s3://\(location.bucket)/\(ObjectStoreClient.quoted(object.key).dropFirst().dropLast()): \(reason); stopped there (check the endpoint \(location.serverName))")
            }
        }
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
            for product in catalog.products { referenced.formUnion(product.publishedPaths) }
        }
        let liveSHA = SHA256.hash(data: live.data).lowercaseHex
        var protected: Set<String> = [
            Catalog.fileName, Catalog.signatureFileName,
            Catalog.signaturePath(catalogSHA256: liveSHA), Catalog.historyPath(catalogSHA256: liveSHA),
        ]
        for product in liveCatalog.products { protected.formUnion(product.publishedPaths) }
        let guardRail = DeletionGuard(protected: protected.union(referenced), keyPrefix: location.key(""))
        var summary = Summary(keptCatalogs: Set(kept.map(\.0)).count)
        var doomed: [ObjectStoreClient.ListedObject] = []
        for folder in Self.folders {
            for object in try client.list(folder) where !referenced.contains(object.name) {
                guard let written = object.lastModified, now.timeIntervalSince(written) >= minimumAge else {
                    summary.youngObjects += 1
                    continue
                }
                doomed.append(object)
            }
        }
        // Every deletion is checked before the first one: a refusal deletes nothing.
        for object in doomed { try guardRail.check(object, location: location) }
        guard try client.get(Catalog.fileName)?.data == live.data else {
            throw PublishError("\(location.displayName(Catalog.fileName)) changed while prune read the bucket (a publish ran); nothing was deleted: run prune again")
        }
        for object in doomed {
            if !dryRun {
                try guardRail.check(object, location: location)
                try client.delete(object.name)
            }
            summary.deletedObjects += 1
            summary.deletedBytes += max(object.length, 0)
            onDelete(object)
        }
        return summary
    }
}
