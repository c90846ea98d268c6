internal import CurlTransport
internal import SystemSupport
internal import CCurl

/// One connection of a ``ChunkScheduler``: an easy handle fetching one ``FetchQueue/Run`` at a time from one
/// mirror, cutting the body into whole chunk frames for the install pipeline.
///
/// The reply rules are the range rules of every archive request: 206 with exactly the range asked for continues
/// (whatever its ETag: requests carry no `If-Range`, each chunk is checked against its signed hash); 200 means the
/// server ignores `Range` — the body is the whole archive, and the connection takes from it every chunk the plan
/// still waits for as it passes (nothing is fetched twice because of it); anything else ends the request with a
/// failure the scheduler classifies. A run of several ranges is one multi-range request; its `multipart/byteranges`
/// reply is read part by part (``MultipartByteranges``), each part exactly the next range asked for, or the
/// connection stops and reports ``rangesRefused``.
///
/// - Important: Not thread-safe: created, used and destroyed on the transfer thread.
final class ChunkConnection {
    /// How the reply was judged.
    typealias Verdict = ChunkReplyVerdict
    let easy: EasyHandle
    /// The scheduler's mirror number.
    let mirror: Int
    /// The run in flight, and the position in it of the chunk arriving.
    private(set) var run: FetchQueue.Run?
    private(set) var nextInRun = 0
    var head = ResponseHead()
    private(set) var verdict: Verdict?
    /// The server sends the whole archive (it ignored `Range`).
    private(set) var wholeArchive = false
    /// The archive offset of the next body byte.
    private(set) var position: Int64 = 0
    /// The frame being filled: its chunk and its bytes so far, in ``FrameMemory`` segments.
    private var frame: (chunk: Int, data: SegmentedFrame)?
    /// The next frame of the run, admitted to the engine's ``FrameMemory`` before its first byte: its chunk and
    /// segments.
    private var admitted: (chunk: Int, segments: Int)?
    /// Reading stopped because everything asked for had arrived (libcurl then reports a write error).
    private(set) var stoppedAtEnd = false
    /// When the last body byte arrived (or the request started), for stall detection.
    private(set) var lastBytes: Double
    /// When the run in flight was requested.
    private(set) var requested: Double = 0
    /// Body bytes received in all, and by the time the run in flight was requested (its rate, ``TailSplit``).
    private(set) var received: Int64 = 0
    private(set) var receivedAtRequest: Int64 = 0
    /// When its first body byte arrived (``deliveryRate(now:)``); `nil` before.
    private(set) var firstByte: Double?
    /// Paused by the download's rate cap (``RateBucket``) until the scheduler resumes it.
    var paused = false
    /// Paused because the engine's frame memory had no room for a frame of this many segments at this archive
    /// offset, until the scheduler resumes it (``FrameMemory/mayResume(_:at:for:)``); `nil` when not.
    var waitsForMemory: (segments: Int, offset: Int64)?
    /// The failure found while receiving (an overlong body), if any.
    private(set) var failure: TransferFailure?
    /// The reader of a multi-range reply, and the next of the run's ranges it must bring.
    private var parts: MultipartByteranges?
    private var nextRange = 0
    /// The part of a split frame this connection brings (``TailSplit/split(_:minimumSeconds:)``): its chunk and the
    /// archive bytes, the first or the later part of the frame; the part goes to the scheduler, which joins the two.
    private(set) var part: (chunk: Int, bytes: Range<Int64>)?
    /// Why a multi-range reply could not be read (malformed, or not the ranges asked for): the server does not
    /// answer several ranges correctly.
    private(set) var rangesRefused: String?
    unowned let scheduler: ChunkScheduler
    /// Its mirror is a local origin (`file:`): libcurl cannot pause such a transfer, so each frame is admitted before
    /// its request is sent (``admitAhead(_:)``) and the download's rate cap, a network's, does not apply.
    let isLocal: Bool

    init(mirror: Int, scheduler: ChunkScheduler) throws(CurlError) {
        self.mirror = mirror
        self.scheduler = scheduler
        isLocal = scheduler.mirrors[mirror].isLocal
        easy = try EasyHandle()
        lastBytes = MonotonicTime.now()
    }

    /// Points the handle at `run` on `url`; the caller puts it on the multi handle. A run without chunks is a probe
    /// (``FetchQueue/Run/probe``): a `HEAD` for its ranges, whose reply head alone says what the server does.
    /// `part`: the run is the later part of a split frame, its one chunk's bytes from `part`'s start.
    func start(_ run: FetchQueue.Run, url: String, settings: TransferSettings, rate: Int64, part: Range<Int64>? = nil) throws(CurlError) {
        do { try configure(run, url: url, settings: settings, rate: rate, part: part) } catch {
            // A handle that failed to configure is never handed to the multi handle (which takes every connection
            // with a run): it could send a half-set request (a FIFO a refused file URL names would block libcurl).
            self.run = nil
            throw error
        }
    }

    /// ``start(_:url:settings:rate:part:)``'s work: the connection's state for `run`, then the handle's options.
    private func configure(_ run: FetchQueue.Run, url: String, settings: TransferSettings, rate: Int64, part: Range<Int64>?) throws(CurlError) {
        self.run = run
        self.part = part.map { (run.chunks[0], $0) }
        nextInRun = 0
        head = ResponseHead()
        verdict = nil
        wholeArchive = false
        stoppedAtEnd = false
        paused = false
        waitsForMemory = nil
        failure = nil
        parts = nil
        nextRange = 0
        rangesRefused = nil
        position = run.range.lowerBound
        lastBytes = MonotonicTime.now()
        requested = lastBytes
        receivedAtRequest = received
        try easy.configureArchiveRequest(
            url: url, settings: settings, maxBytesPerSecond: rate, offset: run.range.lowerBound, last: run.range.upperBound - 1,
            ifRange: nil, owner: Unmanaged.passUnretained(self).toOpaque(),
            body: ChunkConnection.bodyCallback, header: ChunkConnection.headerCallback)
        try easy.set(large: CURLOPT_MAX_RECV_SPEED_LARGE, 0)  // the download's cap is the scheduler's bucket
        // Best effort, as in configureArchiveRequest: a connection's own receive buffer (smaller than a single
        // download's over HTTP/1.1, larger over HTTP/2: ``receiveBufferBytes(_:rate:)``).
        _ = CCurl_easy_setopt_long(easy.raw, CURLOPT_BUFFERSIZE, Self.receiveBufferBytes(settings.httpVersion, rate: rate))
        try easy.set(CURLOPT_NOBODY, run.chunks.isEmpty ? 1 : 0)  // a probe (no chunks) asks for the head only
        if run.chunks.isEmpty { try easy.set(CURLOPT_HTTPGET, 0) }
        if run.ranges.count > 1 {
            try easy.set(CURLOPT_RANGE, run.ranges.map { "\($0.lowerBound)-\($0.upperBound - 1)" }.joined(separator: ","))
        }
    }

    /// Admits the frame of `chunk`, the first of the next run, before its request is sent (a local origin, whose
    /// transfer cannot pause, then never has a byte refused); `false` when the engine's frame memory has no room now
    /// (the next frame given back wakes the loop).
    func admitAhead(_ chunk: Int) -> Bool {
        let range = scheduler.frameRange(of: chunk), segments = FrameMemory.segments(for: Int(range.count))
        guard admitted == nil, frame == nil, scheduler.memory.admit(segments, at: range.lowerBound, for: self) else { return false }
        admitted = (chunk, segments)
        return true
    }

    /// Gives back the chunks of ``tail`` after its first `keep`: the request stops once the chunks it keeps are in
    /// (``stoppedAtEnd``), and another connection fetches the rest (``TailSplit``).
    func cutTail(keeping keep: Int) -> [Int] {
        guard let run, !wholeArchive, nextInRun + 1 + keep < run.chunks.count else { return [] }
        let end = nextInRun + 1 + max(0, keep)
        defer { self.run!.chunks.removeSubrange(end...) }
        return Array(run.chunks[end...])
    }

    /// The reply is `multipart/byteranges`: its body is read by `reader`, part by part.
    func readParts(with reader: MultipartByteranges) {
        parts = reader
    }

    /// The chunks of the run in flight whose frames have not been handed over whole: what a failed request
    /// gives back. Ends the run (a partial frame is dropped).
    func abandon() -> [Int] {
        defer {
            run = nil
            scheduler.memory.giveBack(frame?.data, handedOver: false, unused: admitted?.segments ?? 0)
            scheduler.memory.forget(self)
            frame = nil
            admitted = nil
            part = nil
        }
        guard let run else { return [] }
        return Array(run.chunks[min(nextInRun, run.chunks.count)...])
    }

    /// Judges the reply head if no body byte did (an error reply with an empty body); with no reply head at all
    /// (the request failed below HTTP) there is nothing to judge: the transport error is the reason.
    func settleVerdict() {
        if verdict == nil, run != nil, head.status != 0 { verdict = scheduler.judge(self) }
    }

    /// Whether the run in flight has arrived whole.
    var runComplete: Bool { run.map { nextInRun == $0.chunks.count } ?? true }

    /// Ends a run that arrived whole.
    func endRun() {
        run = nil
        scheduler.memory.giveBack(nil, handedOver: false, unused: admitted?.segments ?? 0)
        admitted = nil
    }

    /// Resumed after a pause: the stall clock starts again.
    func resumed() { lastBytes = MonotonicTime.now() }

    /// Body bytes from libcurl (``bodyCallback``, inside `curl_multi_perform`): how many were taken, or
    /// `CURL_WRITEFUNC_PAUSE`.
    func receive(_ bytes: UnsafeRawBufferPointer) -> Int {
        guard run != nil else { return 0 }
        if verdict == nil { verdict = scheduler.judge(self) }
        guard case .accept = verdict else { return 0 }
        if let refused = admitFrame() {
            waitsForMemory = refused  // libcurl keeps these bytes; the scheduler resumes once a frame comes back
            return Int(CURL_WRITEFUNC_PAUSE)
        }
        guard isLocal || scheduler.admit(bytes.count) else {
            paused = true  // libcurl keeps these bytes and hands them over again once resumed
            return Int(CURL_WRITEFUNC_PAUSE)
        }
        if head.status == 200, !wholeArchive {
            wholeArchive = true
            position = 0
        }
        lastBytes = MonotonicTime.now()
        if firstByte == nil { firstByte = lastBytes }
        received += Int64(bytes.count)
        scheduler.fetched += Int64(bytes.count)
        guard var reader = parts else { return take(bytes) ? bytes.count : 0 }
        var going = true
        let problem = reader.feed(bytes) { event in
            switch event {
            case .part(let range):
                guard let run, nextRange < run.ranges.count, range == run.ranges[nextRange], frame == nil else {
                    rangesRefused = "a part brought bytes \(range.lowerBound)-\(range.upperBound - 1), not the next range asked for"
                    going = false
                    return false
                }
                nextRange += 1
                position = range.lowerBound
                return true
            case .data(let piece):
                going = take(piece)
                return going
            }
        }
        parts = reader
        if let problem { rangesRefused = problem }
        return going && rangesRefused == nil ? bytes.count : 0
    }

    /// Admits the frame these bytes go to, before any is taken: the frame being filled if it started unadmitted
    /// (it began inside the delivery that ended the previous one: one delivery's bytes, in one segment), else the
    /// run's next frame. The frame refused when the engine's frame memory has no room for it now.
    private func admitFrame() -> (segments: Int, offset: Int64)? {
        if bringsLaterPart { return nil }
        if let frame {
            guard frame.data.admitted == 0 else { return nil }
            let range = frameRange(of: frame.chunk), segments = FrameMemory.segments(for: Int(range.count))
            guard scheduler.memory.admit(segments, at: range.lowerBound, for: self) else { return (segments, range.lowerBound) }
            self.frame!.data.admitted = segments
            return nil
        }
        guard admitted == nil, let run, nextInRun < run.chunks.count else { return nil }
        let chunk = run.chunks[nextInRun]
        let range = frameRange(of: chunk), segments = FrameMemory.segments(for: Int(range.count))
        guard scheduler.memory.admit(segments, at: range.lowerBound, for: self) else { return (segments, range.lowerBound) }
        admitted = (chunk, segments)
        return nil
    }

    /// The archive bytes this connection brings of `chunk`'s frame: the whole frame, or its part of a split one.
    func frameRange(of chunk: Int) -> Range<Int64> {
        if let part, part.chunk == chunk { return part.bytes }
        return scheduler.frameRange(of: chunk)
    }

    /// The frame arriving is the later part of a split frame: the first part's admission covers it (the frame was
    /// admitted whole), so it never waits for frame memory the first part holds.
    private var bringsLaterPart: Bool {
        guard let part, let run, nextInRun < run.chunks.count, run.chunks[nextInRun] == part.chunk else { return false }
        return part.bytes.lowerBound != scheduler.frameRange(of: part.chunk).lowerBound
    }

    /// The frame arriving, when it is the last of the run, has begun and is not split: its chunk and its bytes left
    /// (a frame ``TailSplit/split(_:minimumSeconds:)`` may split).
    var arrivingAlone: (chunk: Int, bytesLeft: Int64)? {
        guard let run, !wholeArchive, !isLocal, part == nil, nextInRun == run.chunks.count - 1, let frame, frame.data.admitted > 0,
              frame.chunk == run.chunks[nextInRun]
        else { return nil }
        return (frame.chunk, scheduler.frameRange(of: frame.chunk).upperBound - position)
    }

    /// The frame arriving is split: this connection brings its bytes up to `end` and stops there.
    func keepFirstPart(of chunk: Int, upTo end: Int64) {
        part = (chunk, scheduler.frameRange(of: chunk).lowerBound..<end)
    }

    /// The split of the frame arriving is undone (the other part's connection failed): this connection brings the
    /// whole frame, as its request asked.
    func bringWholeFrame() { part = nil }

    /// Takes body bytes arriving at ``position``: reads through gaps, fills frames and hands whole ones over.
    /// `false` when reading must stop (everything asked for is here, or the body skipped bytes of a frame).
    private func take(_ bytes: UnsafeRawBufferPointer) -> Bool {
        var rest = bytes[...]
        while !rest.isEmpty {
            guard nextInRun < run!.chunks.count || wholeArchive else {
                stoppedAtEnd = true  // everything asked for is here; the server sends more (a whole archive)
                return false
            }
            let chunk: Int
            if nextInRun < run!.chunks.count {
                chunk = run!.chunks[nextInRun]
            } else if let claimed = scheduler.claim(at: position) {
                chunk = claimed  // a whole archive passing by: take what the plan still waits for
                run!.chunks.append(claimed)
            } else {
                guard let skip = scheduler.bytesToNextWaiting(from: position) else {
                    stoppedAtEnd = true
                    return false
                }
                let count = Int(min(Int64(rest.count), skip))
                position += Int64(count)
                rest = rest.dropFirst(count)
                continue
            }
            let frameRange = frameRange(of: chunk)
            if position < frameRange.lowerBound + Int64(frame?.data.length ?? 0) {  // a gap the plan does not need
                guard frame == nil else {
                    failure = .cannotResume(reason: "the body skipped bytes of chunk \(chunk)")
                    return false
                }
                let count = Int(min(Int64(rest.count), frameRange.lowerBound - position))
                position += Int64(count)
                rest = rest.dropFirst(count)
                continue
            }
            guard position == frameRange.lowerBound + Int64(frame?.data.length ?? 0) else {
                failure = .cannotResume(reason: "the body skipped bytes of chunk \(chunk)")
                return false
            }
            let count = fill(chunk, length: Int(frameRange.count), from: rest)
            position += Int64(count)
            rest = rest.dropFirst(count)
        }
        return true
    }

    /// Copies the bytes of `chunk`'s frame (`length` bytes in all) from the start of `bytes` into the frame being
    /// filled, and hands the frame over once whole; returns how many bytes it took.
    private func fill(_ chunk: Int, length: Int, from bytes: Slice<UnsafeRawBufferPointer>) -> Int {
        if frame == nil {
            frame = (chunk, SegmentedFrame())
            if let admitted, admitted.chunk == chunk {
                frame!.data.admitted = admitted.segments
                self.admitted = nil
            }
        }
        let need = length - frame!.data.length
        var count = 0
        while count < min(need, bytes.count) {
            if frame!.data.room == 0 { frame!.data.append(scheduler.memory.segment()) }
            count += frame!.data.fill(from: UnsafeRawBufferPointer(rebasing: bytes.dropFirst(count).prefix(need - count)))
        }
        if count == need {
            if part?.chunk == chunk {
                scheduler.partArrived(chunk, frame: frame!.data, from: self)
            } else {
                scheduler.frameArrived(chunk, frame: frame!.data, mirror: mirror)
            }
            frame = nil
            nextInRun += 1
        }
        return count
    }

    /// Bytes of the frame being filled (progress counts them).
    var partialBytes: Int64 { Int64(frame?.data.length ?? 0) }
}
