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
            if mirrors[index].failures >= 3, others {
                drop(index, why)
                refusing.remember(mirrors[index].url, retryAfter: retryAfter, now: MonotonicTime.now())
            }
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
        if !mirrors.contains(where: { !$0.dropped }) {
            // The mirrors left alone for refusing earlier are all that is left: they are asked, one connection each,
            // none before the Retry-After it gave.
            let now = MonotonicTime.now()
            for other in mirrors.indices where mirrors[other].resting {
                mirrors[other].dropped = false
                mirrors[other].resting = false
                takeBackResting(other, now: now)
            }
        }
        let stranded = elsewhere  // chunks that waited for this mirror alone now wait for any
        elsewhere = []
        giveBack(stranded)
    }

    /// At the start: the mirrors the engine remembers refusing are left alone while another mirror is up, or get
    /// one connection each, none before their `Retry-After`, when all of them are remembered (a download whose
    /// only mirrors refused lately still runs: it asks them, gently).
    func leaveRefusingAlone() {
        let now = MonotonicTime.now()
        let remembered = mirrors.indices.filter { refusing.isResting(mirrors[$0].url, now: now) }
        guard !remembered.isEmpty else { return }
        let allRemembered = remembered.count == mirrors.count
        for index in remembered {
            if allRemembered {
                takeBackResting(index, now: now)
            } else {
                mirrors[index].dropped = true
                mirrors[index].resting = true
            }
        }
        DownloadLog.transfer.notice("mirrors that refused a recent download are left alone for a while", metadata: [
            "product": "\(request.id)", "urls": "\(remembered.map { mirrors[$0].url })",
            "connections": "\(allRemembered ? "one each" : "none")",
        ])
    }

    /// A mirror the engine remembers refusing is asked after all: one connection, not before the `Retry-After` it
    /// gave (at most 60 s from `now`, as within a download).
    func takeBackResting(_ index: Int, now: Double) {
        mirrors[index].connectionCap = 1
        if let rest = refusing.rest(of: mirrors[index].url, now: now) {
            mirrors[index].retryAt = max(mirrors[index].retryAt, min(rest.retryAt, now + 60))
        }
    }

    /// A frame failed its signed hash: only that chunk is fetched again, alone, from a mirror that has not served it
    /// bad. The mirror that served it keeps its connections and the frames they bring (each is checked on its own),
    /// until it serves a second bad frame: then it is dropped while another mirror is up. A chunk that failed more
    /// often than there are mirrors (twice with one) fails the download.
    func chunkRejected(_ rejected: ChunkInstallPipeline.RejectedFrame) {
        let index = rejected.index, source = rejected.source
        submitted -= package.chunks[index].length
        badChunks[index, default: 0] += 1
        servedBad[index, default: []].insert(source)
        mirrors[source].badFrames += 1
        mirrors[source].lastFailure = .badChunk(rejected.reason)
        DownloadLog.transfer.notice(
            "a chunk failed its signed hash; fetching it again",
            metadata: ["product": "\(request.id)", "url": "\(mirrors[source].url)", "reason": "\(rejected.reason)"])
        if mirrors[source].badFrames >= 2, mirrors.indices.contains(where: { $0 != source && !mirrors[$0].dropped }) {
            drop(source, .badChunk(rejected.reason))
        }
        if badChunks[index]! > max(1, mirrors.count) {
            failure = .badChunk(rejected.reason)
            return
        }
        giveBack([index])
    }

    /// Puts chunks back: one that failed its hash waits to be fetched alone from a mirror that has not served it
    /// bad, while such a mirror is up (``takeElsewhere(for:)``); the others wait in the queue, in their places.
    func giveBack(_ chunks: [Int]) {
        var plain: [Int] = []
        for chunk in chunks {
            if let bad = servedBad[chunk], mirrors.indices.contains(where: { !mirrors[$0].dropped && !bad.contains($0) }) {
                if !elsewhere.contains(chunk) { elsewhere.append(chunk) }
            } else {
                plain.append(chunk)
            }
        }
        queue.requeue(plain)
    }

    /// A chunk waiting for another mirror than the one that served it bad, that `mirror` may serve: taken.
    func takeElsewhere(for mirror: Int) -> Int? {
        guard let at = elsewhere.firstIndex(where: { !servedBad[$0, default: []].contains(mirror) }) else { return nil }
        return elsewhere.remove(at: at)
    }

    /// Whether any chunk waits, in the queue or for another mirror.
    var hasWork: Bool { !queue.isEmpty || !elsewhere.isEmpty }

    /// Whether a connection to `mirror` would find a chunk to fetch.
    func hasWork(for mirror: Int) -> Bool {
        !queue.isEmpty || elsewhere.contains { !servedBad[$0, default: []].contains(mirror) }
    }
}
