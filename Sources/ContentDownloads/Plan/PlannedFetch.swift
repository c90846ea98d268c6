/// A chunk plan as the plan stage made it, handed to the fetch in memory: the checked manifest and the plan, so an
/// attempt decodes and checks its manifest once. The plan's file beside the tree is for restarts alone: a download
/// admitted without this value (after a restart, or a retry) reads both back from the store. The plan may be handed
/// over before it is durable: ``keeping`` says when it is, and nothing fetched is placed before.
///
/// A reference, compared by identity, so a request that carries one stays cheap to copy and compare.
package final class PlannedFetch: Sendable, Equatable {
    /// The signed manifest, decoded and checked against the catalog.
    let package: ChunkedPackage
    /// What the tree still needs: the chunks to fetch and their size.
    let plan: ChunkPlan
    /// Settled once the tree, its selection record and the plan are durable (`nil`: they were before the hand-over).
    let keeping: PlanKeeping?

    init(package: ChunkedPackage, plan: ChunkPlan, keeping: PlanKeeping? = nil) {
        self.package = package
        self.plan = plan
        self.keeping = keeping
    }

    package static func == (lhs: PlannedFetch, rhs: PlannedFetch) -> Bool { lhs === rhs }
}
