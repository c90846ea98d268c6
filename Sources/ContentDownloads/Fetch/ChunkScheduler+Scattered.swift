internal import ContentPackaging

/// Scattered chunks from a server that answers one range per request: each run costs a round trip, so the gaps a
/// plan reads through are capped (``gapAllowance``) and the runs go out over more connections at once
/// (``connectionTarget``) instead of queuing behind each other on a few.
extension ChunkScheduler {
    /// What the next runs may still read through in gaps: ``GapBudget/planShare`` of the plan's bytes, less what
    /// the runs asked for so far.
    var gapAllowance: Int64 {
        max(0, Int64(Double(plan.fetchBytes) * GapBudget.planShare) - gapsAsked)
    }

    /// Connections wanted now: the tuner's target, or, while the chunks waiting are scattered (the next run ends at
    /// a gap, under 4 MiB, with chunks after it) and a mirror up answers one range per request, one per waiting chunk up to
    /// ``TransferSettings/maxConnections``. Why: such runs are bound by round trips, not bytes; spread over many
    /// connections they are in flight together, so the update takes a few round trips instead of one per run per
    /// connection. A plan of neighbouring chunks (a fresh install) keeps the tuner's count.
    var connectionTarget: Int {
        let target = tuner.target
        guard target < settings.maxConnections, queue.count > target,
              mirrors.contains(where: { !$0.dropped && !$0.isLocal && rangeSupport.supportsMultipleRanges($0.url) == false })
        else { return target }
        var peek = queue
        guard let run = peek.nextRun(targetBytes: 4 << 20, gapBytes: settings.rangeGapBytes), !peek.isEmpty,
              run.range.count < 4 << 20
        else { return target }
        return min(settings.maxConnections, queue.count)
    }
}
