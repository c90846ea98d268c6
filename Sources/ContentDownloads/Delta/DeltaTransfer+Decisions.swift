internal import CCurl
internal import Foundation
internal import Logging
import Glibc

/// The reply's verdict, the step from one range to the next, and the ends of an update: installed, failed,
/// paused or cancelled.
extension DeltaTransfer {
    /// 206 with exactly the range asked for continues; 200 is the whole archive (the server ignored `Range`),
    /// from which the needed chunks are taken; anything else fails.
    func decide() {
        if request.url.lowercased().hasPrefix("file:") { return accept() }
        switch head.status {
        case 206:
            if let refusal = head.partialContentRefusal(offset: range.lowerBound, length: plan.archiveLength, validator: validator) {
                decision = .reject(refusal)
                return
            }
            guard let last = head.contentRange?.last, last >= range.upperBound - 1 else {
                decision = .reject(.cannotResume(reason: "asked for bytes \(range.lowerBound)-\(range.upperBound - 1), the server sent up to \(head.contentRange?.last ?? -1)"))
                return
            }
            if validator == nil { validator = head.validator }
            accept()
        case 200:
            if let length = head.contentLength, length != plan.archiveLength {
                decision = .reject(.lengthMismatch(expected: plan.archiveLength, actual: length, url: request.url))
                return
            }
            wholeArchive = true
            position = 0
            validator = head.validator
            DownloadLog.transfer.notice(
                "the server ignored Range: reading the whole archive for the chunks the update needs",
                metadata: ["product": "\(request.id)", "archive": "\(plan.archiveLength)", "needed": "\(plan.fetchBytes)", "url": "\(request.url)"])
            accept()
        default:
            decision = .reject(.httpStatus(head.status, url: request.url, retryAfter: head.retryAfter))
        }
    }

    private func accept() {
        decision = .accept
        guard !announced else { return }
        announced = true
        emit(.started(id: request.id, offset: fetched, restartedFromZero: false))
    }

    /// After a range ended well with chunks still to fetch: the handle is pointed at the next range (the engine
    /// adds it again). Anything else ends the transfer (``finish(result:)``).
    func continues(after result: CURLcode) -> Bool {
        guard succeeded(result), failure == nil, case .accept = decision, !wholeArchive, next < plan.fetch.count,
              position == range.upperBound
        else { return false }
        do { try configureNextRange() } catch {
            failure = error
            return false
        }
        return true
    }

    /// Whether the request in flight ended with its range complete (reading stopped at its end counts).
    private func succeeded(_ result: CURLcode) -> Bool {
        result == CURLE_OK || (overshoot && result == CURLE_WRITE_ERROR && position == range.upperBound)
    }

    /// Once libcurl is done: waits for the install thread, then reports `verified` (the tree) or `failed`.
    func finish(result: CURLcode) {
        let result = succeeded(result) ? CURLE_OK : result
        if result == CURLE_OK, decision == nil { decide() }
        poll()
        if let failure { return report(failure) }
        if case .reject(let refused) = decision { return report(refused) }
        guard result == CURLE_OK else { return report(.network(easy.error(for: result))) }
        guard fetched == plan.fetchBytes, next == plan.fetch.count else {
            return report(.network(CurlError(
                code: .partialFile, message: "the update's bytes ended at \(fetched) of \(plan.fetchBytes)", url: request.url)))
        }
        if let failed = install.finish() { return report(TransferFailure(failed)) }
        emit(.verified(id: request.id, archivePath: target.treePath))
    }

    /// Cancel: the tree and its plan are deleted (the installed version is untouched).
    func stopDeleting() {
        install.stop()
        DeltaPlan.remove(treePath: target.treePath)
        try? FileSystemCalls.removeTree(target.treePath)
        emit(.stopped(id: request.id, offset: 0, deleted: true))
    }
}
