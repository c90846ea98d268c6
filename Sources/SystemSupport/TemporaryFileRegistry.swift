import Glibc
import Synchronization

/// Temp files a pack is writing, so a SIGINT/SIGTERM handler can remove them before exiting.
///
/// The packer registers each `.name.tmp-XXXX` path while it exists. Besides the `Mutex`-guarded
/// set, the registry keeps C copies of the paths in a fixed table (``signalSafeTable``) that a
/// signal handler can walk with ``unlinkAll(in:)`` without locks or allocation — a handler may
/// interrupt the very thread that holds the lock. Slots are cleared, never freed, on unregister,
/// so a handler never reads freed memory (a few bytes per pack are kept for the process lifetime).
package final class TemporaryFileRegistry: Sendable {
    /// Slots in the signal-safe table; more simultaneous temp files than this are still tracked
    /// in the set, just not removable from a signal handler.
    package static let capacity = 16

    private let paths = Mutex<[String: Int]>([:])
    /// `capacity` pointers to NUL-terminated paths, `nil` for a free slot.
    nonisolated(unsafe) package let signalSafeTable: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>

    /// Creates an empty registry.
    package init() {
        signalSafeTable = .allocate(capacity: Self.capacity)
        signalSafeTable.initialize(repeating: nil, count: Self.capacity)
    }

    deinit {
        signalSafeTable.deallocate()
    }

    /// Records a temp file that now exists.
    package func register(_ path: String) {
        paths.withLock { registered in
            guard registered[path] == nil else { return }
            let slot = (0..<Self.capacity).first { signalSafeTable[$0] == nil } ?? -1
            if slot >= 0 { signalSafeTable[slot] = strdup(path) }
            registered[path] = slot
        }
    }

    /// Forgets a temp file (renamed into place or already removed).
    package func unregister(_ path: String) {
        paths.withLock { registered in
            guard let slot = registered.removeValue(forKey: path) else { return }
            if slot >= 0 { signalSafeTable[slot] = nil }
        }
    }

    /// Paths currently registered.
    package var registered: Set<String> { paths.withLock { Set($0.keys) } }

    /// Deletes every registered temp file (`unlink`) and forgets them. Not for signal handlers.
    package func removeAll() {
        let current = paths.withLock { registered in
            defer {
                for slot in registered.values where slot >= 0 { signalSafeTable[slot] = nil }
                registered.removeAll()
            }
            return Array(registered.keys)
        }
        for path in current { unlink(path) }
    }

    /// Unlinks every path in a ``signalSafeTable``; async-signal-safe (only reads and `unlink`).
    package static func unlinkAll(in table: UnsafeMutablePointer<UnsafeMutablePointer<CChar>?>) {
        for slot in 0..<capacity {
            if let path = table[slot] { unlink(path) }
        }
    }
}
