internal import ContentPackaging
internal import Glibc

/// Feeds libarchive from a partial file that is still being written, never past what the
/// transfer has published in its ``GrowingArchive``.
///
/// Reads block while the download is behind the reader, end at the archive's verified length,
/// and fail as soon as the attempt is abandoned. The file is opened on the first read: at the
/// partial path, or at the archive path when the transfer already verified and renamed it.
///
/// - Important: Used only by the overlapped install's own thread.
final class GrowingArchiveSource: ArchiveByteSource {
    private let feed: GrowingArchive
    private let partialPath: String
    private let archivePath: String
    private var fd: Int32 = -1
    private var offset: Int64 = 0

    init(feed: GrowingArchive, partialPath: String, archivePath: String) {
        self.feed = feed
        self.partialPath = partialPath
        self.archivePath = archivePath
    }

    deinit { if fd >= 0 { close(fd) } }

    func read(into buffer: UnsafeMutableRawBufferPointer) throws(ArchiveError) -> Int {
        let (available, end) = feed.wait(beyond: offset)
        if end == .abandoned {
            throw ArchiveError(message: "the download stopped before the archive was complete", path: partialPath)
        }
        if available <= offset { return 0 }  // complete and fully read
        if fd < 0 {
            fd = open(partialPath, O_RDONLY | O_CLOEXEC)
            if fd < 0, errno == ENOENT { fd = open(archivePath, O_RDONLY | O_CLOEXEC) }
            if fd < 0 { throw ArchiveError(errno: errno, message: "cannot open the partial archive", path: partialPath) }
        }
        let want = Int(min(Int64(buffer.count), available - offset))
        while true {
            let count = pread(fd, buffer.baseAddress, want, off_t(offset))
            if count > 0 {
                offset += Int64(count)
                return count
            }
            if count < 0, errno == EINTR { continue }
            // The file is shorter than published: the transfer truncated it (a restart).
            throw ArchiveError(
                errno: count < 0 ? errno : 0,
                message: "the partial archive changed while it was being read (the download restarted)", path: partialPath)
        }
    }

    /// Blocks until the attempt ends; true when the transfer verified the archive.
    func waitForVerification() -> Bool {
        while true {
            let (_, end) = feed.wait(beyond: Int64.max - 1)
            if end != .growing { return end == .complete }
        }
    }
}
