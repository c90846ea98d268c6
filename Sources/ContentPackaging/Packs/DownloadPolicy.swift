/// When a client installs a pack: the three policies Background Assets and Play Asset Delivery agree on.
public enum DownloadPolicy: String, Codable, Sendable, CaseIterable, Comparable {
    /// Installed with the purchase, before its transaction is finished and its content reported installed.
    case essential
    /// Installed right after the essential packs, in the background; the content is usable before it lands.
    case prefetch
    /// Installed only when the app asks for it.
    case onDemand

    /// Decodes a policy by its name; a name this client does not know (a manifest of a newer packer, or a hostile
    /// one) is refused with ``UnknownDownloadPolicy``, which says so in words, not as a decoding path.
    public init(from decoder: any Decoder) throws {
        let name = try decoder.singleValueContainer().decode(String.self)
        guard let policy = DownloadPolicy(rawValue: name) else { throw UnknownDownloadPolicy(name: name) }
        self = policy
    }

    /// Essential first, then prefetch, then on-demand: the order packs are installed in.
    public static func < (lhs: DownloadPolicy, rhs: DownloadPolicy) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}

/// A pack declaration names a download policy this client does not know: installing the pack would need rules it
/// lacks, so the manifest is refused before anything is fetched.
public struct UnknownDownloadPolicy: Error, Sendable, Equatable, CustomStringConvertible {
    /// The policy's name as the declaration gives it.
    public var name: String

    /// Creates the refusal of policy `name`.
    public init(name: String) { self.name = name }

    /// "declares a download policy 'x' this client does not know (…); update iapcontent".
    public var description: String {
        "declares a download policy '\(name)' this client does not know (it knows \(DownloadPolicy.allCases.map(\.rawValue).joined(separator: ", "))); update iapcontent"
    }
}
