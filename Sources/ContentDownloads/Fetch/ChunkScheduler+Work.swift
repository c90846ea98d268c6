internal import SystemSupport
internal import ContentPackaging
internal import Foundation
internal import Logging
import Glibc

extension ChunkScheduler {
    // MARK: Work

    /// Bytes fetched so far for progress: those in place (before and since). Frames handed over or being filled
    /// are left out: a pause drops them, and a client must never see more bytes than a restart resumes from.
    var progress: Int64 { min(plan.fetchBytes, install.placedBytes) }

    /// The cap of each connection, which sizes its receive buffer (the cap itself is the bucket).
    var connectionRate: Int64 {
        rate > 0 ? max(1, rate / Int64(max(1, connections.count))) : 0
    }

    /// The next run's size (``runBytes(waiting:connections:rate:)``).
    var runBytes: Int64 { Self.runBytes(waiting: queue.waitingBytes, connections: tuner.target, rate: rate) }

    /// A run's size: about two runs per connection of `waiting` bytes, between 1 and 4 MiB (the last runs end close
    /// together, and a request costs one round trip); under a receive cap of `rate` bytes a second, at most a second
    /// of one connection's share of it (at least 256 KiB). Why: the server sends a run into the sockets' buffers
    /// at once while a capped client reads it slowly, and a kill -9 or a pause loses what the sockets hold.
    static func runBytes(waiting: Int64, connections: Int, rate: Int64) -> Int64 {
        let share = min(4 << 20, max(1 << 20, waiting / Int64(2 * max(1, connections))))
        guard rate > 0 else { return share }
        return min(share, max(256 << 10, rate / Int64(max(1, connections))))
    }

    /// The size a run of several ranges may grow to (``rangedRunBytes(waiting:asking:)``) for the connections about
    /// to ask (those without chunks in flight: idle or probing).
    var rangedRunBytes: Int64 {
        let asking = max(1, connectionTarget - connections.filter { !($0.run?.chunks.isEmpty ?? true) }.count)
        return Self.rangedRunBytes(waiting: queue.waitingBytes, asking: asking)
    }

    /// A run of several ranges: `waiting` bytes shared among the `asking` connections when that share is at most
    /// 16 MiB, so one round of requests covers an update's scattered chunks; else 4 MiB, the largest run of one
    /// range. Why: a large download's holes (a resumed one's queue starts with those its pause left between chunks
    /// placed) are only at the head of the queue; there the first connection asking took 20 MiB of them in 3 ranges
    /// (40 s at 512 KiB/s in a phase of 28 s) while the others took runs of 4 MiB, and the download ended on it.
    static func rangedRunBytes(waiting: Int64, asking: Int) -> Int64 {
        let share = waiting / Int64(max(1, asking))
        return share <= 16 << 20 ? share : 4 << 20
    }

    /// Gives each idle connection a run, adds connections up to the tuner's target, retires what has no work.
    func fill() {
        guard !hasEnded, failure == nil else { return }
        let now = MonotonicTime.now()
        for connection in connections where connection.run == nil {
            let mirror = mirrors[connection.mirror]
            guard mirror.mayHold(connections.filter { $0.mirror == connection.mirror }.count, now: now),
                  connections.count <= connectionTarget, hasWork(for: connection.mirror),
                  !(mirror.ignoresRange && connections.contains(where: { $0 !== connection && $0.mirror == connection.mirror }))
            else {
                retire(connection)
                continue
            }
            start(connection)
        }
        openConnections(now: now)
        shareTheTail(now: now)
    }

    /// Adds connections up to the target (``connectionTarget``) while work waits and a mirror may take one.
    func openConnections(now: Double) {
        while connections.count < connectionTarget, hasWork, let mirror = pickMirror(now: now) {
            let connection: ChunkConnection
            do { connection = try ChunkConnection(mirror: mirror, scheduler: self) } catch {
                failure = .network(error)
                return
            }
            connections.append(connection)
            start(connection)
            if connection.run == nil { break }
        }
    }

    /// When no chunk waits but a connection could be opened (fewer than the target, a mirror that may take one),
    /// the run in flight that would take longest gives half of what it has not begun back to the queue and a new
    /// connection takes it (``TailSplit``): the tail of a download is shared, not left on one connection.
    func shareTheTail(now: Double) {
        for _ in 0..<tuner.target {
            let counts = Dictionary(grouping: connections, by: \.mirror).mapValues(\.count)
            guard !hasWork, connections.count < tuner.target, mirrors.confirmedMayTakeOneMore(counts: counts, now: now)
            else { return }
            let running = connections.filter { $0.run != nil && !$0.wholeArchive }
            let tails = running.map {
                TailSplit.Tail(frames: $0.tail.map { package.chunks[$0].length }, bytesPerSecond: $0.runRate(now: now))
            }
            guard let cut = TailSplit.cut(tails) else {
                if splitLastFrame(now: now) { continue }
                return
            }
            let given = running[cut.run].cutTail(keeping: cut.keep)
            guard !given.isEmpty else { return }
            DownloadLog.transfer.trace("tail shared", metadata: [
                "product": "\(request.id)", "mirror": "\(running[cut.run].mirror)", "chunks": "\(given.first!)…\(given.last!)",
            ])
            queue.requeue(given)
            openConnections(now: now)
        }
    }

    /// How many ranges the next request to `mirror` may ask for: ``TransferSettings/maxRangesPerRequest`` where its
    /// server proved it answers several (a `HEAD` probe, ``FetchQueue/Run/probe``, asks an unknown one first), else one.
    func maxRanges(for mirror: Int) -> Int {
        rangeSupport.supportsMultipleRanges(mirrors[mirror].url) == true ? max(1, settings.maxRangesPerRequest) : 1
    }

    /// The gap a request to `mirror` reads through between chunks: ``TransferSettings/rangeGapBytes``, or, where its
    /// server answers one range per request, what a connection receives from it in a round trip when that is more
    /// (``GapBudget``: fetching the gap costs less than another request).
    func gapBytes(for mirror: Int) -> Int64 {
        maxRanges(for: mirror) > 1 ? settings.rangeGapBytes : mirrors[mirror].gaps.gapBytes(minimum: settings.rangeGapBytes)
    }

    /// Whether a connection to `mirror` should probe its server before its first run: the server's answer to
    /// several ranges is unknown and the next run would take several ranges. Every connection opened meanwhile
    /// probes too (a `HEAD` costs no body), so they all start at once: handshake, probe, then the runs.
    func shouldProbe(_ mirror: Int) -> Bool {
        let url = mirrors[mirror].url
        guard settings.maxRangesPerRequest > 1, rangeSupport.supportsMultipleRanges(url) == nil, !url.lowercased().hasPrefix("file:")
        else { return false }
        var peek = queue
        let run = peek.nextRun(
            targetBytes: runBytes, gapBytes: settings.rangeGapBytes, maxRanges: settings.maxRangesPerRequest, rangedTargetBytes: rangedRunBytes)
        return (run?.ranges.count ?? 0) > 1
    }

    /// The server of `mirror` does not answer several ranges correctly (`why`): from now on one range per request;
    /// the chunks of the request go back to the queue, and the mirror is not blamed.
    func refuseMultipleRanges(_ mirror: Int, _ why: String) {
        if rangeSupport.supportsMultipleRanges(mirrors[mirror].url) != false {
            DownloadLog.transfer.debug(
                "a server does not answer requests for several ranges; asking it for one range at a time",
                metadata: ["product": "\(request.id)", "url": "\(mirrors[mirror].url)", "reason": "\(why)"])
        }
        rangeSupport.record(mirrors[mirror].url, supportsMultipleRanges: false)
    }

    /// The mirror for a new connection (``MirrorSet/pick(counts:now:hasWork:probes:)``).
    func pickMirror(now: Double) -> Int? {
        mirrors.pick(
            counts: Dictionary(grouping: connections, by: \.mirror).mapValues(\.count), now: now, hasWork: hasWork(for:),
            probes: shouldProbe)
    }

    func start(_ connection: ChunkConnection) {
        // Unknown server, scattered chunks: ask with a HEAD first (a 200 to a GET for several ranges would send the
        // whole archive until the connection closes).
        let local = mirrors[connection.mirror].isLocal
        if !local, shouldProbe(connection.mirror) { return begin(connection, .probe) }
        let run: FetchQueue.Run
        if let chunk = retries.take(for: connection.mirror) {  // a chunk another mirror served bad: alone
            run = FetchQueue.Run(chunks: [chunk], ranges: [frameRange(of: chunk)])
        } else if let next = local
            ? queue.nextRun(targetBytes: 1, gapBytes: 0)  // a local origin: one frame per request
            : queue.nextRun(
                targetBytes: runBytes, gapBytes: gapBytes(for: connection.mirror), maxRanges: maxRanges(for: connection.mirror),
                rangedTargetBytes: rangedRunBytes, gapAllowance: gapAllowance)
        {
            run = next
        } else {
            return retire(connection)
        }
        // A local origin's transfer cannot pause: its frame is admitted first, or the connection waits idle.
        if local, !connection.admitAhead(run.chunks[0]) { return giveBack(run.chunks) }
        begin(connection, run)
    }

    /// Sends `run`'s request on `connection` (`part`: the later part of a split frame, ``splitLastFrame(now:)``).
    func begin(_ connection: ChunkConnection, _ run: FetchQueue.Run, part: Range<Int64>? = nil) {
        let mirror = mirrors[connection.mirror]
        DownloadLog.transfer.trace(
            run.chunks.isEmpty ? "probe" : "run", metadata: [
                "product": "\(request.id)", "mirror": "\(connection.mirror)", "connections": "\(connections.count)/\(connectionTarget)",
                "chunks": "\(run.chunks.first.map { "\($0)…\(run.chunks.last!)" } ?? "none")", "bytes": "\(run.range.count)",
                "ranges": "\(run.ranges.count)",
                "waiting": "\(queue.waitingBytes)",
            ])
        firstRequest = firstRequest ?? MonotonicTime.now()
        requests += 1
        // A part of a split frame asks for less than its chunk and no gap: counting the chunk whole would lower the
        // count (it read -4.9 MB after a 256 MiB download) and so widen the gap budget of a scattered plan.
        if part == nil {
            gapsAsked += run.ranges.reduce(0) { $0 + Int64($1.count) } - run.chunks.reduce(0) { $0 + package.chunks[$1].length }
        }
        do {
            try connection.start(run, url: mirror.url, settings: settings, rate: connectionRate, part: part)
        } catch {
            giveBack(run.chunks)
            failure = .network(error)
        }
    }

    func retire(_ connection: ChunkConnection) {
        let split = connection.part?.chunk
        var chunks = connection.abandon()
        if let split, chunks.contains(split), splits[split] != nil, !undoSplit(split, failedOn: connection) {
            chunks.removeAll { $0 == split }
        }
        giveBack(chunks)
        connections.removeAll { $0 === connection }
        retired.append(connection)
    }

    func abandonAll() {
        for connection in connections { retire(connection) }
    }

    /// Ends the download when it failed, when every mirror is down, or when every chunk is in: the pipeline drains
    /// (a frame it rejects goes back to the queue), the tree is checked, and `verified` is reported.
    func endIfDone() {
        guard !hasEnded else { return }
        if failure == nil, !mirrors.anyUp {
            failure = mirrors.lastFailure ?? .install(.archiveMismatch(path: request.url, reason: "no mirror left to fetch from"))
        }
        if let failure {
            abandonAll()
            hasEnded = true
            return report(failure)
        }
        guard !hasWork, !connections.contains(where: { $0.run != nil }) else { return }
        let drained = install.sync()
        let rejected = install.takeRejected()
        if !rejected.isEmpty {
            for frame in rejected { chunkRejected(frame) }
            fill()
            return endIfDone()
        }
        hasEnded = true
        abandonAll()
        if let failed = drained.failure ?? install.finish() { return report(TransferFailure(failed)) }
        let first = firstRequest ?? MonotonicTime.now()
        DownloadLog.transfer.debug("fetched", metadata: [
            "product": "\(request.id)", "requests": "\(requests)", "bytes": "\(submitted)", "in place at start": "\(placedAtStart)",
            "off the network": "\(fetched)", "gaps asked": "\(gapsAsked)", "plan": "\(plan.fetchBytes)",
            "network": "\(Int(((lastFrame ?? first) - first) * 1000)) ms from the first request to the last frame",
            "installed": "\(Int((MonotonicTime.now() - first) * 1000)) ms from the first request to the tree checked and durable",
        ])
        emit(.verified(id: request.id, archivePath: target.treePath))
    }

    /// Reports the failure with the offset to resume from (what is in place, durable). A refusal (the archive
    /// disagrees with its signed manifest) keeps nothing: the driver deletes the tree, the plan and the manifest
    /// through the store, and the next attempt fetches and checks the manifest again.
    func report(_ failure: TransferFailure) {
        if case .install = failure {
            install.stop()
            return emit(.failed(id: request.id, failure: failure, offset: 0))
        }
        let durable = install.sync().durableOffset
        emit(.failed(id: request.id, failure: failure, offset: durable))
    }
}
