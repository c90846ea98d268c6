internal import Foundation
internal import Logging

extension DownloadManager {
    /// Loads the kept plan of `record` (a chunk plan resumed with no plan in memory) on a thread of its own
    /// (`PlannedFetch.loadKept`, the plan stage), then admits it again: the curl thread never decodes a manifest,
    /// and the actor is not held while a large one is read. Once per download at a time.
    func loadKeptPlan(of record: TransferRecord) {
        let id = record.productID, version = record.contentVersion
        guard loadingPlans.insert(id).inserted else { return }
        let target = store.chunkedTarget(productID: id, version: version)
        let length = record.expectedLength, sha256 = record.expectedSHA256
        Task {
            let outcome = await BlockingCall.run(thread: "iap-plan-load") { () -> Result<PlannedFetch, InstallError> in
                Result { () throws(InstallError) -> PlannedFetch in
                    try PlannedFetch.loadKept(target: target, expectedLength: length, expectedSHA256: sha256)
                }
            }
            self.keptPlanLoaded(id, version: version, outcome)
        }
    }

    /// Takes a loaded plan for the download's next attempt, or fails the download with the refusal as a refused
    /// attempt would (its files deleted, its manifest fetched and checked again when it is asked for next).
    private func keptPlanLoaded(_ id: String, version: String, _ outcome: Result<PlannedFetch, InstallError>) {
        loadingPlans.remove(id)
        guard var record = records[id], record.contentVersion == version, record.downloadState == .waiting, !isShutDown else {
            return admit()
        }
        switch outcome {
        case .success(let fetch):
            planned[id] = fetch
        case .failure(let error):
            DownloadLog.transfer.debug("the kept plan is refused", metadata: ["product": "\(id)", "reason": "\(error)"])
            let verdict = TransferFailure.install(error).verdict(for: &record)
            store.discardTransfer(productID: id, version: version, partialPath: record.partialPath)
            record.restartFromZero()
            live[id]?.downloadedBytes = 0
            let final = verdict.final ?? verdict.error
            DownloadMetrics.failed(code: final.code.rawValue)
            record.fail(with: final)
            save(&record)
            emit(id, force: true)
        }
        admit()
    }
}
