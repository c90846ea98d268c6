internal import ContentPackaging

extension ChunkScheduler {
    /// The checked manifest and the plan the driver handed over with the request (the plan stage decoded and
    /// checked both, in memory: ``Planner`` for a new plan, `PlannedFetch.loadKept` for a kept one); the curl
    /// thread decodes no manifest.
    static func load(_ request: TransferRequest, target: ChunkedInstallTarget) throws(TransferFailure) -> (ChunkedPackage, ChunkPlan) {
        guard let planned = request.planned, planned.plan.fetchBytes == request.expectedLength else {
            throw .install(.archiveMismatch(path: target.treePath, reason: "the download's plan was not handed over or does not match the download; run it again to plan it anew"))
        }
        return (planned.package, planned.plan)
    }
}
