internal import Foundation

/// An update a broadcaster may coalesce for a listener that reads slower than updates arrive.
///
/// A listener's buffer keeps every update except a progress-only one that a newer progress-only update
/// of the same download supersedes before it was read. What counts as progress-only is decided here,
/// against the previous update published about the same download.
package protocol CoalescibleUpdate: Sendable {
    /// What identifies one download.
    associatedtype DownloadKey: Hashable & Sendable

    /// The one download this update reports, or `nil` when it reports anything else (transactions, several
    /// downloads at once): such updates are never coalesced.
    var downloadKey: DownloadKey? { get }

    /// Whether, after `previous` (the last update published about the same download), this one only moves
    /// its progress: same state, error, version and installed folder, and `timeRemaining` not newly unknown
    /// (a stall turning it to -1 is news a listener must get).
    func onlyMovesProgress(since previous: Self) -> Bool
}
