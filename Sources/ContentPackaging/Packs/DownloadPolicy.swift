/// When a client installs a pack: the three policies Background Assets and Play Asset Delivery agree on.
public enum DownloadPolicy: String, Codable, Sendable, CaseIterable, Comparable {
    /// Installed with the purchase, before its transaction is finished and its content reported installed.
    case essential
    /// Installed right after the essential packs, in the background; the content is usable before it lands.
    case prefetch
    /// Installed only when the app asks for it.
    case onDemand

    /// Essential first, then prefetch, then on-demand: the order packs are installed in.
    public static func < (lhs: DownloadPolicy, rhs: DownloadPolicy) -> Bool {
        allCases.firstIndex(of: lhs)! < allCases.firstIndex(of: rhs)!
    }
}
