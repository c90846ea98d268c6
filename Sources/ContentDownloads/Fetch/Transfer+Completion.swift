internal import CurlTransport
internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Foundation
internal import Glibc

/// The end of a transfer: verified and renamed, failed with its bytes kept, paused, or cancelled.
extension Transfer {
    /// Called once libcurl is done with this transfer; reports `verified` or `failed`.
    func finish(result: CURLcode) {
        if result == CURLE_OK, decision == nil { decide() }
        if let failure { return report(failure) }
        if case .reject(let refused) = decision { return report(refused) }
        guard result == CURLE_OK else { return report(.network(easy.error(for: result))) }
        guard checkpoint() else { return report(failure!) }
        guard fileOffset == request.expectedLength else {
            return report(.network(CurlError(
                code: .partialFile,
                message: "the body ended at byte \(fileOffset) of \(request.expectedLength)", url: request.url)))
        }
        let actual = hasher.finalizeHex()
        guard actual == request.expectedSHA256.lowercased() else {
            return report(.checksumMismatch(expected: request.expectedSHA256, actual: actual))
        }
        guard rename(request.partialPath, request.archivePath) == 0 else {
            return report(.io(operation: "rename", path: request.archivePath, errno: errno))
        }
        Transfer.fsyncDirectory(of: request.archivePath)
        request.feed?.complete()
        emit(.verified(id: request.id, archivePath: request.archivePath))
    }

    func report(_ failure: TransferFailure) {
        request.feed?.abandon()
        // Keep whatever arrived intact and durable, so a retry resumes after it.
        if case .accept = decision, self.failure == nil || !isDiskFailure(failure) {
            let saved = self.failure
            _ = checkpoint()
            self.failure = saved
        }
        emit(.failed(id: request.id, failure: failure, offset: lastCheckpointOffset))
    }

    func isDiskFailure(_ failure: TransferFailure) -> Bool {
        switch failure {
        case .io, .insufficientSpace: return true
        default: return false
        }
    }

    /// Pause: flush and fsync what arrived; report the durable offset.
    func stopKeeping() {
        request.feed?.abandon()
        if case .accept = decision { _ = checkpoint() }
        emit(.stopped(id: request.id, offset: lastCheckpointOffset, deleted: false))
    }

    /// Cancel: the transfer stops and reports its bytes abandoned; the driver deletes the partial file through the
    /// store once the stop is reported.
    func stopDeleting() {
        request.feed?.abandon()
        emit(.stopped(id: request.id, offset: 0, deleted: true))
    }

    /// fsyncs the folder holding `path`, so a rename into it survives a power loss; best effort, since the
    /// archive it follows is already verified and a lost rename only costs a re-download.
    static func fsyncDirectory(of path: String) {
        let directory = (path as NSString).deletingLastPathComponent
        let dfd = open(directory.isEmpty ? "." : directory, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard dfd >= 0 else { return }
        fsync(dfd)
        close(dfd)
    }
}
