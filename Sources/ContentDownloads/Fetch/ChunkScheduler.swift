internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Foundation
internal import Logging
import Glibc

/// Runs a chunk plan on the transfer thread: the plan's chunks fetched over several connections at once, from
/// every mirror at once, verified against the signed chunk index and placed in the tree in whatever order they
/// arrive. One of the two kinds of download the engine runs (the other is the legacy whole-archive ``Transfer``).
///
/// - **Work**: one ``FetchQueue``; each ``ChunkConnection`` takes the next run of neighbouring chunks (small gaps
///   read through), sized so every connection has about two runs of what is left, and takes another when it is done.
///   Faster mirrors finish runs sooner and so take more of them: the mirrors share the work by the throughput
///   each delivers.
/// - **Connections**: ``ConnectionTuner`` (start at ``TransferSettings/connections``, grow while it pays, halve on
///   429/503), spread over the mirrors that are up; all on the engine's one multi handle.
/// - **Faults**: a mirror that answers 4xx/5xx, changes its ETag, stalls ``TransferSettings/stallSeconds`` while
///   others deliver, or serves a chunk that fails its signed hash is dropped for this download and the chunks it
///   held go back to the queue; only the frames that were in flight are fetched again. When every mirror is
///   dropped the download fails with the last reason and the manager's retry policy takes over.
/// - **Resume**: ``PlacedChunks`` beside the tree says which chunks are in place; a restart fetches the rest. Offsets
///   the engine reports (progress, checkpoints, the journal) count the plan's fetched bytes, `0…plan.fetchBytes`.
///
/// - Important: Not thread-safe: created, used and destroyed on the transfer thread.
final class ChunkScheduler: EngineTransfer {
    /// One mirror as this download sees it.
    struct Mirror {
        var url: String
        /// Its ETag or date, from its first range reply: later replies must carry the same.
        var validator: Validator?
        var dropped = false
        /// Network failures so far (three drop it).
        var failures = 0
        /// It answered a range request with the whole archive: one connection reads it through.
        var ignoresRange = false
        /// It answered a range request correctly: until then it gets one connection (a server that ignores
        /// `Range` or lacks the file costs one request, not one per connection).
        var confirmed = false
        /// Not before this time (a 429/503's `Retry-After`).
        var retryAt: Double = 0
        /// Why it failed last.
        var lastFailure: TransferFailure?
        /// Frame bytes it delivered.
        var delivered: Int64 = 0
    }

    /// What the servers showed about multi-range requests (the engine's, shared by its downloads).
    let rangeSupport: RangeSupport
    /// The memory frames are received into (the engine's, shared by its downloads).
    let memory: FrameMemory

    let request: TransferRequest
    let emit: @Sendable (TransferEvent) -> Void
    let target: ChunkedInstallTarget
    let settings: TransferSettings
    let package: ChunkedPackage
    let plan: ChunkPlan
    let install: ChunkInstallPipeline
    var mirrors: [Mirror]
    var queue: FetchQueue
    var connections: [ChunkConnection] = []
    /// Connections taken off, kept alive until the engine has removed their handles.
    private var retired: [ChunkConnection] = []
    var tuner: ConnectionTuner
    /// Frame bytes in place when this run began, and handed to the pipeline since.
    let placedAtStart: Int64
    var submitted: Int64 = 0
    /// How often each chunk failed its hash, by chunk.
    var badChunks: [Int: Int] = [:]
    private var reports: PipelineReports
    private var rate: Int64
    /// The download's receive cap across its connections (`nil`: none).
    private var bucket: RateBucket?
    var failure: TransferFailure?
    var announced = false
    /// When the first request went out, how many went out, and when the last frame arrived (the summary logged
    /// when the fetching ends).
    private var firstRequest: Double?
    private var requests = 0
    var lastFrame: Double?
    private(set) var hasEnded = false

    /// Loads the manifest, the plan and the chunks already in place, and starts the install threads.
    init(
        request: TransferRequest, target: ChunkedInstallTarget, settings: TransferSettings, rangeSupport: RangeSupport,
        memory: FrameMemory, wake: @escaping @Sendable () -> Void, emit: @escaping @Sendable (TransferEvent) -> Void
    ) throws(TransferFailure) {
        self.request = request
        self.rangeSupport = rangeSupport
        self.memory = memory
        self.target = target
        self.settings = settings
        self.emit = emit
        (package, plan) = try Self.load(request, target: target)
        let placed: PlacedChunks
        let loop: PlacementLoop
        do {
            placed = try PlacedChunks(treePath: target.treePath, chunkCount: package.chunks.count)
            loop = try PlacementLoop(package: package, plan: plan, treePath: target.treePath, placed: placed, settings: settings)
        } catch {
            throw TransferFailure(error)
        }
        let done = placed.placed
        placedAtStart = PlacementLoop.bytes(of: done.intersection(plan.fetch), in: package)
        reports = PipelineReports(durable: placedAtStart)
        tuner = ConnectionTuner(initial: settings.connections, maximum: settings.maxConnections)
        install = ChunkInstallPipeline(
            package: package, stage: loop, startOffset: placedAtStart, memory: memory, onDurable: wake)
        queue = FetchQueue(
            chunks: plan.fetch.filter { !done.contains($0) || loop.recheck.contains($0) },
            frames: package.chunks.map { $0.offset..<($0.offset + $0.length) })
        let urls = request.mirrors.isEmpty ? [request.url] : request.mirrors
        mirrors = urls.map { Mirror(url: $0, confirmed: rangeSupport.answersRange($0)) }
        rate = request.maxBytesPerSecond
        bucket = rate > 0 ? RateBucket(rate: rate, now: MonotonicTime.now()) : nil
        fill()
    }

    deinit {
        install.stop()
    }

    /// The manifest (checked against the catalog's archive) and the plan (checked against the request).
    private static func load(_ request: TransferRequest, target: ChunkedInstallTarget) throws(TransferFailure) -> (ChunkedPackage, ChunkPlan) {
        guard let plan = ChunkPlan.load(treePath: target.treePath), plan.fetchBytes == request.expectedLength, !plan.fetch.isEmpty else {
            Store.discardPlan(treePath: target.treePath)
            throw .install(.archiveMismatch(path: target.treePath, reason: "the download's plan beside it is missing or does not match the download; run it again to plan it anew"))
        }
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(contentsOfFile: target.manifestPath) } catch {
            throw .install(.archiveMismatch(path: target.manifestPath, reason: "cannot read the package manifest: \(error); run the download again to fetch it"))
        }
        let package: ChunkedPackage
        do {
            package = try ChunkedPackage(
                manifest: manifest, expectedLength: plan.archiveLength, expectedSHA256: request.expectedSHA256, display: target.manifestPath)
        } catch {
            throw .install(error)
        }
        guard plan.fetch.allSatisfy({ $0 >= 0 && $0 < package.chunks.count }), plan.written.allSatisfy({ $0 >= 0 && $0 < package.files.count }) else {
            Store.discardPlan(treePath: target.treePath)
            throw .install(.archiveMismatch(path: target.treePath, reason: "the download's plan beside it names chunks or files the manifest lacks; run it again"))
        }
        return (package, plan)
    }

    // MARK: Engine interface

    /// The handles of the connections with a request in flight.
    var handles: [EasyHandle] { connections.filter { $0.run != nil }.map(\.easy) }

    /// The engine removed the handles that are no longer in ``handles``.
    func handlesDetached() { retired.removeAll() }

    func completed(_ handle: UnsafeMutableRawPointer, result: CURLcode) -> Bool {
        guard !hasEnded, let connection = connections.first(where: { $0.easy.raw == handle }) else { return hasEnded }
        connection.settleVerdict()
        let finishedWell = (result == CURLE_OK || (connection.stoppedAtEnd && result == CURLE_WRITE_ERROR))
            && connection.runComplete && connection.failure == nil
        if finishedWell, case .accept = connection.verdict {
            DownloadLog.transfer.trace("run done", metadata: [
                "product": "\(request.id)", "mirror": "\(connection.mirror)", "bytes": "\(connection.run?.range.count ?? 0)",
                "seconds": "\(Int((MonotonicTime.now() - connection.requested) * 1000)) ms",
            ])
            connection.endRun()
            mirrors[connection.mirror].failures = 0
        } else if let refused = connection.rangesRefused {
            refuseMultipleRanges(connection.mirror, refused)
            failed(connection, .cannotResume(reason: refused), penalize: false)
        } else {
            let why: TransferFailure
            switch connection.verdict {
            case .reject(let refused): why = refused
            case .drop: why = .cannotResume(reason: "")
            default:
                if let own = connection.failure { why = own } else if result != CURLE_OK, !connection.stoppedAtEnd {
                    why = .network(connection.easy.error(for: result))
                } else {
                    why = .network(CurlError(
                        code: .partialFile, message: "the reply ended before the range asked for was complete",
                        url: mirrors[connection.mirror].url))
                }
            }
            failed(connection, why, penalize: { if case .drop = connection.verdict { return false } else { return true } }())
        }
        fill()
        endIfDone()
        return hasEnded
    }

    func poll() {
        guard !hasEnded else { return }
        resumePaused()
        resumeWaitingForMemory()
        for rejected in install.takeRejected() { chunkRejected(rejected) }
        let now = MonotonicTime.now()
        // A stall moves work to another mirror; with one mirror left, libcurl's low-speed limit decides (a server
        // that paces its replies, nginx `limit_rate`, may pause a connection for seconds while others deliver).
        let liveMirrors = mirrors.indices.filter { !mirrors[$0].dropped }.count
        for connection in connections where connection.run != nil && !connection.paused && connection.waitsForMemory == nil
            && now - connection.lastBytes > settings.stallSeconds && liveMirrors > 1
        {
            failed(connection, .network(CurlError(
                code: .operationTimedOut,
                message: "no bytes for \(Int(settings.stallSeconds)) s while another mirror is up", url: mirrors[connection.mirror].url)),
                penalize: true, stalled: true)
        }
        tuner.observe(bytes: submitted, now: now, busy: !queue.isEmpty)
        if let failed = reports.poll(id: request.id, received: progress, install: install, validator: nil, emit: emit), failure == nil {
            failure = TransferFailure(failed)
        }
        fill()
        endIfDone()
    }

    /// Pause: what is in place is made durable; frames in flight are dropped.
    func stopKeeping() {
        abandonAll()
        hasEnded = true
        let durable = install.sync().durableOffset
        emit(.stopped(id: request.id, offset: durable, deleted: false))
    }

    /// Cancel: the fetch stops and reports its bytes abandoned; the driver deletes the tree, its plan and its
    /// resume log through the store once the stop is reported (an installed version is untouched), so this thread
    /// never deletes a file a new attempt of the same product may already own.
    func stopDeleting() {
        abandonAll()
        hasEnded = true
        install.stop()
        emit(.stopped(id: request.id, offset: 0, deleted: true))
    }

    /// A new cap for the whole download (0 = none), shared by its connections.
    func setRate(_ bytesPerSecond: Int64) {
        rate = max(0, bytesPerSecond)
        let now = MonotonicTime.now()
        if rate == 0 {
            bucket = nil
        } else if bucket == nil {
            bucket = RateBucket(rate: rate, now: now)
        } else {
            bucket!.setRate(rate, now: now)
        }
        resumePaused()
    }

    /// When the engine should call ``poll()`` at the latest: when a connection paused by the cap may go on.
    var wakeAfter: Double? {
        guard let bucket, connections.contains(where: \.paused) else { return nil }
        return max(0.002, bucket.wait(now: MonotonicTime.now()))
    }

    /// Whether a connection may take `count` more bytes now (the rate cap).
    func admit(_ count: Int) -> Bool {
        guard bucket != nil else { return true }
        return bucket!.take(count, now: MonotonicTime.now())
    }

    /// Resumes the connections the cap paused, once the bucket has tokens again (libcurl may deliver at once).
    private func resumePaused() {
        for connection in connections where connection.paused {
            if let bucket, bucket.wait(now: MonotonicTime.now()) > 0 { return }
            connection.paused = false
            _ = curl_easy_pause(connection.easy.raw, 0)  // CURLPAUSE_CONT
        }
    }

    /// Resumes the connections that waited for frame memory and would now be admitted (libcurl delivers at once);
    /// the next frame given back wakes the loop for the others.
    private func resumeWaitingForMemory() {
        for connection in connections {
            guard let frame = connection.waitsForMemory, memory.mayResume(frame.segments, at: frame.offset, for: connection) else { continue }
            connection.waitsForMemory = nil
            connection.resumed()
            _ = curl_easy_pause(connection.easy.raw, 0)  // CURLPAUSE_CONT
        }
    }

    /// The install thread makes its own checkpoints.
    func checkpointSynced(_ result: CheckpointSyncer.Completed) {}

    // MARK: Work

    /// Bytes fetched so far for progress: in place before, handed over since, and the frames being filled.
    private var progress: Int64 {
        min(plan.fetchBytes, placedAtStart + submitted + connections.reduce(0) { $0 + $1.partialBytes })
    }

    /// The cap of each connection, which sizes its receive buffer (the cap itself is the bucket).
    private var connectionRate: Int64 {
        rate > 0 ? max(1, rate / Int64(max(1, connections.count))) : 0
    }

    /// The next run's size: about two runs per connection of what is left, between 1 and 4 MiB (a run is about a
    /// second of a capped connection: the last runs end close together, and a request costs one round trip).
    private var runBytes: Int64 {
        min(4 << 20, max(1 << 20, queue.waitingBytes / Int64(2 * max(1, tuner.target))))
    }

    /// The size a run of several ranges may grow to: what is left shared among the connections about to ask
    /// (those without chunks in flight: idle or probing), at most 16 MiB, so one round of requests covers scattered
    /// chunks.
    private var rangedRunBytes: Int64 {
        let asking = max(1, tuner.target - connections.filter { !($0.run?.chunks.isEmpty ?? true) }.count)
        return min(16 << 20, queue.waitingBytes / Int64(asking))
    }

    /// Gives each idle connection a run, adds connections up to the tuner's target, retires what has no work.
    func fill() {
        guard !hasEnded, failure == nil else { return }
        let now = MonotonicTime.now()
        for connection in connections where connection.run == nil {
            let mirror = mirrors[connection.mirror]
            guard !mirror.dropped, mirror.retryAt <= now, connections.count <= tuner.target, !queue.isEmpty,
                  !(mirror.ignoresRange && connections.contains(where: { $0 !== connection && $0.mirror == connection.mirror }))
            else {
                retire(connection)
                continue
            }
            start(connection)
        }
        while connections.count < tuner.target, !queue.isEmpty, let mirror = pickMirror(now: now) {
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

    /// How many ranges the next request to `mirror` may ask for: ``TransferSettings/maxRangesPerRequest`` where its
    /// server proved it answers several (a `HEAD` probe, ``FetchQueue/Run/probe``, asks an unknown one first), else one.
    private func maxRanges(for mirror: Int) -> Int {
        rangeSupport.supportsMultipleRanges(mirrors[mirror].url) == true ? max(1, settings.maxRangesPerRequest) : 1
    }

    /// Whether a connection to `mirror` should probe its server before its first run: the server's answer to
    /// several ranges is unknown and the next run would take several ranges. Every connection opened meanwhile
    /// probes too (a `HEAD` costs no body), so they all start at once: handshake, probe, then the runs.
    private func shouldProbe(_ mirror: Int) -> Bool {
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

    /// The mirror for a new connection: of those up, the one with the fewest connections (then the one that
    /// delivered most); a mirror that has not yet answered a range request correctly gets one (unless its connections
    /// start with a `HEAD` probe, which risks no body).
    private func pickMirror(now: Double) -> Int? {
        let counts = Dictionary(grouping: connections, by: \.mirror).mapValues(\.count)
        return mirrors.indices
            .filter { !mirrors[$0].dropped && mirrors[$0].retryAt <= now && (mirrors[$0].confirmed || counts[$0, default: 0] == 0 || shouldProbe($0)) }
            .min { (counts[$0, default: 0], -mirrors[$0].delivered) < (counts[$1, default: 0], -mirrors[$1].delivered) }
    }

    private func start(_ connection: ChunkConnection) {
        // Unknown server, scattered chunks: ask with a HEAD first (a 200 to a GET for several ranges would send the
        // whole archive until the connection closes).
        if shouldProbe(connection.mirror) { return begin(connection, .probe) }
        let maxRanges = maxRanges(for: connection.mirror)
        guard let run = queue.nextRun(
            targetBytes: runBytes, gapBytes: settings.rangeGapBytes, maxRanges: maxRanges, rangedTargetBytes: rangedRunBytes)
        else {
            return retire(connection)
        }
        begin(connection, run)
    }

    /// Sends `run`'s request on `connection`.
    private func begin(_ connection: ChunkConnection, _ run: FetchQueue.Run) {
        let mirror = mirrors[connection.mirror]
        DownloadLog.transfer.trace(
            run.chunks.isEmpty ? "probe" : "run", metadata: [
                "product": "\(request.id)", "mirror": "\(connection.mirror)", "connections": "\(connections.count)/\(tuner.target)",
                "chunks": "\(run.chunks.first.map { "\($0)…\(run.chunks.last!)" } ?? "none")", "bytes": "\(run.range.count)",
                "ranges": "\(run.ranges.count)",
                "waiting": "\(queue.waitingBytes)",
            ])
        firstRequest = firstRequest ?? MonotonicTime.now()
        requests += 1
        do {
            try connection.start(run, url: mirror.url, settings: settings, rate: connectionRate, validator: mirror.validator)
        } catch {
            queue.requeue(run.chunks)
            failure = .network(error)
        }
    }

    func retire(_ connection: ChunkConnection) {
        queue.requeue(connection.abandon())
        connections.removeAll { $0 === connection }
        retired.append(connection)
    }

    func abandonAll() {
        for connection in connections { retire(connection) }
    }

    /// Ends the download when it failed, when every mirror is down, or when every chunk is in: the pipeline drains
    /// (a frame it rejects goes back to the queue), the tree is checked, and `verified` is reported.
    private func endIfDone() {
        guard !hasEnded else { return }
        if failure == nil, !mirrors.contains(where: { !$0.dropped }) {
            failure = mirrors.compactMap(\.lastFailure).last ?? .install(.archiveMismatch(path: request.url, reason: "no mirror left to fetch from"))
        }
        if let failure {
            abandonAll()
            hasEnded = true
            return report(failure)
        }
        guard queue.isEmpty, !connections.contains(where: { $0.run != nil }) else { return }
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
            "product": "\(request.id)", "requests": "\(requests)", "bytes": "\(submitted)",
            "network": "\(Int(((lastFrame ?? first) - first) * 1000)) ms from the first request to the last frame",
            "installed": "\(Int((MonotonicTime.now() - first) * 1000)) ms from the first request to the tree checked and durable",
        ])
        emit(.verified(id: request.id, archivePath: target.treePath))
    }

    /// Reports the failure with the offset to resume from (what is in place, durable). A refusal (the archive
    /// disagrees with its signed manifest) keeps nothing: the driver deletes the tree, the plan and the manifest
    /// through the store, and the next attempt fetches and checks the manifest again.
    private func report(_ failure: TransferFailure) {
        if case .install = failure {
            install.stop()
            return emit(.failed(id: request.id, failure: failure, offset: 0))
        }
        let durable = install.sync().durableOffset
        emit(.failed(id: request.id, failure: failure, offset: durable))
    }
}
