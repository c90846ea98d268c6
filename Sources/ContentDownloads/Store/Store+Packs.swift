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
    /// The variant folders (or files) of the pack: for each, its axis, the value installed and the value this
    /// device's profile would choose now — so a launcher can show "German (installed), French available" and
    /// offer a switch when the two differ. Empty for a pack without variants.
    public var variants: [VariantChoice] = []

    /// Creates a status.
    public init(id: String, policy: DownloadPolicy, installed: Bool, bytes: Int64, bytesToFetch: Int64, variants: [VariantChoice] = []) {
        self.id = id
        self.policy = policy
        self.installed = installed
        self.bytes = bytes
        self.bytesToFetch = bytesToFetch
        self.variants = variants
    }

    private enum CodingKeys: String, CodingKey { case id, policy, installed, bytes, bytesToFetch, variants }

    /// Decodes a status; one without `variants` (written before they were reported) has none.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        self.init(
            id: try container.decode(String.self, forKey: .id), policy: try container.decode(DownloadPolicy.self, forKey: .policy),
            installed: try container.decode(Bool.self, forKey: .installed), bytes: try container.decode(Int64.self, forKey: .bytes),
            bytesToFetch: try container.decode(Int64.self, forKey: .bytesToFetch),
            variants: try container.decodeIfPresent([VariantChoice].self, forKey: .variants) ?? [])
    }
}

/// One variant folder of an installed product: which value of its axis is installed, and which the device would
/// choose.
public struct VariantChoice: Sendable, Equatable, Codable {
    /// Where the variants install (`Contents/Voices`).
    public var path: String
    /// Their axis (`language`, `texture`, `arch`, or a declared one).
    public var axis: String
    /// The value installed; `nil` for the untagged folder (or when the pack is not installed).
    public var installed: String?
    /// The value the device's profile chooses now (its languages, architecture; the product's default and
    /// fallbacks); `nil` for the untagged folder.
    public var preferred: String?
    /// Every value the product offers for it, sorted.
    public var values: [String]

    /// Creates a choice.
    public init(path: String, axis: String, installed: String?, preferred: String?, values: [String]) {
        self.path = path
        self.axis = axis
        self.installed = installed
        self.preferred = preferred
        self.values = values
    }

    private enum CodingKeys: String, CodingKey { case path, axis, installed, preferred, values }

    /// Encodes every key, `null` for an untagged choice (the protocol's shape names each one).
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(path, forKey: .path)
        try container.encode(axis, forKey: .axis)
        try container.encode(installed, forKey: .installed)
        try container.encode(preferred, forKey: .preferred)
        try container.encode(values, forKey: .values)
    }
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
            throw DownloadError(
                code: installedVersion(forProductID: productID) == nil ? .notInstalled : .install,
                message: "\(productID) is not installed from a chunk-indexed archive in \(root.path); download it first")
        }
        let selection = installedSelection(productID: productID) ?? PackSelection(profile: defaultProfile)
        let content = SelectedContent(manifest: manifest, selection: selection)
        let chunkBytes = Self.chunkBytesByPack(manifest, profile: selection.profile)
        let preferred = SelectedContent(manifest: manifest, selection: PackSelection(packs: selection.packs, profile: defaultProfile))
        let declaration = manifest.packs ?? PackDeclaration()
        var variants: [String: [VariantChoice]] = [:]
        for (path, group) in content.variantGroups.sorted(by: { $0.key < $1.key }) {
            let pack = declaration.packID(forInstallPath: Substring(path))
            let installed = content.packs.first { $0.id == pack }?.selected == true ? content.chosen[path] ?? nil : nil
            variants[pack, default: []].append(VariantChoice(
                path: path, axis: group.axis, installed: installed.flatMap { $0 }, preferred: preferred.chosen[path] ?? nil, values: group.values))
        }
        return content.packs.map { pack in
            PackStatus(
                id: pack.id, policy: pack.policy, installed: pack.selected, bytes: pack.bytes,
                bytesToFetch: pack.selected ? 0 : chunkBytes[pack.id] ?? 0, variants: variants[pack.id] ?? [])
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
