import Glibc
import Synchronization

/// Temp files a pack is writing, so a SIGINT/SIGTERM handler can remove them before exiting.
///
/// The packer registers each `.name.tmp-XXXX` path while it exists; the CLI's signal source
/// calls ``removeAll()``. A `Mutex` guards the set because the signal handler runs on another thread.
public final class TemporaryFileRegistry: Sendable {
    private let paths = Mutex<Set<String>>([])

    /// Creates an empty registry.
    public init() {}

    /// Records a temp file that now exists.
    public func register(_ path: String) {
        paths.withLock { _ = $0.insert(path) }
    }

    /// Forgets a temp file (renamed into place or already removed).
    public func unregister(_ path: String) {
        paths.withLock { _ = $0.remove(path) }
    }

    /// Paths currently registered.
    public var registered: Set<String> { paths.withLock { $0 } }

    /// Deletes every registered temp file (`unlink`) and forgets them.
    public func removeAll() {
        let current = paths.withLock { set in
            defer { set.removeAll() }
            return set
        }
        for path in current { unlink(path) }
    }
}
