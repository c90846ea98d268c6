internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Logging

/// How a ``ChunkScheduler`` takes a fault: a failed request gives its chunks back and counts against its mirror; a
/// mirror is dropped for the download; a chunk that failed its hash is fetched again elsewhere.
extension ChunkScheduler {
    /// A request failed: its chunks go back; the mirror is dropped, backed off or counted, by what happened.
    func failed(_ connection: ChunkConnection, _ why: TransferFailure, penalize: Bool, stalled: Bool = false) {
        let index = connection.mirror
        let held = connections.filter { $0.mirror == index }.count
        retire(connection)
        guard penalize else { return }
        mirrors[index].lastFailure = why
        let others = mirrors.indices.contains { $0 != index && !mirrors[$0].dropped }
        switch why {
        case .httpStatus(let status, _, let retryAfter) where status == 429 || status == 503:
            // This origin's own back-off: the other mirrors keep their connections and take its share.
            mirrors[index].slowDown(retryAfter: retryAfter, holding: held, now: MonotonicTime.now())
            DownloadLog.transfer.debug("a mirror asked for less: fewer connections to it, none before its Retry-After", metadata: [
                "product": "\(request.id)", "url": "\(mirrors[index].url)", "status": "\(status)",
                "connections": "\(mirrors[index].connectionCap ?? 0)", "retryAfter": "\(retryAfter ?? 1)",
            ])
            if mirrors[index].failures >= 3, others { drop(index, why) }
        case .network:
            mirrors[index].failures += 1
            if (stalled && others) || mirrors[index].failures >= 3 { drop(index, why) }
        default:
            drop(index, why)
        }
    }

    /// A mirror is done for this download: its connections' chunks go back to the queue.
    func drop(_ index: Int, _ why: TransferFailure) {
        guard !mirrors[index].dropped else { return }
        mirrors[index].dropped = true
        mirrors[index].lastFailure = why
        DownloadLog.transfer.notice(
            "a mirror is dropped for this download; its chunks go to the others",
            metadata: ["product": "\(request.id)", "url": "\(mirrors[index].url)", "reason": "\(why)"])
        for connection in connections where connection.mirror == index { retire(connection) }
    }

    /// A frame failed its signed hash: fetched again from another mirror (the one that served it is dropped
    /// when another is up); a chunk that failed on every mirror, or twice, fails the download.
    func chunkRejected(_ rejected: ChunkInstallPipeline.RejectedFrame) {
        submitted -= package.chunks[rejected.index].length
        badChunks[rejected.index, default: 0] += 1
        DownloadLog.transfer.notice(
            "a chunk failed its signed hash; fetching it again",
            metadata: ["product": "\(request.id)", "url": "\(mirrors[rejected.source].url)", "reason": "\(rejected.reason)"])
        mirrors[rejected.source].lastFailure = .badChunk(rejected.reason)
        if mirrors.indices.contains(where: { $0 != rejected.source && !mirrors[$0].dropped }) {
            drop(rejected.source, .badChunk(rejected.reason))
        }
        if badChunks[rejected.index]! > max(1, mirrors.count) {
            failure = .badChunk(rejected.reason)
            return
        }
        queue.requeue([rejected.index])
    }
}
