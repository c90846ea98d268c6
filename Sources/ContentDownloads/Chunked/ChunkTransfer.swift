internal import SystemSupport
internal import CCurl
internal import CLinuxSystem
internal import ContentPackaging
internal import Foundation
internal import Logging
import Glibc

/// One chunk-indexed download on the transfer thread: the easy handle, the response decisions, and the
/// cutting of the body into pieces for its ``ChunkInstallPipeline`` — no archive file.
///
/// Byte offsets are archive offsets throughout, so the journal, the retry policy and the range rules are the
/// engine's usual ones: a resume asks for `Range: bytes=<durable>-`, where the durable offset is always the
/// start of a chunk the install can continue from. A server that ignores the range (200) is read from the
/// start and the bytes before that offset are dropped unread.
///
/// - Important: Not thread-safe: created, used and destroyed on the transfer thread.
final class ChunkTransfer: PipelinedTransfer {
    let request: TransferRequest
    let easy: EasyHandle
    let emit: @Sendable (TransferEvent) -> Void
    private let package: ChunkedPackage
    let install: ChunkInstallPipeline
    let target: ChunkedInstallTarget
    var head = ResponseHead()
    /// The engine ended it (finished, failed or stopped).
    var ended = false
    var decision: Transfer.Decision?
    var failure: TransferFailure?
    var validator: Validator?
    /// The archive offset asked for; every byte before it is installed.
    let requestedOffset: Int64
    /// Archive bytes received (and handed over or buffered) so far.
    var received: Int64
    /// Bytes of a 200 reply still to drop (the server sent the archive from its start).
    var skip: Int64 = 0
    /// The chunk whose frame is arriving, and the pieces its bytes go into.
    private var chunkIndex: Int
    private var pieces = FramePieces()
    private var reports: PipelineReports

    /// Loads and checks the manifest, opens the tree where the install stopped (or empties it) and starts the
    /// install thread. A local problem that no retry can fix (a bad manifest) throws.
    init(
        request: TransferRequest, target: ChunkedInstallTarget, settings: TransferSettings,
        wake: @escaping @Sendable () -> Void, emit: @escaping @Sendable (TransferEvent) -> Void
    ) throws(TransferFailure) {
        self.request = request
        self.target = target
        self.emit = emit
        package = try Self.loadPackage(request, target: target)
        let start = Self.startingPoint(package, offset: request.offset, treePath: target.treePath)
        let loop = try Self.openInstaller(package, target: target, startChunk: start, settings: settings)
        chunkIndex = loop.nextChunk
        requestedOffset = package.chunks[loop.nextChunk].offset
        received = requestedOffset
        // Continuing past the journal's offset (this boot's note, made durable by `syncfs`): journal it at once.
        reports = PipelineReports(durable: min(request.offset, requestedOffset))
        validator = requestedOffset > 0 ? request.validator : nil
        install = ChunkInstallPipeline(package: package, stage: loop, startOffset: requestedOffset, onDurable: wake)
        do { easy = try EasyHandle() } catch {
            install.stop()
            throw .network(error)
        }
        do {
            try easy.configureArchiveRequest(
                url: request.url, settings: settings, maxBytesPerSecond: request.maxBytesPerSecond, offset: requestedOffset,
                ifRange: validator?.ifRange, owner: Unmanaged.passUnretained(self).toOpaque(),
                body: ChunkTransfer.bodyCallback, header: ChunkTransfer.headerCallback)
        } catch {
            throw .network(error)
        }
    }

    deinit {
        install.stop()
    }

    /// The manifest from the store, checked against the archive the catalog names.
    private static func loadPackage(_ request: TransferRequest, target: ChunkedInstallTarget) throws(TransferFailure) -> ChunkedPackage {
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(try Data(contentsOf: URL(fileURLWithPath: target.manifestPath))) } catch {
            throw .install("cannot read the package manifest \(target.manifestPath): \(error); add the purchase again to fetch it")
        }
        do {
            return try ChunkedPackage(
                manifest: manifest, expectedLength: request.expectedLength, expectedSHA256: request.expectedSHA256,
                display: target.manifestPath)
        } catch {
            throw .install(error.description)
        }
    }

    /// The chunk to start at: the restart point at the journal's durable offset, or later where this boot's
    /// ``WrittenProgressNote`` says the killed run had written to (made durable first, with `syncfs`); else 0.
    private static func startingPoint(_ package: ChunkedPackage, offset: Int64, treePath: String) -> Int {
        func chunk(at offset: Int64) -> Int? {
            guard offset > 0, let index = package.chunkIndex(startingAt: offset), index < package.chunks.count else { return nil }
            return package.restartChunk(atOrBefore: index)
        }
        let durable = chunk(at: offset) ?? 0
        guard let written = WrittenProgressNote.offset(treePath: treePath).flatMap(chunk(at:)),
              written > durable
        else { return durable }
        let fd = open(treePath, O_RDONLY | O_DIRECTORY | O_CLOEXEC)
        guard fd >= 0 else { return durable }
        defer { close(fd) }
        guard CLinuxSystem_syncFileSystem(fd) == 0 else { return durable }
        DownloadLog.transfer.debug(
            "continuing where the last run wrote to, past its last checkpoint",
            metadata: ["durable": "\(offset)", "written": "\(package.chunks[written].offset)"])
        return written
    }

    /// The install work starting at chunk `startChunk`; when the files written before it are not as left,
    /// it starts over at chunk 0.
    private static func openInstaller(
        _ package: ChunkedPackage, target: ChunkedInstallTarget, startChunk: Int, settings: TransferSettings
    ) throws(TransferFailure) -> ChunkInstallLoop {
        var chunk = startChunk
        while true {
            let streamOffset = package.chunks[chunk].uncompressedOffset
            do throws(InstallError) {
                let tree = try StagingTree(path: target.treePath, wipe: chunk == 0, expectedBytes: package.manifest.uncompressedSize)
                let position = ChunkedPackage.restartState(at: streamOffset, files: package.files) ?? .headers(nextFile: 0)
                let installer = try TarStreamInstaller(package: package, tree: tree, at: position, streamOffset: streamOffset)
                return ChunkInstallLoop(
                    package: package, installer: installer, nextChunk: chunk, checkpointBytes: settings.chunkedCheckpointBytes,
                    checkpointInterval: settings.checkpointInterval, note: WrittenProgressNote(treePath: target.treePath))
            } catch {
                if chunk == 0 { throw TransferFailure(error) }
                DownloadLog.transfer.debug("the install cannot continue where it stopped; starting over", metadata: ["reason": "\(error)"])
                chunk = 0
            }
        }
    }

    // MARK: Callbacks (transfer thread, inside curl_multi_perform)

    static let bodyCallback: curl_write_callback = { data, size, count, user in
        guard let user else { return 0 }
        let transfer = Unmanaged<ChunkTransfer>.fromOpaque(user).takeUnretainedValue()
        return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let headerCallback: curl_write_callback = { data, size, count, user in
        guard let user, let data else { return 0 }
        let transfer = Unmanaged<ChunkTransfer>.fromOpaque(user).takeUnretainedValue()
        transfer.head.consume(line: String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self))
        return size * count
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if decision == nil { decide() }
        switch decision {
        case .alreadyComplete: return bytes.count
        case .reject, .none: return 0
        case .accept: break
        }
        var body = bytes[...]
        if skip > 0 {
            let dropped = Int(min(skip, Int64(body.count)))
            skip -= Int64(dropped)
            body = body.dropFirst(dropped)
        }
        guard received + Int64(body.count) <= request.expectedLength else {
            failure = .endlessData(expected: request.expectedLength, url: request.url)
            return 0
        }
        take(UnsafeRawBufferPointer(rebasing: body))
        poll()
        return failure != nil ? 0 : bytes.count
    }

    /// Copies body bytes into pieces, handing each to the pipeline when full or when it ends a chunk's frame.
    private func take(_ bytes: UnsafeRawBufferPointer) {
        var rest = bytes[...]
        while !rest.isEmpty, chunkIndex < package.chunks.count {
            let (count, ended) = pieces.take(rest, chunk: chunkIndex, frameLength: Int(package.chunks[chunkIndex].length), into: install)
            received += Int64(count)
            rest = rest.dropFirst(count)
            if ended { chunkIndex += 1 }
        }
    }

    /// Reports progress, journals a durable offset the install thread published, and takes up its failure.
    func poll() {
        let failed = reports.poll(id: request.id, received: received, install: install, validator: validator, emit: emit)
        if failure == nil, let failed { failure = TransferFailure(failed) }
    }
}
