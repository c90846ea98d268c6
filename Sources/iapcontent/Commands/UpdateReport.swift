import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation

/// The publisher's view of updates in `iapcontent catalog`: for each product, what a client on each of the
/// last versions packed into the input folder fetches to reach the version being published.
enum UpdateReport {
    /// Every manifest in `folder`, by product, newest version first.
    static func olderManifests(in folder: URL) -> [String: [PackageManifest]] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? []
        var byProduct: [String: [PackageManifest]] = [:]
        for name in names where PackageNaming.isManifestName(name) {
            guard let data = FileManager.default.contents(atPath: folder.appendingPathComponent(name).path),
                  let manifest = try? PackageManifest.decode(data)
            else { continue }
            byProduct[manifest.productID, default: []].append(manifest)
        }
        return byProduct.mapValues { $0.sorted { $0.contentVersion > $1.contentVersion } }
    }

    /// One line per older version (at most `limit`): the update's size, or why a client downloads it whole.
    static func lines(for product: CatalogProduct, older: [PackageManifest], limit: Int) -> [String] {
        guard let offered = older.first(where: { $0.contentVersion == product.contentVersion }) else { return [] }
        return older.filter { $0.contentVersion < product.contentVersion }.prefix(limit).map { installed in
            // A precomputed patch from this version replaces the manifest and the chunks for a client that has it.
            let patch = product.patches?.first { $0.fromVersion == installed.contentVersion }
                .map { String(format: "; with its patch: %.2f MiB", Double($0.length) / 1_048_576) } ?? ""
            do throws(InstallError) {
                return "update from " + IAPContent.Diff.describe(try UpdateSize.between(installed: installed, offered: offered)) + patch
            } catch {
                return "update from \(installed.contentVersion): whole archive (\(error.description))"
            }
        }
    }
}

/// How `status` and `restore` name an available update: the version and what it fetches.
enum UpdateLine {
    static func describe(_ update: ContentUpdate) -> String {
        let mib = { (bytes: Int64) in String(format: "%.2f MiB", Double(bytes) / 1_048_576) }
        guard let bytes = update.downloadBytes else { return update.catalogVersion.description }
        return "\(update.catalogVersion) (fetches \(mib(bytes)) of \(mib(update.archiveBytes)))"
    }
}
