internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Foundation
internal import Synchronization
internal import Glibc

/// Runs every download on one libcurl multi handle owned by one thread, `iap-curl`.
///
/// Other code posts commands (``submit(_:)``, ``pause(_:)``, ``cancel(_:)``, ``setRate(_:bytesPerSecond:)``)
/// to a mutex-guarded inbox and wakes the thread with `curl_multi_wakeup`; results come back, in
/// order, through ``events``. Nothing outside the thread touches a curl handle.
///
/// Lifecycle: ``start()`` once, ``shutdown()`` once (it pauses and checkpoints every transfer).
package final class TransferEngine: Sendable {
    enum Command: Sendable {
        case submit(TransferRequest)
        case stop(id: String, delete: Bool)
        case setRate(id: String, bytesPerSecond: Int64)
        case shutdown(CheckedContinuation<Void, Never>)
    }

    /// Every event of every transfer, in the order the thread produced them.
    package let events: AsyncStream<TransferEvent>
    private let continuation: AsyncStream<TransferEvent>.Continuation
    private let inbox = Mutex<[Command]>([])
    private let multi: MultiHandle
    private let settings: TransferSettings
    private let started = Mutex(false)

    /// Creates an engine (no thread yet).
    package init(settings: TransferSettings = TransferSettings()) throws(CurlError) {
        self.settings = settings
        multi = try MultiHandle()
        (events, continuation) = AsyncStream.makeStream(of: TransferEvent.self, bufferingPolicy: .unbounded)
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
    /// Takes a transfer off the multi handle keeping the partial file; reports `.stopped`.
    package func pause(_ id: String) { post(.stop(id: id, delete: false)) }
    /// Stops a transfer and deletes its partial file; reports `.stopped(deleted: true)`.
    package func cancel(_ id: String) { post(.stop(id: id, delete: true)) }
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
private final class EngineLoop {
    private let multi: MultiHandle
    private let settings: TransferSettings
    private let emit: @Sendable (TransferEvent) -> Void
    private var byID: [String: any EngineTransfer] = [:]
    private var byHandle: [UnsafeMutableRawPointer: any EngineTransfer] = [:]
    private let syncer: CheckpointSyncer

    init(multi: MultiHandle, settings: TransferSettings, emit: @escaping @Sendable (TransferEvent) -> Void) {
        self.multi = multi
        self.settings = settings
        self.emit = emit
        syncer = CheckpointSyncer(delayForTesting: settings.checkpointSyncDelayForTesting, onCompleted: { [multi] in multi.wakeup() })
    }

    func run(take: () -> [TransferEngine.Command]) {
        while true {
            for command in take() {
                switch command {
                case .submit(let request): add(request)
                case .stop(let id, let delete): stop(id, delete: delete)
                case .setRate(let id, let rate): byID[id]?.setRate(rate)
                case .shutdown(let done):
                    for id in Array(byID.keys) { stop(id, delete: false) }
                    syncer.stop()
                    done.resume()
                    return
                }
            }
            _ = multi.perform()
            for (handle, result) in multi.completed() {
                guard let transfer = byHandle[handle] else { continue }
                detach(transfer)
                if transfer.continues(after: result) {
                    attach(transfer)
                } else {
                    transfer.finish(result: result)
                }
            }
            deliverSyncs()
            for transfer in byID.values { transfer.poll() }
            multi.poll(timeoutMilliseconds: 1000)
        }
    }

    private func add(_ request: TransferRequest) {
        if let existing = byID[request.id] {
            // A resubmit while running replaces nothing: the running transfer already serves it.
            _ = existing
            request.feed?.abandon()
            return
        }
        do {
            let transfer: any EngineTransfer
            if let target = request.chunked, target.isUpdate {
                transfer = try DeltaTransfer(
                    request: request, target: target, settings: settings, wake: { [multi] in multi.wakeup() }, emit: emit)
            } else if let target = request.chunked {
                transfer = try ChunkTransfer(
                    request: request, target: target, settings: settings, wake: { [multi] in multi.wakeup() }, emit: emit)
            } else {
                transfer = try Transfer(
                    request: request, settings: settings, syncer: syncer,
                    deliverSyncs: { [unowned self] in self.deliverSyncs() }, emit: emit)
            }
            guard multi.add(transfer.easy) else {
                emit(.failed(id: request.id, failure: .io(operation: "curl_multi_add_handle", path: request.url, errno: 0),
                             offset: request.offset))
                return
            }
            byID[request.id] = transfer
            byHandle[transfer.easy.raw] = transfer
        } catch {
            request.feed?.abandon()
            emit(.failed(id: request.id, failure: error, offset: 0))
        }
    }

    /// Hands finished background fsyncs to their transfers (results of detached ones are dropped).
    private func deliverSyncs() {
        for synced in syncer.takeCompleted() { byID[synced.id]?.checkpointSynced(synced) }
    }

    private func stop(_ id: String, delete: Bool) {
        guard let transfer = byID[id] else {
            emit(.stopped(id: id, offset: -1, deleted: false))
            return
        }
        detach(transfer)
        if delete { transfer.stopDeleting() } else { transfer.stopKeeping() }
    }

    /// Puts a transfer that goes on with a new request (an update's next range) back on the multi handle.
    private func attach(_ transfer: any EngineTransfer) {
        guard multi.add(transfer.easy) else { return transfer.finish(result: CURLE_FAILED_INIT) }
        byID[transfer.request.id] = transfer
        byHandle[transfer.easy.raw] = transfer
    }

    private func detach(_ transfer: any EngineTransfer) {
        multi.remove(transfer.easy)
        byID[transfer.request.id] = nil
        byHandle[transfer.easy.raw] = nil
    }
}

/// What the engine loop needs of a running transfer, whole-archive (``Transfer``) or chunk-indexed
/// (``ChunkTransfer``). Both live on the transfer thread only.
protocol EngineTransfer: AnyObject {
    /// What is being fetched.
    var request: TransferRequest { get }
    /// Its libcurl handle, on the multi handle while it runs.
    var easy: EasyHandle { get }
    /// libcurl finished it with `result`.
    func finish(result: CURLcode)
    /// Pause: keep what arrived, durable.
    func stopKeeping()
    /// Cancel: delete what arrived.
    func stopDeleting()
    /// A new receive-rate cap (0 = none).
    func setRate(_ bytesPerSecond: Int64)
    /// A background fsync of this transfer finished.
    func checkpointSynced(_ result: CheckpointSyncer.Completed)
    /// Once per loop turn: report what happened off the thread (durable offsets).
    func poll()
    /// libcurl finished the request in flight with `result`: true when the transfer goes on with another
    /// request on the same handle (an update's next range), false when ``finish(result:)`` should end it.
    func continues(after result: CURLcode) -> Bool
}

extension EngineTransfer {
    func continues(after result: CURLcode) -> Bool { false }
}

extension Transfer: EngineTransfer {
    func poll() {}
}
