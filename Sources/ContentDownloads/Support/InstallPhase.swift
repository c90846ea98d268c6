/// The journaled boundaries of one install, in order.
///
/// The store's own layout makes recovery decidable without a marker file: `content/<id>` is only
/// ever replaced by an atomic rename, and everything under `staging/` is garbage (a partial
/// extraction before `swapped`, the old version after it). A journal records these phases so the
/// download queue knows whether the new version is live.
public enum InstallPhase: String, Sendable, Codable, CaseIterable {
    /// The pre-scan passed; entries are being written into a staging folder.
    case extracting
    /// The new version is live at `content/<id>` (renamed and the parent directory fsynced).
    case swapped
    /// The old version and the archive are deleted.
    case cleaned
}

/// Receives an install's phase boundaries (the download journal persists them).
///
/// Called synchronously on the installing thread; keep it short.
public protocol InstallPhaseObserver: Sendable {
    /// `productID`'s install reached `phase`.
    func install(of productID: String, reached phase: InstallPhase)
}
