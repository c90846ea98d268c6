internal import SystemSupport
internal import CCurl
internal import ContentPackaging
internal import Logging

/// What a ``ChunkConnection`` asks of its scheduler from inside libcurl's callbacks, on the transfer thread: the
/// verdict on a reply, where frames lie, and the chunks a connection reading a whole archive takes.
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
        if run.ranges.count > 1 { return judgeMultipleRanges(connection, run: run) }
        switch head.status {
        case 206:
            // No validator: the chunks' signed hashes decide, whatever ETag this node of the origin gives.
            if let refusal = head.partialContentRefusal(offset: run.range.lowerBound, length: plan.archiveLength, validator: nil) {
                return .reject(refusal)
            }
            guard let last = head.contentRange?.last, last >= run.range.upperBound - 1 else {
                return .reject(.cannotResume(reason: "asked for bytes \(run.range.lowerBound)-\(run.range.upperBound - 1), the server sent up to \(head.contentRange?.last ?? -1)"))
            }
            mirrors[connection.mirror].confirmed = true
            rangeSupport.recordAnswersRange(url)
            return announce()
        case 200:
            if let length = head.contentLength, length != plan.archiveLength {
                return .reject(.lengthMismatch(expected: plan.archiveLength, actual: length, url: url))
            }
            if mirrors[connection.mirror].ignoresRange, connections.contains(where: { $0 !== connection && $0.wholeArchive && $0.mirror == connection.mirror }) {
                return .drop  // one connection already reads this mirror's whole archive
            }
            if !mirrors[connection.mirror].ignoresRange {
                DownloadLog.transfer.debug(
                    "a mirror ignored Range: one connection reads its whole archive and takes the chunks still needed",
                    metadata: ["product": "\(request.id)", "url": "\(url)"])
            }
            mirrors[connection.mirror].ignoresRange = true
            return announce()
        default:
            return .reject(.httpStatus(head.status, url: url, retryAfter: head.retryAfter))
        }
    }

    /// The verdict on the reply to a request for several ranges: a `multipart/byteranges` 206 is read part by part
    /// (its head proves the server); a 206 of one range covering them all is read through; a 200 (a server past its
    /// `max_ranges`), or one range that does not cover them, means the server does not answer several ranges: the
    /// request ends at once, unblamed, and its chunks are asked for again one range at a time.
    private func judgeMultipleRanges(_ connection: ChunkConnection, run: FetchQueue.Run) -> ChunkConnection.Verdict {
        let head = connection.head, mirror = connection.mirror
        guard head.status == 206 || head.status == 200 else {
            // A probe is not blamed for what a `HEAD` gets (URLs signed for `GET` only answer 403): the server just
            // gets one range per request; a failing `GET` is judged as any other.
            guard run.chunks.isEmpty else { return .reject(.httpStatus(head.status, url: mirrors[mirror].url, retryAfter: head.retryAfter)) }
            refuseMultipleRanges(mirror, "it answered the probe with HTTP \(head.status)")
            return .drop
        }
        if head.status == 206, let type = head.contentType, let parts = MultipartByteranges(contentType: type) {
            if !run.chunks.isEmpty { connection.readParts(with: parts) }
            // Proven by the reply's head, so the next runs ask for several ranges at once; a malformed body later
            // takes it back (`refuseMultipleRanges`).
            rangeSupport.record(mirrors[mirror].url, supportsMultipleRanges: true)
        } else if !run.chunks.isEmpty, head.status == 206, let range = head.contentRange, range.first == run.range.lowerBound,
                  range.last >= run.range.upperBound - 1, range.complete == plan.archiveLength
        {
            // One range covering them all: read through, as for neighbouring chunks.
        } else {
            refuseMultipleRanges(mirror, head.status == 200 ? "it answered with the whole archive (200)" : "it answered with one range that does not cover them")
            return .drop
        }
        mirrors[mirror].confirmed = true
        rangeSupport.recordAnswersRange(mirrors[mirror].url)
        return announce()
    }

    private func announce() -> ChunkConnection.Verdict {
        if !announced {
            announced = true
            emit(.started(id: request.id, offset: placedAtStart, restartedFromZero: false))
        }
        return .accept
    }

    /// The archive bytes of chunk `chunk`'s frame.
    func frameRange(of chunk: Int) -> Range<Int64> {
        let frame = package.chunks[chunk]
        return frame.offset..<(frame.offset + frame.length)
    }

    /// A whole frame arrived from `mirror`: to the verifier, which gives its segments back to ``memory``.
    func frameArrived(_ chunk: Int, frame: SegmentedFrame, mirror: Int) {
        let length = frame.length
        memory.handOver(frame)
        install.submitFrame(index: chunk, frame: frame, source: mirror)
        submitted += Int64(length)
        mirrors[mirror].delivered += Int64(length)
        lastFrame = MonotonicTime.now()
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
