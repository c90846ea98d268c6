internal import SystemSupport
internal import ContentPackaging
internal import Logging

/// How a ``ChunkScheduler`` carries out what its rules decide about a fault (``MirrorSet``, ``ChunkRetries``): a
/// failed request gives its chunks back and counts against its mirror; a mirror is dropped for the download; a chunk
/// that failed its hash is fetched again elsewhere.
extension ChunkScheduler {
    /// A request failed: its chunks go back; the mirror is dropped, backed off or counted, as ``MirrorSet`` decides.
    func failed(_ connection: ChunkConnection, _ why: TransferFailure, penalize: Bool, stalled: Bool = false) {
        let index = connection.mirror
        let held = connections.filter { $0.mirror == index }.count
        retire(connection)
        guard penalize else { return }
        let now = MonotonicTime.now()
        switch mirrors.take(why, at: index, holding: held, stalled: stalled, now: now) {
        case .counted:
            break
        case .slowedDown:
            logSlowDown(index, why)
        case .dropped:
            drop(index, why)
        case .droppedRefusing(let retryAfter):
            logSlowDown(index, why)
            drop(index, why)
            refusing.remember(mirrors[index].url, retryAfter: retryAfter, now: now)
        }
    }

    private func logSlowDown(_ index: Int, _ why: TransferFailure) {
        guard case .httpStatus(let status, _, let retryAfter) = why else { return }
        DownloadLog.transfer.debug("a mirror asked for less: fewer connections to it, none before its Retry-After", metadata: [
            "product": "\(request.id)", "url": "\(mirrors[index].url)", "status": "\(status)",
            "connections": "\(mirrors[index].connectionCap ?? 0)", "retryAfter": "\(retryAfter ?? 1)",
        ])
    }

    /// A mirror is done for this download: its connections' chunks go back to the queue, and the chunks that
    /// waited for it alone now wait for any.
    func drop(_ index: Int, _ why: TransferFailure) {
        let now = MonotonicTime.now()
        guard mirrors.drop(index, why, now: now, rest: { self.refusing.rest(of: $0, now: now) }) else { return }
        DownloadLog.transfer.notice(
            "a mirror is dropped for this download; its chunks go to the others",
            metadata: ["product": "\(request.id)", "url": "\(mirrors[index].url)", "reason": "\(why)"])
        for connection in connections where connection.mirror == index { retire(connection) }
        queue.requeue(retries.rerouted(mirrors: mirrors.indices, isUp: { !self.mirrors[$0].dropped }))
    }

    /// At the start: the mirrors the engine remembers refusing are left alone while another mirror is up, or get
    /// one connection each, none before their `Retry-After`, when all of them are remembered (a download whose
    /// only mirrors refused lately still runs: it asks them, gently).
    func leaveRefusingAlone() {
        let now = MonotonicTime.now()
        let (remembered, taken) = mirrors.leaveRefusingAlone(now: now, rest: { self.refusing.rest(of: $0, now: now) })
        guard !remembered.isEmpty else { return }
        DownloadLog.transfer.notice("mirrors that refused a recent download are left alone for a while", metadata: [
            "product": "\(request.id)", "urls": "\(remembered.map { mirrors[$0].url })",
            "connections": "\(taken ? "one each" : "none")",
        ])
    }

    /// A frame failed its signed hash: only that chunk is fetched again, alone, from a mirror that has not served it
    /// bad. The mirror that served it keeps its connections and the frames they bring (each is checked on its own),
    /// until it serves a second bad frame: then it is dropped while another mirror is up. A chunk that failed more
    /// often than there are mirrors (twice with one) fails the download.
    func chunkRejected(_ rejected: ChunkInstallPipeline.RejectedFrame) {
        let index = rejected.index, source = rejected.source
        submitted -= package.chunks[index].length
        DownloadLog.transfer.notice(
            "a chunk failed its signed hash; fetching it again",
            metadata: ["product": "\(request.id)", "url": "\(mirrors[source].url)", "reason": "\(rejected.reason)"])
        if mirrors.servedBadFrame(at: source, rejected.reason) { drop(source, .badChunk(rejected.reason)) }
        if retries.rejected(index, from: source, mirrorCount: mirrors.count) {
            failure = .badChunk(rejected.reason)
            return
        }
        giveBack([index])
    }

    /// Puts chunks back: one that failed its hash waits to be fetched alone from a mirror that has not served it
    /// bad, while such a mirror is up (``ChunkRetries``); the others wait in the queue, in their places.
    func giveBack(_ chunks: [Int]) {
        queue.requeue(retries.giveBack(chunks, mirrors: mirrors.indices, isUp: { !self.mirrors[$0].dropped }))
    }

    /// Whether any chunk waits, in the queue or for another mirror.
    var hasWork: Bool { !queue.isEmpty || !retries.isEmpty }

    /// Whether a connection to `mirror` would find a chunk to fetch.
    func hasWork(for mirror: Int) -> Bool {
        !queue.isEmpty || retries.waits(for: mirror)
    }
}
