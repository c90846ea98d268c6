package import CurlTransport
internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Foundation
internal import Synchronization
internal import Glibc

/// Runs every download on one libcurl multi handle owned by one thread, `iap-curl`.
///
/// Other code posts commands (``submit(_:)``, ``pause(_:attempt:)``, ``cancel(_:attempt:)``, ``setRate(_:bytesPerSecond:)``)
/// to a mutex-guarded inbox and wakes the thread with `curl_multi_wakeup`; results come back, in
/// order, through ``events``, each tagged with the attempt it belongs to (``TransferRequest/attemptID``).
/// Nothing outside the thread touches a curl handle.
///
/// Lifecycle: ``start()`` once, ``shutdown()`` once (it pauses and checkpoints every transfer).
package final class TransferEngine: Sendable {
    enum Command: Sendable {
        case submit(TransferRequest)
        case stop(id: String, attempt: UInt64, delete: Bool)
        case setRate(id: String, bytesPerSecond: Int64)
        case shutdown(CheckedContinuation<Void, Never>)
    }

    /// Every event of every transfer, in the order the thread produced them, with the attempt each belongs to.
    package let events: AsyncStream<AttemptEvent>
    private let continuation: AsyncStream<AttemptEvent>.Continuation
    private let inbox = Mutex<[Command]>([])
    private let multi: MultiHandle
    private let settings: TransferSettings
    private let started = Mutex(false)

    /// Creates an engine (no thread yet).
    package init(settings: TransferSettings = TransferSettings()) throws(CurlError) {
        self.settings = settings
        // A chunk plan opens up to `maxConnections` to one mirror; libcurl's default of 6 per host queued the rest
        // behind the first six (measured: eight connections under a 4 MiB/s-per-connection cap got 25 MiB/s, runs
        // of the queued two took twice as long).
        multi = try MultiHandle(maxConnectionsPerHost: max(6, settings.maxConnections))
        (events, continuation) = AsyncStream.makeStream(of: AttemptEvent.self, bufferingPolicy: .unbounded)
    }

    /// Starts the transfer thread.
    package func start() {
        let first = started.withLock { value in
            defer { value = true }
            return !value
        }
        guard first else { return }
        signal(SIGPIPE, SIG_IGN)  // CURLOPT_NOSIGNAL=1 leaves SIGPIPE to us.
        let multi = self.multi, settings = self.settings, continuation = self.continuation
        NamedThread.start("iap-curl") { [self] in
            let loop = EngineLoop(multi: multi, settings: settings, emit: { continuation.yield($0) })
            loop.run(take: { self.takeCommands() })
            continuation.finish()
        }
    }

    /// Queues a download (or resumes one from `request.offset`).
    package func submit(_ request: TransferRequest) { post(.submit(request)) }
    /// Takes attempt `attempt` of transfer `id` off the multi handle keeping the partial file; reports `.stopped`
    /// for that attempt (at once, with offset -1, when it has ended already or another attempt runs: a stop never
    /// reaches an attempt it was not sent to).
    package func pause(_ id: String, attempt: UInt64) { post(.stop(id: id, attempt: attempt, delete: false)) }
    /// Stops attempt `attempt` of transfer `id` and deletes its partial file; reports `.stopped(deleted: true)`
    /// for that attempt (as ``pause(_:attempt:)`` does when it is not running).
    package func cancel(_ id: String, attempt: UInt64) { post(.stop(id: id, attempt: attempt, delete: true)) }
    /// Changes a running transfer's receive-rate cap (0 = none).
    package func setRate(_ id: String, bytesPerSecond: Int64) { post(.setRate(id: id, bytesPerSecond: bytesPerSecond)) }

    /// Pauses and checkpoints every transfer, then ends the thread and the event stream.
    package func shutdown() async {
        guard started.withLock({ $0 }) else {
            continuation.finish()
            return
        }
        await withCheckedContinuation { done in post(.shutdown(done)) }
    }

    private func post(_ command: Command) {
        inbox.withLock { $0.append(command) }
        multi.wakeup()
    }

    private func takeCommands() -> [Command] {
        inbox.withLock { commands in
            defer { commands.removeAll() }
            return commands
        }
    }
}

/// The loop on the transfer thread. Thread-confined: created and used only there.
///
/// A transfer may have several handles on the multi handle (a chunk plan's connections): after every call into
/// a transfer the loop puts on the handles it lists (``EngineTransfer/handles``) and takes off the ones it no
/// longer lists, so only this loop ever adds or removes a handle.
private final class EngineLoop {
    private let multi: MultiHandle
    private let settings: TransferSettings
    private let emit: @Sendable (AttemptEvent) -> Void
    private var byID: [String: any EngineTransfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: any EngineTransfer] = [:]
    /// The handles of each transfer now on the multi handle.
    private var attached: [String: Set<UnsafeMutableRawPointer>] = [:]
    private let syncer: CheckpointSyncer
    /// What servers showed about multi-range requests, for every chunk plan this engine runs.
    private let rangeSupport = RangeSupport()
    /// The mirrors chunk plans dropped for refusing, left alone by the next ones for a while.
    private let refusingMirrors: RefusingMirrors
    /// The memory every chunk plan this engine runs receives its frames into.
    private let frameMemory: FrameMemory

    init(multi: MultiHandle, settings: TransferSettings, emit: @escaping @Sendable (AttemptEvent) -> Void) {
        self.multi = multi
        self.settings = settings
        self.emit = emit
        refusingMirrors = RefusingMirrors(restSeconds: settings.refusingMirrorRestSeconds)
        syncer = CheckpointSyncer(delayForTesting: settings.checkpointSyncDelayForTesting, onCompleted: { [multi] in multi.wakeup() })
        frameMemory = FrameMemory(
            budgetBytes: settings.frameMemoryBytes, queuedBytes: settings.queuedFrameMemoryBytes, wake: { [multi] in multi.wakeup() })
    }

    func run(take: () -> [TransferEngine.Command]) {
        while true {
            for command in take() {
                switch command {
                case .submit(let request): add(request)
                case .stop(let id, let attempt, let delete): stop(id, attempt: attempt, delete: delete)
                case .setRate(let id, let rate):
                    if let transfer = byID[id] {
                        transfer.setRate(rate)
                        reconcile(transfer)
                    }
                case .shutdown(let done):
                    for (id, transfer) in Array(byID) { stop(id, attempt: transfer.request.attemptID, delete: false) }
                    syncer.stop()
                    done.resume()
                    return
                }
            }
            _ = multi.perform()
            for (handle, result) in multi.completed() {
                guard let transfer = byHandle[handle] else { continue }
                multi.remove(raw: handle)
                byHandle[handle] = nil
                attached[transfer.request.id]?.remove(handle)
                if transfer.completed(handle, result: result) { end(transfer) } else { reconcile(transfer) }
            }
            deliverSyncs()
            var wake = 1.0
            for transfer in Array(byID.values) {
                transfer.poll()
                if transfer.hasEnded { end(transfer) } else { reconcile(transfer) }
                if let after = transfer.wakeAfter { wake = min(wake, after) }
            }
            multi.poll(timeoutMilliseconds: Int32(max(1, wake * 1000)))
        }
    }

    private func add(_ request: TransferRequest) {
        if byID[request.id] != nil {
            // A resubmit while running replaces nothing: the running transfer already serves it.
            request.feed?.abandon()
            return
        }
        let attempt = request.attemptID, emit = self.emit
        let tagged: @Sendable (TransferEvent) -> Void = { emit(AttemptEvent(attemptID: attempt, event: $0)) }
        do {
            let transfer: any EngineTransfer
            if let target = request.chunked {
                transfer = try ChunkScheduler(
                    request: request, target: target, settings: settings, rangeSupport: rangeSupport,
                    refusing: refusingMirrors, memory: frameMemory, wake: { [multi] in multi.wakeup() }, emit: tagged)
            } else {
                transfer = try Transfer(
                    request: request, settings: settings, syncer: syncer,
                    deliverSyncs: { [unowned self] in self.deliverSyncs() }, emit: tagged)
            }
            byID[request.id] = transfer
            attached[request.id] = []
            reconcile(transfer)
            if transfer.hasEnded { end(transfer) }
        } catch {
            request.feed?.abandon()
            tagged(.failed(id: request.id, failure: error, offset: 0))
        }
    }

    /// Puts on the multi handle what `transfer` lists and takes off what it no longer lists.
    private func reconcile(_ transfer: any EngineTransfer) {
        let id = transfer.request.id
        let wanted = transfer.handles
        let wantedRaw = Set(wanted.map(\.raw))
        var now = attached[id] ?? []
        for handle in now where !wantedRaw.contains(handle) {
            multi.remove(raw: handle)
            byHandle[handle] = nil
            now.remove(handle)
        }
        for easy in wanted where !now.contains(easy.raw) {
            guard multi.add(easy) else {
                emit(AttemptEvent(
                    attemptID: transfer.request.attemptID,
                    event: .failed(id: id, failure: .io(operation: "curl_multi_add_handle", path: transfer.request.url, errno: 0), offset: transfer.request.offset)))
                continue
            }
            byHandle[easy.raw] = transfer
            now.insert(easy.raw)
        }
        attached[id] = now
        transfer.handlesDetached()
    }

    /// Takes every handle of `transfer` off and forgets it.
    private func end(_ transfer: any EngineTransfer) {
        let id = transfer.request.id
        for handle in attached[id] ?? [] {
            multi.remove(raw: handle)
            byHandle[handle] = nil
        }
        attached[id] = nil
        if byID[id] === transfer { byID[id] = nil }
        transfer.handlesDetached()
        if !byID.values.contains(where: { $0 is ChunkScheduler }) { frameMemory.releaseFree() }
    }

    /// Hands finished background fsyncs to their transfers (results of detached ones are dropped).
    private func deliverSyncs() {
        for synced in syncer.takeCompleted() { byID[synced.id]?.checkpointSynced(synced) }
    }

    /// Stops `attempt` of `id`. An attempt that has ended (its own end is reported already) or been followed by
    /// another gets a `.stopped` of its own, so a stop is always answered and never stops an attempt it was not
    /// sent to.
    private func stop(_ id: String, attempt: UInt64, delete: Bool) {
        guard let transfer = byID[id], transfer.request.attemptID == attempt else {
            emit(AttemptEvent(attemptID: attempt, event: .stopped(id: id, offset: -1, deleted: false)))
            return
        }
        end(transfer)
        if delete { transfer.stopDeleting() } else { transfer.stopKeeping() }
    }
}

/// What the engine loop needs of a running transfer: a legacy whole-archive ``Transfer`` (one handle) or a
/// chunk plan's ``ChunkScheduler`` (a handle per connection). All live on the transfer thread only.
protocol EngineTransfer: AnyObject {
    /// What is being fetched.
    var request: TransferRequest { get }
    /// The handles that should be on the multi handle now (requests in flight).
    var handles: [EasyHandle] { get }
    /// Whether it has ended (reported `verified`, `failed` or `stopped`).
    var hasEnded: Bool { get }
    /// libcurl finished the request of `handle` (already off the multi handle) with `result`; true when the
    /// transfer has ended.
    func completed(_ handle: UnsafeMutableRawPointer, result: CURLcode) -> Bool
    /// The loop took off the handles no longer in ``handles``: they may be freed now.
    func handlesDetached()
    /// Pause: keep what arrived, durable.
    func stopKeeping()
    /// Cancel: delete what arrived.
    func stopDeleting()
    /// A new receive-rate cap (0 = none).
    func setRate(_ bytesPerSecond: Int64)
    /// A background fsync of this transfer finished.
    func checkpointSynced(_ result: CheckpointSyncer.Completed)
    /// Once per loop turn: report what happened off the thread (durable offsets), notice stalls, start requests.
    func poll()
    /// Seconds after which it needs ``poll()`` even if no socket is ready (`nil`: the loop's usual second).
    var wakeAfter: Double? { get }
}

/// A transfer with one handle that may go on with another request on it (``continues(after:)``).
protocol SingleHandleTransfer: EngineTransfer {
    /// Its libcurl handle, on the multi handle while it runs.
    var easy: EasyHandle { get }
    /// Whether it has ended.
    var ended: Bool { get set }
    /// libcurl finished it with `result`.
    func finish(result: CURLcode)
    /// True when the transfer goes on with another request on the same handle, false when ``finish(result:)`` should end it.
    func continues(after result: CURLcode) -> Bool
}

extension SingleHandleTransfer {
    var handles: [EasyHandle] { ended ? [] : [easy] }
    var hasEnded: Bool { ended }
    var wakeAfter: Double? { nil }
    func handlesDetached() {}
    func continues(after result: CURLcode) -> Bool { false }
    func completed(_ handle: UnsafeMutableRawPointer, result: CURLcode) -> Bool {
        if continues(after: result) { return false }
        ended = true
        finish(result: result)
        return true
    }
}

extension Transfer: SingleHandleTransfer {
    func poll() {}
}
