internal import Glibc

/// Making received bytes durable: flush, fsync (here or on the ``CheckpointSyncer``), then report the offset.
extension Transfer {
    /// Writes what arrived, fsyncs, then reports the durable offset (the journal is written after
    /// this, never before). `all: false` (periodic checkpoints) may keep a sub-page tail in memory
    /// so the next ``PartialFileWriter`` write stays aligned; stops and the end write everything.
    ///
    /// A periodic checkpoint still being fsynced by the ``CheckpointSyncer`` is superseded: this
    /// fsync covers its bytes too, and its late result is ignored.
    @discardableResult
    func checkpoint(all: Bool = true) -> Bool {
        pendingSync = nil
        do { try writer.flush(all: all) } catch {
            failure = error
            return false
        }
        guard fsync(fd) == 0 else {
            failure = .io(operation: "fsync", path: request.partialPath, errno: errno)
            return false
        }
        request.feed?.published(fileOffset)
        lastCheckpointOffset = fileOffset
        startedCheckpointOffset = fileOffset
        lastCheckpointTime = MonotonicTime.now()
        emit(.checkpoint(id: request.id, offset: fileOffset, validator: validator))
        return true
    }

    /// A periodic checkpoint: writes what arrived (keeping an unaligned tail), then hands the
    /// fsync to the ``CheckpointSyncer``; ``checkpointSynced(_:)`` reports it once durable.
    func startCheckpoint() -> Bool {
        guard let syncer else { return checkpoint(all: false) }
        do { try writer.flush(all: false) } catch {
            failure = error
            return false
        }
        request.feed?.published(fileOffset)
        let copy = dup(fd)
        guard copy >= 0 else { return checkpoint(all: false) }
        let offset = fileOffset
        let token = syncer.submit(id: request.id, fd: copy, offset: offset)
        pendingSync = (token, offset)
        outstandingSync = token
        startedCheckpointOffset = offset
        lastCheckpointTime = MonotonicTime.now()
        return true
    }

    /// The ``CheckpointSyncer`` finished an fsync: report the offset durable, or fail the transfer
    /// at its next write. Results of superseded checkpoints are ignored.
    func checkpointSynced(_ result: CheckpointSyncer.Completed) {
        if outstandingSync == result.token { outstandingSync = nil }
        guard let pending = pendingSync, pending.token == result.token else { return }
        pendingSync = nil
        guard result.error == 0 else {
            if failure == nil { failure = .io(operation: "fsync", path: request.partialPath, errno: result.error) }
            return
        }
        lastCheckpointOffset = pending.offset
        emit(.checkpoint(id: request.id, offset: pending.offset, validator: validator))
    }
}
