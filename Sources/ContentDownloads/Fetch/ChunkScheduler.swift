internal import CurlTransport
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
/// - **Connections**: ``ConnectionTuner`` (start at ``TransferSettings/connections``, grow while it pays), spread
///   over the mirrors that are up; all on the engine's one multi handle. Back-off is each mirror's own: a 429/503
///   halves that mirror's connections and keeps it idle for its `Retry-After` (``Mirror/slowDown(retryAfter:holding:now:)``);
///   the others keep theirs and take its share of the work.
/// - **Faults**: a mirror that answers 4xx/5xx, stalls ``TransferSettings/stallSeconds`` while others deliver, or
///   serves a second chunk that fails its signed hash is dropped for this download and the chunks it held go back
///   to the queue; only the frames that were in flight are fetched again. A chunk that fails its hash is fetched
///   again alone, from another mirror; the frames of its run that verified are kept. When every mirror is dropped the download fails
///   with the last reason and the manager's retry policy takes over.
/// - **No validators**: requests carry no `If-Range` and replies' ETags are not compared. Every chunk is checked
///   against its signed SHA-256, which an ETag cannot add to; the nodes of one origin pool (a balancer over servers
///   filled at different times) give different ETags for the same bytes, and `If-Range` would turn their range
///   replies into whole archives.
/// - **Resume**: ``PlacedChunks`` beside the tree says which chunks are in place; a restart fetches the rest. Offsets
///   the engine reports (progress, checkpoints, the journal) count the plan's fetched bytes, `0…plan.fetchBytes`.
///
/// - Important: Not thread-safe: created, used and destroyed on the transfer thread.
final class ChunkScheduler: EngineTransfer {
    /// One mirror as this download sees it.
    typealias Mirror = ChunkMirror

    /// What the servers showed about multi-range requests (the engine's, shared by its downloads).
    let rangeSupport: RangeSupport
    /// The mirrors dropped for refusing by this engine's downloads, left alone for a while (the engine's).
    let refusing: RefusingMirrors
    /// The memory frames are received into (the engine's, shared by its downloads).
    let memory: FrameMemory

    let request: TransferRequest
    let emit: @Sendable (TransferEvent) -> Void
    let target: ChunkedInstallTarget
    let settings: TransferSettings
    let package: ChunkedPackage
    let plan: ChunkPlan
    let install: ChunkInstallPipeline
    /// The mirrors and their rules: which one a connection goes to, what a failure does to one.
    var mirrors: MirrorSet
    var queue: FetchQueue
    var connections: [ChunkConnection] = []
    /// Connections taken off, kept alive until the engine has removed their handles.
    var retired: [ChunkConnection] = []
    var tuner: ConnectionTuner
    /// Frame bytes in place when this run began, and handed to the pipeline since.
    let placedAtStart: Int64
    var submitted: Int64 = 0
    /// Archive bytes between needed chunks that the runs asked for so far (read and dropped): at most
    /// ``GapBudget/planShare`` of the plan.
    var gapsAsked: Int64 = 0
    /// Body bytes the connections took off the network in this run (the rate is measured on them).
    var fetched: Int64 = 0
    /// The chunks that failed their hash and where each may be fetched again.
    var retries = ChunkRetries()
    var reports: PipelineReports
    var rate: Int64
    /// The download's receive cap across its connections (`nil`: none).
    var bucket: RateBucket?
    var failure: TransferFailure?
    var announced = false
    /// When the first request went out, how many went out, and when the last frame arrived (the summary logged
    /// when the fetching ends).
    var firstRequest: Double?
    var requests = 0
    var lastFrame: Double?
    var hasEnded = false
    /// The frames split between two connections (``TailSplit``), by chunk: the parts in so far, by their first byte.
    var splits: [Int: [(from: Int64, frame: SegmentedFrame)]] = [:]

    /// Loads the manifest, the plan and the chunks already in place, and starts the install threads.
    init(
        request: TransferRequest, target: ChunkedInstallTarget, settings: TransferSettings, rangeSupport: RangeSupport,
        refusing: RefusingMirrors, memory: FrameMemory, wake: @escaping @Sendable () -> Void, emit: @escaping @Sendable (TransferEvent) -> Void
    ) throws(TransferFailure) {
        self.request = request
        self.rangeSupport = rangeSupport
        self.refusing = refusing
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
        tuner = ConnectionTuner(initial: settings.initialConnections, maximum: settings.maxConnections)
        install = ChunkInstallPipeline(
            package: package, stage: loop, startOffset: placedAtStart, memory: memory, keeping: request.planned?.keeping,
            wake: wake)
        queue = FetchQueue(
            chunks: plan.fetch.filter { !done.contains($0) || loop.recheck.contains($0) },
            frames: package.chunks.map { $0.offset..<($0.offset + $0.length) })
        let urls = request.mirrors.isEmpty ? [request.url] : request.mirrors
        mirrors = MirrorSet(urls: urls, answersRange: rangeSupport.answersRange)
        rate = request.maxBytesPerSecond
        bucket = rate > 0 ? RateBucket(rate: rate, now: MonotonicTime.now()) : nil
        leaveRefusingAlone()
        fill()
    }

    deinit {
        install.stop()
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
            if let timings = connection.replyTimings() {
                mirrors[connection.mirror].gaps.observe(roundTrip: timings.roundTrip, bytes: timings.bytes, seconds: timings.seconds)
            }
            connection.endRun()
            mirrors.delivered(at: connection.mirror)
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
        let liveMirrors = mirrors.upCount
        for connection in connections where connection.run != nil && !connection.paused && connection.waitsForMemory == nil
            && now - connection.lastBytes > settings.stallSeconds && liveMirrors > 1
        {
            failed(connection, .network(CurlError(
                code: .operationTimedOut,
                message: "no bytes for \(Int(settings.stallSeconds)) s while another mirror is up", url: mirrors[connection.mirror].url)),
                penalize: true, stalled: true)
        }
        // The bytes off the network as they arrive, not the frames handed on: a frame (a chunk, 1 MiB on average and up
        // to 4) takes two seconds at 512 KiB/s per connection, so whole frames in a one-second window measured 0.8 MB/s
        // on 8 connections that were fetching 4 MB/s, and a step that a frame's arrival happened to favour the window
        // before looked like it added nothing: the count fell back to 4 for the whole download (121 s instead of 34 s
        // in `tools/bench-eta`).
        let (target, growing) = (tuner.target, tuner.growing)
        tuner.observe(bytes: fetched, now: now, busy: hasWork)
        if tuner.target != target || tuner.growing != growing {
            DownloadLog.transfer.debug("connection count", metadata: [
                "product": "\(request.id)", "from": "\(target)", "to": "\(tuner.target)", "settled": "\(!tuner.growing)",
                "rate": "\(Int64(tuner.lastRate)) B/s",
            ])
        }
        let slowest = connections.compactMap { $0.drainSeconds(now: now) }.max() ?? 0
        let drain = hasWork ? 0 : TailSplit.drainSeconds(slowest: slowest)
        let outlook = tuner.outlook(
            connectionRates: connections.compactMap { $0.deliveryRate(now: now) }, busy: hasWork, cap: rate)
        let failed = reports.poll(
            id: request.id, received: progress, fetched: placedAtStart + fetched, drain: drain, outlook: outlook, install: install,
            validator: nil, emit: emit)
        if let failed, failure == nil { failure = TransferFailure(failed) }
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
}
