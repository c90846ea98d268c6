internal import CCurl
internal import Foundation
internal import Logging
import Glibc

/// The reply's verdict and the ends of a chunk-indexed transfer: installed, failed, paused or cancelled.
extension ChunkTransfer {
    /// Decides what to do with the body from the response head: 206 at the asked offset continues; 200 is the
    /// archive from its start, whose bytes before the asked offset are dropped (the server ignored `Range`);
    /// 416 at the archive's end means nothing is missing; anything else fails.
    func decide() {
        if request.url.lowercased().hasPrefix("file:") {
            return accept(restartedFromZero: false)
        }
        switch head.status {
        case 206:
            if let refusal = head.partialContentRefusal(offset: requestedOffset, length: request.expectedLength, validator: validator) {
                decision = .reject(refusal)
                return
            }
            accept(restartedFromZero: false)
        case 200:
            if let length = head.contentLength, length != request.expectedLength {
                decision = .reject(.lengthMismatch(expected: request.expectedLength, actual: length, url: request.url))
                return
            }
            if requestedOffset > 0 {
                skip = requestedOffset
                DownloadLog.transfer.debug(
                    "the server ignored the range; dropping the bytes before it",
                    metadata: ["product": "\(request.id)", "offset": "\(requestedOffset)"])
            }
            validator = head.validator
            accept(restartedFromZero: false)
        case 416 where requestedOffset == request.expectedLength:
            decision = .alreadyComplete
        default:
            decision = .reject(.httpStatus(head.status, url: request.url, retryAfter: head.retryAfter))
        }
    }

    private func accept(restartedFromZero: Bool) {
        decision = .accept
        emit(.started(id: request.id, offset: requestedOffset, restartedFromZero: restartedFromZero))
    }

    /// Called once libcurl is done: waits for the install thread to finish the tree, then reports `verified`
    /// (the tree is the `archivePath`) or `failed`.
    func finish(result: CURLcode) {
        if result == CURLE_OK, decision == nil { decide() }
        poll()
        if let failure { return report(failure) }
        if case .reject(let refused) = decision { return report(refused) }
        guard result == CURLE_OK else { return report(.network(easy.error(for: result))) }
        guard received == request.expectedLength else {
            return report(.network(CurlError(
                code: .partialFile, message: "the body ended at byte \(received) of \(request.expectedLength)", url: request.url)))
        }
        if let failed = install.finish() { return report(TransferFailure(failed)) }
        emit(.verified(id: request.id, archivePath: target.treePath))
    }

    /// Cancel: the tree is deleted.
    func stopDeleting() {
        install.stop()
        try? FileSystemCalls.removeTree(target.treePath)
        emit(.stopped(id: request.id, offset: 0, deleted: true))
    }
}

/// A transfer whose bytes go through a ``ChunkInstallPipeline`` (``ChunkTransfer``, ``DeltaTransfer``): its
/// failure, pause and rate change are the same; only cancelling differs (what it deletes).
protocol PipelinedTransfer: SingleHandleTransfer {
    var install: ChunkInstallPipeline { get }
    var emit: @Sendable (TransferEvent) -> Void { get }
}

extension PipelinedTransfer {
    /// Makes what was installed durable and reports the failure with the offset to resume from.
    func report(_ failure: TransferFailure) {
        let durable = install.sync().durableOffset
        emit(.failed(id: request.id, failure: failure, offset: durable))
    }

    /// Pause: the frames received are installed and made durable; a partial frame is dropped.
    func stopKeeping() {
        let durable = install.sync().durableOffset
        emit(.stopped(id: request.id, offset: durable, deleted: false))
    }

    /// Changes the receive-rate cap (0 = none).
    func setRate(_ bytesPerSecond: Int64) {
        try? easy.set(large: CURLOPT_MAX_RECV_SPEED_LARGE, max(0, bytesPerSecond))
    }

    /// These transfers make their own checkpoints on the install thread.
    func checkpointSynced(_ result: CheckpointSyncer.Completed) {}
}

extension TransferFailure {
    /// How an install failure during a chunk-indexed transfer is reported: a full disk or a failed system call
    /// as ``io(operation:path:errno:)``, a chunk that failed its hash as ``badChunk(_:)``, anything else as ``install(_:)``.
    init(_ error: InstallError) {
        switch error {
        case .insufficientSpace: self = .io(operation: "write", path: "the store", errno: ENOSPC)
        case .system(let operation, let path, let code): self = .io(operation: operation, path: path, errno: code)
        case .archiveMismatch(let path, let reason) where path == ChunkInstallLoop.badChunkPath: self = .badChunk(reason)
        default: self = .install(error.description)
        }
    }
}
