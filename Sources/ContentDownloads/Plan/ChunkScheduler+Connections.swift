internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Logging

/// What a ``ChunkConnection`` asks of its scheduler from inside libcurl's callbacks, on the transfer thread: the
/// verdict on a reply, frame buffers, where frames lie, and the chunks a connection reading a whole archive takes.
extension ChunkScheduler {
    /// The verdict on a connection's reply head.
    func judge(_ connection: ChunkConnection) -> ChunkConnection.Verdict {
        let url = mirrors[connection.mirror].url
        if url.lowercased().hasPrefix("file:") {
            mirrors[connection.mirror].confirmed = true
            return announce()
        }
        guard let run = connection.run else { return .drop }
        let head = connection.head
        switch head.status {
        case 206:
            if let refusal = head.partialContentRefusal(
                offset: run.range.lowerBound, length: plan.archiveLength, validator: mirrors[connection.mirror].validator)
            {
                return .reject(refusal)
            }
            guard let last = head.contentRange?.last, last >= run.range.upperBound - 1 else {
                return .reject(.cannotResume(reason: "asked for bytes \(run.range.lowerBound)-\(run.range.upperBound - 1), the server sent up to \(head.contentRange?.last ?? -1)"))
            }
            if mirrors[connection.mirror].validator == nil { mirrors[connection.mirror].validator = head.validator }
            mirrors[connection.mirror].confirmed = true
            return announce()
        case 200:
            if let length = head.contentLength, length != plan.archiveLength {
                return .reject(.lengthMismatch(expected: plan.archiveLength, actual: length, url: url))
            }
            if mirrors[connection.mirror].ignoresRange, connections.contains(where: { $0 !== connection && $0.wholeArchive && $0.mirror == connection.mirror }) {
                return .drop  // one connection already reads this mirror's whole archive
            }
            if !mirrors[connection.mirror].ignoresRange {
                DownloadLog.transfer.notice(
                    "a mirror ignored Range: one connection reads its whole archive and takes the chunks still needed",
                    metadata: ["product": "\(request.id)", "url": "\(url)"])
            }
            mirrors[connection.mirror].ignoresRange = true
            return announce()
        default:
            return .reject(.httpStatus(head.status, url: url, retryAfter: head.retryAfter))
        }
    }

    private func announce() -> ChunkConnection.Verdict {
        if !announced {
            announced = true
            emit(.started(id: request.id, offset: placedAtStart, restartedFromZero: false))
        }
        return .accept
    }

    /// A buffer for a whole frame (waits for the verifier when every buffer is in use: back-pressure).
    func takeFrame() -> PageAlignedBuffer { install.takeFrameBuffer(limit: connections.count + 2) }

    /// A frame buffer not handed over (its request failed).
    func returnFrame(_ buffer: PageAlignedBuffer) { install.returnFrameBuffer(buffer) }

    /// The archive bytes of chunk `chunk`'s frame.
    func frameRange(of chunk: Int) -> Range<Int64> {
        let frame = package.chunks[chunk]
        return frame.offset..<(frame.offset + frame.length)
    }

    /// A whole frame arrived: to the verifier.
    func frameArrived(_ chunk: Int, buffer: PageAlignedBuffer, length: Int, from connection: ChunkConnection) {
        install.submitFrame(index: chunk, buffer: buffer, length: length, source: connection.mirror)
        submitted += Int64(length)
        mirrors[connection.mirror].delivered += Int64(length)
    }

    /// For a connection reading a whole archive: the waiting chunk whose frame starts at `offset`, taken off the queue.
    func claim(at offset: Int64) -> Int? {
        guard let chunk = package.chunkIndex(startingAt: offset), chunk < package.chunks.count, queue.remove(chunk) else { return nil }
        return chunk
    }

    /// For a connection reading a whole archive: bytes from `offset` to the next waiting chunk (`nil`: none waits after it).
    func bytesToNextWaiting(from offset: Int64) -> Int64? {
        queue.firstWaitingStart(atOrAfter: offset).map { $0 - offset }
    }
}
