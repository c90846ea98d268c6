internal import ContentPackaging

extension PlannedFetch {
    /// The plan kept beside `target`'s tree and the manifest kept beside it, decoded and checked against the
    /// download (`expectedLength` bytes to fetch; the archive of `expectedSHA256`): what an attempt needs when no
    /// plan was handed over in memory (the download resumes after a restart). The plan stage's one other entry
    /// besides ``Planner``: the driver runs it on a thread of its own before it admits the attempt, so the curl
    /// thread never decodes a manifest.
    ///
    /// The planning guard (``Store/beginPlanning(treePath:)``) covers it: a kept manifest that killed the process
    /// while it was read is refused after a few starts instead of killing every start of a daemon that resumes it.
    /// - Throws: ``InstallError`` naming the plan or manifest and what to do; the caller fails the download and
    ///   deletes its files, and the next request plans it anew.
    static func loadKept(target: ChunkedInstallTarget, expectedLength: Int64, expectedSHA256: String) throws(InstallError) -> PlannedFetch {
        guard let plan = ChunkPlan.load(treePath: target.treePath), plan.fetchBytes == expectedLength else {
            throw .archiveMismatch(path: target.treePath, reason: "the download's plan beside it is missing or does not match the download; run it again to plan it anew")
        }
        if let refusal = Store.beginPlanning(treePath: target.treePath) {
            throw .refusedManifest(path: target.manifestPath, reason: refusal)
        }
        defer { Store.endPlanning(treePath: target.treePath) }
        CrashHook.reach(.plan)
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(contentsOfFile: target.manifestPath) } catch {
            throw .archiveMismatch(path: target.manifestPath, reason: "cannot read the package manifest: \(error); run the download again to fetch it")
        }
        var package = try ChunkedPackage(
            manifest: manifest, expectedLength: plan.archiveLength, expectedSHA256: expectedSHA256, display: target.manifestPath)
        if let record = manifest.dictionary { package.dictionary = try DictionaryFetch.kept(at: target.dictionaryPath, record: record) }
        if let selection = plan.selection { try package.select(selection, display: target.manifestPath) }
        guard plan.fetch.allSatisfy({ $0 >= 0 && $0 < package.chunks.count }), plan.written.allSatisfy({ $0 >= 0 && $0 < package.files.count }) else {
            throw .archiveMismatch(path: target.treePath, reason: "the download's plan beside it names chunks or files the manifest lacks; run it again")
        }
        return PlannedFetch(package: package, plan: plan)
    }
}
