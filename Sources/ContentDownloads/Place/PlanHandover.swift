internal import ContentDelivery
internal import ContentPackaging
internal import Logging

/// A chunk plan made on the planning thread (`iap-update`) and handed to the fetch before it is durable.
///
/// The plan goes to the fetch as soon as the tree's files exist (``make(_:_:distrusting:selection:metadata:)``:
/// a ``PlannedFetch`` with its ``PlanKeeping``), so the fetch opens its connections while the same thread makes the
/// tree, the selection record and the plan durable (``finish()``): the fsyncs are off the path to the first byte,
/// and nothing fetched is placed in the tree before they are done.
///
/// - Important: Not thread-safe: made and finished on the planning thread, which owns the tree until then.
struct PlanHandover {
    private let builder: TreeBuilder
    private let built: TreeBuilder.Built
    private let keeping = PlanKeeping()

    /// Decides the chunk plan of `product` and builds its tree (``Planner/decide(_:distrusting:selection:metadata:)``,
    /// ``TreeBuilder/build()``; a plan from the installed version that fetches nothing is made from nothing): the
    /// plan for the fetch, and the hand-over the thread finishes once the caller has it (`nil` on failure).
    static func make(
        _ planner: Planner, _ product: CatalogProduct, distrusting damaged: Set<String>, selection: PackSelection,
        metadata: Logger.Metadata
    ) -> (Result<PlannedFetch, InstallError>, PlanHandover?) {
        do throws(InstallError) {
            let decision = try planner.decide(product, distrusting: damaged, selection: selection, metadata: metadata)
            let handover: PlanHandover
            do throws(InstallError) {
                handover = try PlanHandover(decision)
            } catch {
                // Every chunk was rebuilt from the installed files: a plan must fetch, so it is made from nothing.
                guard decision.installed != nil, Planner.isNothingToFetch(error) else { throw error }
                handover = try PlanHandover(
                    try planner.fromNothing(decision.package, treePath: decision.treePath, archiveLength: decision.archiveLength))
            }
            let planned = PlannedFetch(package: handover.builder.decision.package, plan: handover.built.plan, keeping: handover.keeping)
            return (.success(planned), handover)
        } catch {
            return (.failure(error), nil)
        }
    }

    private init(_ decision: ChunkPlanDecision) throws(InstallError) {
        builder = TreeBuilder(decision: decision)
        built = try builder.build()
    }

    /// Makes the tree, its selection record and its plan durable (``TreeBuilder/keep(_:)``) and settles the
    /// plan's ``PlanKeeping`` with the outcome: a failure fails the download the fetch started.
    func finish() {
        do throws(InstallError) {
            try builder.keep(built)
            keeping.settle(nil)
        } catch {
            keeping.settle(error)
        }
    }
}
