/// The packs and variant axes a product declares in its `ContentInfo.plist` (keys `Packs` and `Variants`).
///
/// A pack is a set of folders under `Contents/` with a ``DownloadPolicy``; every file no pack names belongs to
/// the implicit essential pack ``corePackID`` (so a folder without `Packs` is one essential pack, exactly as
/// before). A variant axis gives a default value and an ordered fallback per value, so a device that asks for
/// `pt-BR` gets `pt`, then the default, then the untagged folder. The declaration travels in the signed manifest
/// (``PackageManifest/packs``), so a client plans from it before any archive byte.
///
/// ```xml
/// <key>Packs</key>
/// <dict>
///     <key>hires</key>  <dict><key>Policy</key><string>prefetch</string>
///                             <key>Paths</key><array><string>Contents/HiRes</string></array></dict>
///     <key>voices</key> <dict><key>Policy</key><string>onDemand</string>
///                             <key>Paths</key><array><string>Contents/Voices</string></array></dict>
/// </dict>
/// <key>Variants</key>
/// <dict>
///     <key>language</key> <dict><key>Default</key><string>en</string>
///                               <key>Fallback</key><dict><key>pt-BR</key><array><string>pt</string></array></dict></dict>
/// </dict>
/// ```
public struct PackDeclaration: Codable, Sendable, Equatable {
    /// The pack every file belongs to when no declared pack names it: essential, and always holding `ContentInfo.plist`.
    public static let corePackID = "core"

    /// One declared pack.
    public struct Pack: Codable, Sendable, Equatable {
        /// Its identifier: lowercase letters, digits and `-`.
        public var id: String
        /// When a client installs it.
        public var policy: DownloadPolicy
        /// The install paths it holds (folders or files under `Contents/`, component-wise prefixes).
        public var paths: [String]

        /// Creates a pack.
        public init(id: String, policy: DownloadPolicy, paths: [String]) {
            self.id = id
            self.policy = policy
            self.paths = paths
        }
    }

    /// One variant axis.
    public struct Axis: Codable, Sendable, Equatable {
        /// The axis name, as in the paths' `#<axis>=<value>`.
        public var name: String
        /// The value a device gets when none it prefers is present (before the untagged folder).
        public var defaultValue: String?
        /// For a value, the values to try next, in order (`pt-BR` → `pt`).
        public var fallback: [String: [String]]

        /// Creates an axis.
        public init(name: String, defaultValue: String? = nil, fallback: [String: [String]] = [:]) {
            self.name = name
            self.defaultValue = defaultValue
            self.fallback = fallback
        }
    }

    /// The declared packs, sorted by identifier (the implicit core pack is not listed).
    public var packs: [Pack]
    /// The declared axes, sorted by name (standard axes need no declaration).
    public var axes: [Axis]

    /// Creates a declaration; packs and axes are kept sorted so the encoding is deterministic.
    public init(packs: [Pack] = [], axes: [Axis] = []) {
        self.packs = packs.sorted { $0.id < $1.id }
        self.axes = axes.sorted { $0.name < $1.name }
    }

    /// Whether nothing is declared (the product is one essential pack).
    public var isEmpty: Bool { packs.isEmpty && axes.isEmpty }

    /// Every pack identifier, the core pack first.
    public var packIDs: [String] { [Self.corePackID] + packs.map(\.id) }

    /// The policy of pack `id` (the core pack is essential); `nil` for an unknown pack.
    public func policy(ofPack id: String) -> DownloadPolicy? {
        id == Self.corePackID ? .essential : packs.first { $0.id == id }?.policy
    }

    /// The pack holding the file or folder at install path `path`: the declared pack one of whose paths is `path`
    /// or a folder above it, else the core pack.
    public func packID(forInstallPath path: Substring) -> String {
        for pack in packs where pack.paths.contains(where: { Self.isWithin(path, $0) }) { return pack.id }
        return Self.corePackID
    }

    /// The axis named `name`: declared, or a standard axis without default or fallback; `nil` for an unknown axis.
    public func axis(named name: String) -> Axis? {
        axes.first { $0.name == name } ?? (VariantTag.standardAxes.contains(name) ? Axis(name: name) : nil)
    }

    /// Whether `path` is `prefix` or lies below it, component-wise.
    static func isWithin(_ path: Substring, _ prefix: String) -> Bool {
        guard path.hasPrefix(prefix) else { return false }
        return path.utf8.count == prefix.utf8.count || path.utf8[path.utf8.index(path.utf8.startIndex, offsetBy: prefix.utf8.count)] == UInt8(ascii: "/")
    }
}
