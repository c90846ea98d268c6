internal import SystemSupport
internal import Foundation
import Glibc

/// The planning guard: a count, kept in `transfers/<product>-<version>.update.planning`, of the processes that began
/// planning a download and never ended it.
///
/// **Why.** Planning reads the signed manifest — the most hostile input a client takes — and a daemon resumes its
/// journal's downloads at every start. If reading one manifest ever killed the process (a bug no corpus found yet),
/// every start would plan it again and die again: one bad publish would keep every daemon down until someone edited
/// its store. The count turns that loop into one failed download: a planning that finds ``maxUnendedPlannings``
/// unended before it is refused with a reason, and the daemon serves the rest. A kill -9 while planning counts too, so
/// the limit is more than one; a planning that ends, however it ends, clears the count.
extension Store {
    /// Unended plannings of one download before the next is refused.
    package static let maxUnendedPlannings = 2

    /// The guard file of the download whose tree is at `treePath` (`transfers/<product>-<version>.update.planning`):
    /// one per product version, shared by the queue's planning and the transfer thread's loading of a resumed plan,
    /// the two places a manifest is read and applied.
    static func planningGuardFile(treePath: String) -> String { treePath + ".planning" }

    /// Records that a planning of the download whose tree is at `treePath` begins (before it reads anything), or refuses it when ``maxUnendedPlannings`` plannings before it never ended: then the count is
    /// cleared, so the next request (a person's retry) plans again.
    /// - Returns: why it is refused, or `nil` when planning may go on (and must call ``endPlanning(treePath:)``).
    static func beginPlanning(treePath: String) -> String? {
        let file = planningGuardFile(treePath: treePath)
        let unended = (try? String(contentsOfFile: file, encoding: .utf8)).flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        if unended >= maxUnendedPlannings {
            unlink(file)
            return "planning it stopped the process \(unended) times in a row without ending (a crash on its manifest?); it is marked failed so the rest of the queue runs — report it to the publisher, and run the download again to retry"
        }
        let url = URL(fileURLWithPath: file)
        try? FileManager.default.createDirectory(at: url.deletingLastPathComponent(), withIntermediateDirectories: true)
        // Not fsynced: what it counts are processes that died (a kill or a crash leaves the page cache, so the
        // next start reads it); a power loss that drops the count costs at most one more start. It stays off
        // the path to a download's first byte.
        try? DurableFile.writeUnsynced(Data("\(unended + 1)\n".utf8), to: url)
        return nil
    }

    /// Records that the planning of the download whose tree is at `treePath` ended (with a plan or a refusal).
    static func endPlanning(treePath: String) {
        unlink(planningGuardFile(treePath: treePath))
    }
}
