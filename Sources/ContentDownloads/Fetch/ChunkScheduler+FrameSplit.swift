internal import SystemSupport
internal import Logging

/// How a ``ChunkScheduler`` splits the frame that would arrive last (``TailSplit/split(_:minimumSeconds:)``): its
/// connection stops at the split, a new connection to the same mirror asks for the rest of the frame, and the frame
/// goes to its verifier once both parts are in, joined — as any frame, checked whole against its signed hash before
/// a byte of it is placed. No byte is asked for twice; a part that fails undoes the split.
extension ChunkScheduler {
    /// When no chunk waits and no run has a tail to cut: splits the frame that would arrive last among those a
    /// connection brings last in its run, on a new connection to its mirror (if the mirror may hold one more);
    /// `false` when no frame qualifies. Not under a cap for the whole download, nor while a connection waits for
    /// frame memory: then the connections are not what holds the download back, and a split would only add a
    /// connection and the bytes it drops past its split point (a capped restart's first estimates read them as rate).
    func splitLastFrame(now: Double) -> Bool {
        guard rate == 0, !connections.contains(where: { $0.paused || $0.waitsForMemory != nil }) else { return false }
        let counts = Dictionary(grouping: connections, by: \.mirror).mapValues(\.count)
        let alone = connections.compactMap { connection -> (ChunkConnection, chunk: Int, left: Int64)? in
            let mirror = mirrors[connection.mirror]
            guard mirror.mayHold(counts[connection.mirror, default: 0] + 1, now: now), mirror.confirmed, !mirror.ignoresRange,
                  let arriving = connection.arrivingAlone
            else { return nil }
            return (connection, arriving.chunk, arriving.bytesLeft)
        }
        let frames = alone.map { TailSplit.Arriving(bytesLeft: $0.left, bytesPerSecond: $0.0.runRate(now: now)) }
        guard let split = TailSplit.split(frames) else { return false }
        let (first, chunk, left) = alone[split.run]
        let end = frameRange(of: chunk).upperBound, at = end - left + split.keep
        let second: ChunkConnection
        do { second = try ChunkConnection(mirror: first.mirror, scheduler: self) } catch {
            failure = .network(error)
            return false
        }
        DownloadLog.transfer.trace("frame split", metadata: [
            "product": "\(request.id)", "mirror": "\(first.mirror)", "chunk": "\(chunk)", "at": "\(at)", "bytes": "\(end - at)",
        ])
        first.keepFirstPart(of: chunk, upTo: at)
        splits[chunk] = []
        connections.append(second)
        begin(second, FetchQueue.Run(chunks: [chunk], ranges: [at..<end]), part: at..<end)
        return true
    }

    /// One part of a split frame is in: kept until the other is, then the two are joined into the whole frame and
    /// handed over (``frameArrived(_:frame:mirror:)``). A part of a split that was undone goes back to ``memory``.
    func partArrived(_ chunk: Int, frame: SegmentedFrame, from connection: ChunkConnection) {
        guard var parts = splits[chunk], let from = connection.part?.bytes.lowerBound else {
            return memory.giveBack(frame, handedOver: false)
        }
        parts.append((from, frame))
        guard parts.count == 2 else {
            splits[chunk] = parts
            return
        }
        splits[chunk] = nil
        parts.sort { $0.from < $1.from }
        var whole = parts[0].frame, later = parts[1].frame
        for piece in later.pieces {
            var copied = 0
            while copied < piece.count {
                if whole.room == 0 { whole.append(memory.segment()) }
                copied += whole.fill(from: UnsafeRawBufferPointer(rebasing: piece[copied...]))
            }
        }
        whole.admitted += later.admitted  // the joined frame holds both admissions until its verifier gives it back
        later.admitted = 0
        memory.giveBack(later, handedOver: false)
        frameArrived(chunk, frame: whole, mirror: connection.mirror)
    }

    /// The connection bringing a part of `chunk`'s split frame failed before its part was in: the split is undone.
    /// A part already in goes back to ``memory``; a connection still bringing the first part brings the whole frame
    /// (its request asked for it), and then the chunk stays out of the queue (`false`); a connection still bringing
    /// the later part is retired, and the chunk goes back to the queue (`true`).
    func undoSplit(_ chunk: Int, failedOn connection: ChunkConnection) -> Bool {
        for part in splits[chunk] ?? [] { memory.giveBack(part.frame, handedOver: false) }
        splits[chunk] = nil
        guard let other = connections.first(where: {
            $0 !== connection && $0.part?.chunk == chunk && ($0.run.map { run in run.chunks.contains(chunk) } ?? false) && !$0.runComplete
        }) else { return true }
        if other.part?.bytes.lowerBound == frameRange(of: chunk).lowerBound {
            other.bringWholeFrame()
            return false
        }
        _ = other.abandon()  // its chunk is the one going back with `connection`'s
        connections.removeAll { $0 === other }
        retired.append(other)
        return true
    }
}
