public import ContentPackaging
internal import Foundation

/// One pack of an installed product as a client shows it.
public struct PackStatus: Sendable, Equatable, Codable {
    /// The pack's identifier (`core` for the files no declared pack names).
    public var id: String
    /// When it is installed.
    public var policy: DownloadPolicy
    /// Whether the installed folder holds it.
    public var installed: Bool
    /// Its files' bytes under the installed variants (on disk when installed).
    public var bytes: Int64
    /// Archive bytes of the chunks holding its files: at most what installing it fetches (0 when installed).
    public var bytesToFetch: Int64
}

extension Store {
    /// The packs of installed `productID`, the core pack first: policy, whether installed, size, and at most what
    /// installing it fetches. A product without packs is one installed core pack. `defaultProfile` picks the
    /// variants when the folder has no recorded selection.
    /// - Throws: ``DownloadError`` when the product is not installed from a chunk-indexed archive.
    public func packStatus(productID: String, defaultProfile: DeviceProfile = DeviceProfile.system()) throws(DownloadError) -> [PackStatus] {
        guard let version = installedVersion(forProductID: productID),
              let manifest = try? PackageManifest.decode(contentsOfFile: installedManifestFile(productID: productID).path),
              manifest.contentVersion == version
        else {
            throw DownloadError(code: .install, message: "\(productID) is not installed from a chunk-indexed archive in \(root.path); download it first")
        }
        let selection = installedSelection(productID: productID) ?? PackSelection(profile: defaultProfile)
        let content = SelectedContent(manifest: manifest, selection: selection)
        let chunkBytes = Self.chunkBytesByPack(manifest, profile: selection.profile)
        return content.packs.map { pack in
            PackStatus(
                id: pack.id, policy: pack.policy, installed: pack.selected, bytes: pack.bytes,
                bytesToFetch: pack.selected ? 0 : chunkBytes[pack.id] ?? 0)
        }
    }

    /// Archive bytes of the chunks that hold each pack's files under the variants `profile` picks.
    private static func chunkBytesByPack(_ manifest: PackageManifest, profile: DeviceProfile) -> [String: Int64] {
        guard let chunks = manifest.chunks, let declaration = manifest.packs else { return [:] }
        let everything = SelectedContent(
            manifest: manifest, selection: PackSelection(packs: Set(declaration.packs.map(\.id)), profile: profile))
        var byPack: [String: Set<Int>] = [:]
        for index in everything.files {
            let pack = declaration.packID(forInstallPath: Substring(everything.installPath(of: index, in: manifest)))
            byPack[pack, default: []].formUnion(manifest.chunkIndices(holding: index))
        }
        return byPack.mapValues { $0.reduce(0) { $0 + chunks[$1].length } }
    }
}
