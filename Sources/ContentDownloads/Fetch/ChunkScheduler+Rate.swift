internal import CurlTransport
internal import CCurl

extension ChunkScheduler {
    /// A new cap for the whole download (0 = none), shared by its connections.
    func setRate(_ bytesPerSecond: Int64) {
        rate = max(0, bytesPerSecond)
        let now = MonotonicTime.now()
        if rate == 0 {
            bucket = nil
        } else if bucket == nil {
            bucket = RateBucket(rate: rate, now: now)
        } else {
            bucket!.setRate(rate, now: now)
        }
        resumePaused()
    }

    /// When the engine should call ``poll()`` at the latest: when a connection paused by the cap may go on, and
    /// while frames handed to the installer are not all in place, at the progress cadence (``PipelineReports``), so
    /// what lands is reported while no socket wakes the loop (a paced server between its bursts, a slow disk
    /// placing what the network already brought).
    var wakeAfter: Double? {
        let placing = install.placedBytes < placedAtStart + submitted ? PipelineReports.interval : nil
        guard let bucket, connections.contains(where: \.paused) else { return placing }
        return min(placing ?? .infinity, max(0.002, bucket.wait(now: MonotonicTime.now())))
    }

    /// Whether a connection may take `count` more bytes now (the rate cap).
    func admit(_ count: Int) -> Bool {
        guard bucket != nil else { return true }
        return bucket!.take(count, now: MonotonicTime.now())
    }

    /// Resumes the connections the cap paused, once the bucket has tokens again (libcurl may deliver at once).
    func resumePaused() {
        for connection in connections where connection.paused {
            if let bucket, bucket.wait(now: MonotonicTime.now()) > 0 { return }
            connection.paused = false
            _ = curl_easy_pause(connection.easy.raw, 0)  // CURLPAUSE_CONT
        }
    }

    /// Resumes the connections that waited for frame memory and would now be admitted (libcurl delivers at once);
    /// the next frame given back wakes the loop for the others.
    func resumeWaitingForMemory() {
        for connection in connections {
            guard let frame = connection.waitsForMemory, memory.mayResume(frame.segments, at: frame.offset, for: connection) else { continue }
            connection.waitsForMemory = nil
            connection.resumed()
            _ = curl_easy_pause(connection.easy.raw, 0)  // CURLPAUSE_CONT
        }
    }

    /// The install thread makes its own checkpoints.
    func checkpointSynced(_ result: CheckpointSyncer.Completed) {}
}
