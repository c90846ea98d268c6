internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Foundation
internal import Logging
import Glibc

/// One update on the transfer thread: the chunks its ``DeltaPlan`` lists, fetched from the same static archive
/// as a full download with one `Range` request per run of neighbouring chunks, one after the other on the same
/// easy handle (so on the same connection), and handed to a ``ChunkInstallPipeline`` whose install stage is a
/// ``DeltaInstallLoop``. No server code and no patch files: nginx, a CDN or `iapcontent serve` as they are.
///
/// Offsets the engine sees (progress, checkpoints, the journal) count fetched bytes, `0…plan.fetchBytes`, so
/// progress and `timeRemaining` are over the bytes actually fetched. A server that ignores `Range` (200) sends
/// the whole archive: the chunks the update needs are taken from it and the rest is dropped, with a log line —
/// the update then costs a full download's bytes, never a broken install.
///
/// - Important: Not thread-safe: created, used and destroyed on the transfer thread.
final class DeltaTransfer: PipelinedTransfer {
    let request: TransferRequest
    let easy: EasyHandle
    let emit: @Sendable (TransferEvent) -> Void
    let package: ChunkedPackage
    let plan: DeltaPlan
    let install: ChunkInstallPipeline
    let target: ChunkedInstallTarget
    let settings: TransferSettings
    var head = ResponseHead()
    var decision: Transfer.Decision?
    var failure: TransferFailure?
    var validator: Validator?
    /// The archive bytes the request in flight asks for; the archive offset of the next body byte.
    var range: Range<Int64>
    var position: Int64
    /// The server sent the whole archive (it ignored `Range`).
    var wholeArchive = false
    var announced = false
    /// The server sent more than the range asked for; reading stopped at its end (libcurl reports a write error).
    var overshoot = false
    /// The plan's fetch list position of the chunk arriving, and the pieces its bytes go into.
    var next: Int
    private var pieces = FramePieces()
    /// Fetched bytes received.
    var fetched: Int64
    private var reports: PipelineReports

    /// Loads the manifest and the plan, opens the tree and starts the install threads at the journal's offset.
    init(
        request: TransferRequest, target: ChunkedInstallTarget, settings: TransferSettings,
        wake: @escaping @Sendable () -> Void, emit: @escaping @Sendable (TransferEvent) -> Void
    ) throws(TransferFailure) {
        self.request = request
        self.target = target
        self.settings = settings
        self.emit = emit
        (package, plan) = try Self.load(request, target: target)
        let starts = DeltaInstallLoop.starts(of: plan, in: package)
        next = plan.fetch.firstIndex { starts[$0] == request.offset } ?? 0
        fetched = next < plan.fetch.count ? starts[plan.fetch[next]]! : 0
        reports = PipelineReports(durable: fetched)
        let loop: DeltaInstallLoop
        do { loop = try DeltaInstallLoop(package: package, plan: plan, treePath: target.treePath, offset: fetched, settings: settings) } catch {
            throw TransferFailure(error)
        }
        install = ChunkInstallPipeline(
            package: package, stage: loop, startOffset: fetched, order: Array(plan.fetch[next...]), onDurable: wake)
        validator = fetched > 0 ? request.validator : nil
        range = 0..<0
        position = 0
        do { easy = try EasyHandle() } catch {
            install.stop()
            throw .network(error)
        }
        try configureNextRange()
    }

    deinit {
        install.stop()
    }

    /// The manifest (checked against the catalog's archive) and the plan (checked against the request).
    private static func load(_ request: TransferRequest, target: ChunkedInstallTarget) throws(TransferFailure) -> (ChunkedPackage, DeltaPlan) {
        guard let plan = DeltaPlan.load(treePath: target.treePath), plan.fetchBytes == request.expectedLength, !plan.fetch.isEmpty else {
            DeltaPlan.remove(treePath: target.treePath)
            throw .install("the update's plan beside \(target.treePath) is missing or does not match the download; run the update again to plan it anew")
        }
        let manifest: PackageManifest
        do { manifest = try PackageManifest.decode(try Data(contentsOf: URL(fileURLWithPath: target.manifestPath))) } catch {
            throw .install("cannot read the package manifest \(target.manifestPath): \(error); run the update again to fetch it")
        }
        let package: ChunkedPackage
        do {
            package = try ChunkedPackage(
                manifest: manifest, expectedLength: plan.archiveLength, expectedSHA256: request.expectedSHA256, display: target.manifestPath)
        } catch {
            throw .install(error.description)
        }
        guard plan.fetch.allSatisfy({ $0 >= 0 && $0 < package.chunks.count }), plan.written.allSatisfy({ $0 >= 0 && $0 < package.files.count }) else {
            DeltaPlan.remove(treePath: target.treePath)
            throw .install("the update's plan beside \(target.treePath) names chunks or files the manifest lacks; run the update again")
        }
        return (package, plan)
    }

    /// Points the easy handle at the next run of neighbouring chunks (one range).
    func configureNextRange() throws(TransferFailure) {
        var last = next
        while last + 1 < plan.fetch.count, plan.fetch[last + 1] == plan.fetch[last] + 1 { last += 1 }
        let first = package.chunks[plan.fetch[next]], final = package.chunks[plan.fetch[last]]
        range = first.offset..<(final.offset + final.length)
        position = range.lowerBound
        head = ResponseHead()
        decision = nil
        overshoot = false
        do {
            try easy.configureArchiveRequest(
                url: request.url, settings: settings, maxBytesPerSecond: request.maxBytesPerSecond, offset: range.lowerBound,
                last: range.upperBound - 1, ifRange: validator?.ifRange, owner: Unmanaged.passUnretained(self).toOpaque(),
                body: DeltaTransfer.bodyCallback, header: DeltaTransfer.headerCallback)
        } catch {
            throw .network(error)
        }
    }

    // MARK: Callbacks (transfer thread, inside curl_multi_perform)

    static let bodyCallback: curl_write_callback = { data, size, count, user in
        guard let user else { return 0 }
        let transfer = Unmanaged<DeltaTransfer>.fromOpaque(user).takeUnretainedValue()
        return transfer.receive(UnsafeRawBufferPointer(start: data, count: size * count))
    }

    static let headerCallback: curl_write_callback = { data, size, count, user in
        guard let user, let data else { return 0 }
        let transfer = Unmanaged<DeltaTransfer>.fromOpaque(user).takeUnretainedValue()
        transfer.head.consume(line: String(decoding: UnsafeRawBufferPointer(start: data, count: size * count), as: UTF8.self))
        return size * count
    }

    private func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        if decision == nil { decide() }
        switch decision {
        case .accept: break
        case .alreadyComplete: return bytes.count
        case .reject, .none: return 0
        }
        var rest = bytes[...]
        while !rest.isEmpty {
            if !wholeArchive, position == range.upperBound, (head.contentRange?.last ?? 0) >= range.upperBound {
                overshoot = true  // the server sends past the range asked for: all of it is here, stop reading
                return 0
            }
            guard position < (wholeArchive ? plan.archiveLength : range.upperBound) else {
                failure = .endlessData(expected: wholeArchive ? plan.archiveLength : range.upperBound - range.lowerBound, url: request.url)
                return 0
            }
            guard next < plan.fetch.count else {  // the whole archive's tail, past the last chunk needed
                let count = Int(min(Int64(rest.count), plan.archiveLength - position))
                position += Int64(count)
                rest = rest.dropFirst(count)
                continue
            }
            let chunk = package.chunks[plan.fetch[next]]
            if position < chunk.offset + Int64(pieces.inFrame) {  // bytes of a chunk the update does not need
                let count = Int(min(Int64(rest.count), chunk.offset - position))
                position += Int64(count)
                rest = rest.dropFirst(count)
                continue
            }
            let (count, ended) = pieces.take(rest, chunk: plan.fetch[next], frameLength: Int(chunk.length), into: install)
            position += Int64(count)
            fetched += Int64(count)
            rest = rest.dropFirst(count)
            if ended { next += 1 }
        }
        poll()
        return failure != nil ? 0 : bytes.count
    }

    /// Reports progress (fetched bytes), journals a durable offset the install thread published, takes up its failure.
    func poll() {
        let failed = reports.poll(id: request.id, received: fetched, install: install, validator: validator, emit: emit)
        if failure == nil, let failed { failure = TransferFailure(failed) }
    }
}
