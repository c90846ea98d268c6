internal import CurlTransport
internal import CCurl
internal import ContentPackaging
internal import Crypto
internal import Glibc
internal import Foundation

/// One download on the transfer thread: its easy handle, partial file, running SHA-256 and the
/// response-head decisions (accept 206, restart on 200, complete on 416, refuse anything else).
///
/// - Important: Not thread-safe. Created, used and destroyed on the transfer thread only; libcurl
///   calls its callbacks on that thread from `curl_multi_perform`.
final class Transfer {
    /// What the first body byte (or the end of an empty body) decided.
    enum Decision {
        /// Write the body.
        case accept
        /// 416 with `*/expected`: the file on disk is already whole; discard the body.
        case alreadyComplete
        /// Refuse the body; the failure is reported when libcurl finishes.
        case reject(TransferFailure)
    }

    let request: TransferRequest
    let easy: EasyHandle
    let settings: TransferSettings
    let emit: @Sendable (TransferEvent) -> Void
    let fd: Int32
    let isFileURL: Bool
    /// Bytes in the file (durable only up to the last checkpoint), excluding what ``writer`` buffers.
    var fileOffset: Int64 { writer.fileOffset }
    /// The offset the request asked the server to start from.
    var requestedOffset: Int64
    let writer: PartialFileWriter
    var hasher = SHA256()
    var head = ResponseHead()
    /// The engine ended it (finished, failed or stopped).
    var ended = false
    private(set) var decision: Decision?
    /// Set when a callback aborts the transfer; wins over libcurl's generic write error.
    var failure: TransferFailure?
    var validator: Validator?
    /// The last offset reported durable (fsynced).
    var lastCheckpointOffset: Int64
    /// The offset and time of the last checkpoint started (durable or still being fsynced).
    var startedCheckpointOffset: Int64
    var lastCheckpointTime: Double
    /// Periodic checkpoints are fsynced here, off this thread; `nil` fsyncs inline.
    let syncer: CheckpointSyncer?
    /// Hands every finished background fsync to its transfer (the engine's); called from the write
    /// callback while one of ours is pending, because one `curl_multi_perform` can deliver many
    /// megabytes and the durable offset must not wait for it to return.
    let deliverSyncs: (() -> Void)?
    /// The periodic checkpoint being fsynced by ``syncer`` (at most one).
    var pendingSync: (token: UInt64, offset: Int64)?
    /// The token of our job still queued or running on the syncer, superseded or not: at most one,
    /// so a stalled device never piles up jobs.
    var outstandingSync: UInt64?
    var lastProgressTime: Double = 0

    /// Bytes received so far (on disk or buffered).
    var received: Int64 { writer.received }

    /// Opens the partial file, truncates it to the durable offset (or keeps its length, see
    /// ``TransferRequest/keepsWrittenTail``), re-hashes that prefix once and
    /// configures the easy handle. Throws a ``TransferFailure`` for local I/O trouble.
    init(
        request: TransferRequest, settings: TransferSettings, syncer: CheckpointSyncer? = nil,
        deliverSyncs: (() -> Void)? = nil, emit: @escaping @Sendable (TransferEvent) -> Void
    ) throws(TransferFailure) {
        self.request = request
        self.settings = settings
        self.syncer = syncer
        self.deliverSyncs = deliverSyncs
        self.emit = emit
        self.isFileURL = request.url.lowercased().hasPrefix("file:")
        // A crash between the verifying rename and the journal update leaves only the archive:
        // take it back as the partial file; the range request (416) and the re-hash re-verify it.
        if access(request.partialPath, F_OK) != 0, access(request.archivePath, F_OK) == 0 {
            rename(request.archivePath, request.partialPath)
        }
        let fd = open(request.partialPath, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard fd >= 0 else { throw .io(operation: "open", path: request.partialPath, errno: errno) }
        self.fd = fd
        var offset = max(0, min(request.offset, request.expectedLength))
        var info = stat()
        if fstat(fd, &info) == 0 {
            let length = Int64(info.st_size)
            offset = request.keepsWrittenTail ? min(length, request.expectedLength) : min(offset, length)
        }
        guard ftruncate(fd, off_t(offset)) == 0 else {
            let code = errno
            close(fd)
            throw .io(operation: "truncate", path: request.partialPath, errno: code)
        }
        writer = PartialFileWriter(fd: fd, path: request.partialPath, offset: offset, capacity: settings.writeBufferSize, direct: settings.directWrites)
        requestedOffset = offset
        lastCheckpointOffset = offset
        startedCheckpointOffset = offset
        lastCheckpointTime = MonotonicTime.now()
        validator = request.validator
        do {
            easy = try EasyHandle()
        } catch {
            close(fd)
            throw .network(error)
        }
        // Fully initialised from here: a throw runs deinit, which closes the fd.
        try rehashPrefix()
        try configure()
        request.feed?.published(offset)  // a follower may start on the kept prefix at once
    }

    deinit {
        request.feed?.abandon()
        if fd >= 0 { close(fd) }
    }

    // MARK: Setup

    func rehashPrefix() throws(TransferFailure) {
        guard fileOffset > 0 else { return }
        let chunk = 1 << 20
        var scratch = [UInt8](repeating: 0, count: chunk)
        var position: Int64 = 0
        while position < fileOffset {
            let want = Int(min(Int64(chunk), fileOffset - position))
            let got = scratch.withUnsafeMutableBytes { pread(fd, $0.baseAddress, want, off_t(position)) }
            guard got > 0 else { throw .io(operation: "read", path: request.partialPath, errno: errno) }
            scratch.withUnsafeBytes { hasher.update(bufferPointer: UnsafeRawBufferPointer(rebasing: $0[0..<got])) }
            position += Int64(got)
        }
    }

    func configure() throws(TransferFailure) {
        do {
            try easy.configureArchiveRequest(
                url: request.url, settings: settings, maxBytesPerSecond: request.maxBytesPerSecond, offset: fileOffset,
                ifRange: validator?.ifRange, owner: Unmanaged.passUnretained(self).toOpaque(),
                body: Transfer.writeCallback, header: Transfer.headerCallback)
        } catch {
            throw .network(error)
        }
    }

    /// Changes the receive-rate cap of a running transfer (0 = none).
    func setRate(_ bytesPerSecond: Int64) {
        try? easy.set(large: CURLOPT_MAX_RECV_SPEED_LARGE, max(0, bytesPerSecond))
    }

    // MARK: Callbacks (transfer thread, inside curl_multi_perform)

    static let writeCallback: curl_write_callback = { data, size, count, user in
        guard let user else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
        return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let headerCallback: curl_write_callback = { data, size, count, user in
        guard let user, let data else { return 0 }
        let transfer = Unmanaged<Transfer>.fromOpaque(user).takeUnretainedValue()
        let bytes = UnsafeRawBufferPointer(start: data, count: size * count)
        transfer.head.consume(line: String(decoding: bytes, as: UTF8.self))
        return size * count
    }

    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if outstandingSync != nil { deliverSyncs?() }
        if failure != nil { return 0 }  // a background fsync failed: stop here
        if decision == nil { decide() }
        switch decision {
        case .alreadyComplete: return bytes.count
        case .reject, .none: return 0
        case .accept: break
        }
        guard received + Int64(bytes.count) <= request.expectedLength else {
            failure = .endlessData(expected: request.expectedLength, url: request.url)
            return 0
        }
        hasher.update(bufferPointer: bytes)
        do { try writer.append(bytes) } catch {
            failure = error
            return 0
        }
        request.feed?.published(writer.fileOffset)
        let now = MonotonicTime.now()
        if outstandingSync == nil,
           received - startedCheckpointOffset >= settings.checkpointBytes
            || now - lastCheckpointTime >= settings.checkpointInterval
        {
            guard startCheckpoint() else { return 0 }
        } else if outstandingSync != nil, received - lastCheckpointOffset >= settings.durableLagLimit {
            // The device is behind (or the fsync thread starved of CPU): wait for it here, so what a
            // kill -9 re-fetches stays bounded by a few checkpoints whatever the load.
            guard checkpoint(all: false) else { return 0 }
        }
        if now - lastProgressTime >= 0.1 {
            lastProgressTime = now
            emit(.progress(id: request.id, bytesOnDisk: received, fetched: received, drain: 0, outlook: 0, placing: 0))
        }
        return bytes.count
    }

    /// Decides what to do with the body from the response head (RFC 9110 §13.1.5, §14, §15.5.17).
    func decide() {
        if isFileURL {
            decision = .accept
            emit(.started(id: request.id, offset: fileOffset, restartedFromZero: false))
            return
        }
        let status = head.status
        switch status {
        case 206:
            if let refusal = head.partialContentRefusal(offset: requestedOffset, length: request.expectedLength, validator: validator) {
                decision = .reject(refusal)
                return
            }
            decision = .accept
            emit(.started(id: request.id, offset: fileOffset, restartedFromZero: false))
        case 200:
            if let length = head.contentLength, length != request.expectedLength {
                decision = .reject(.lengthMismatch(expected: request.expectedLength, actual: length, url: request.url))
                return
            }
            let restarted = fileOffset > 0
            if restarted {
                request.feed?.abandon()  // a follower has read bytes of another version
                guard ftruncate(fd, 0) == 0 else {
                    decision = .reject(.io(operation: "truncate", path: request.partialPath, errno: errno))
                    return
                }
                writer.reset()
                lastCheckpointOffset = 0
                startedCheckpointOffset = 0
                hasher = SHA256()
            }
            requestedOffset = 0
            validator = head.validator
            decision = .accept
            emit(.started(id: request.id, offset: 0, restartedFromZero: restarted))
            if restarted { checkpoint() }
        case 416:
            if head.unsatisfiedRangeLength == request.expectedLength, fileOffset == request.expectedLength {
                decision = .alreadyComplete
            } else {
                decision = .reject(.cannotResume(
                    reason: "server refused range \(requestedOffset)- (416, length \(head.unsatisfiedRangeLength.map(String.init) ?? "unknown"))"))
            }
        default:
            decision = .reject(.httpStatus(status, url: request.url, retryAfter: head.retryAfter))
        }
    }
}
