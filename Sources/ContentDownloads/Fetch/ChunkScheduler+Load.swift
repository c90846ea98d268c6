internal import ContentPackaging

extension ChunkScheduler {
    /// The manifest (checked against the catalog's archive) and the plan (checked against the request).
    static func load(_ request: TransferRequest, target: ChunkedInstallTarget) throws(TransferFailure) -> (ChunkedPackage, ChunkPlan) {
        if let planned = request.planned, planned.plan.fetchBytes == request.expectedLength, !planned.plan.fetch.isEmpty {
            return (planned.package, planned.plan)  // checked by the planner moments ago, in this process
        }
        guard let plan = ChunkPlan.load(treePath: target.treePath), plan.fetchBytes == request.expectedLength, !plan.fetch.isEmpty else {
            throw .install(.archiveMismatch(path: target.treePath, reason: "the download's plan beside it is missing or does not match the download; run it again to plan it anew"))
        }
        // The planning guard (`Store.beginPlanning`): a resumed plan whose manifest killed the process while it was
        // read is refused after a few starts instead of killing every start of a daemon that resumes it.
        if let refusal = Store.beginPlanning(treePath: target.treePath) {
            throw .install(.refusedManifest(path: target.manifestPath, reason: refusal))
        }
        defer { Store.endPlanning(treePath: target.treePath) }
        CrashHook.reach(.plan)
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(contentsOfFile: target.manifestPath) } catch {
            throw .install(.archiveMismatch(path: target.manifestPath, reason: "cannot read the package manifest: \(error); run the download again to fetch it"))
        }
        var package: ChunkedPackage
        do {
            package = try ChunkedPackage(
                manifest: manifest, expectedLength: plan.archiveLength, expectedSHA256: request.expectedSHA256, display: target.manifestPath)
            if let selection = plan.selection { try package.select(selection, display: target.manifestPath) }
        } catch {
            throw .install(error)
        }
        guard plan.fetch.allSatisfy({ $0 >= 0 && $0 < package.chunks.count }), plan.written.allSatisfy({ $0 >= 0 && $0 < package.files.count }) else {
            throw .install(.archiveMismatch(path: target.treePath, reason: "the download's plan beside it names chunks or files the manifest lacks; run it again"))
        }
        return (package, plan)
    }
}
