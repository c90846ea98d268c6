import Dispatch
import Synchronization

/// A bounded first-in-first-out hand-over between two threads; `send` waits while it is full,
/// `receive` waits while it is empty.
///
/// The pack pipeline's threads (file reader, archive writer, output writer) pass buffers through
/// these; a fixed capacity keeps memory flat however large the package is. The queue itself is a
/// `Mutex` inbox; two counting semaphores do the waiting. Whoever receives a value owns it.
package final class BlockingChannel<Element: Sendable>: Sendable {
    private let queue = Mutex<[Element]>([])
    /// Counts queued elements.
    private let filled = DispatchSemaphore(value: 0)
    /// Counts free places.
    private let free = DispatchSemaphore(value: 0)

    /// Creates a channel holding at most `capacity` (≥ 1) elements.
    package init(capacity: Int) {
        precondition(capacity >= 1, "a channel needs room for one element")
        // Signalled up from 0 rather than created at `capacity`: libdispatch traps when a semaphore
        // is freed below its initial value, which a channel dropped while holding elements would be.
        for _ in 0..<capacity { free.signal() }
        queue.withLock { $0.reserveCapacity(capacity) }
    }

    /// Appends `element`, waiting for a free place.
    package func send(_ element: Element) {
        free.wait()
        queue.withLock { $0.append(element) }
        filled.signal()
    }

    /// Whether nothing is queued at this instant (a hint: another thread may send or receive right after).
    package var isEmpty: Bool { queue.withLock { $0.isEmpty } }

    /// Removes the oldest element if there is one, without waiting.
    package func tryReceive() -> Element? {
        guard filled.wait(timeout: .now()) == .success else { return nil }
        let element = queue.withLock { $0.removeFirst() }
        free.signal()
        return element
    }

    /// Removes the oldest element, waiting for one.
    package func receive() -> Element {
        filled.wait()
        let element = queue.withLock { $0.removeFirst() }
        free.signal()
        return element
    }
}
