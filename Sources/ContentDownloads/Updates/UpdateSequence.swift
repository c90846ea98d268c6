/// One listener's updates from an ``UpdateBroadcaster``, in order; it ends after the broadcaster's
/// `finish()` once everything sent was read, or when the iterating task is cancelled.
///
/// Iterate it once, from one task: a second listener asks the broadcaster again. Dropping the sequence
/// and its iterator, or cancelling the task that iterates it, removes the listener and its buffer.
package struct UpdateSequence<Element: CoalescibleUpdate>: AsyncSequence, Sendable {
    package typealias Failure = Never

    private let token: ListenerToken<Element>
    private let bells: AsyncStream<Void>

    init(broadcaster: UpdateBroadcaster<Element>, listener: Int, bells: AsyncStream<Void>) {
        token = ListenerToken(broadcaster: broadcaster, listener: listener)
        self.bells = bells
    }

    /// The iterator (one per sequence).
    package func makeAsyncIterator() -> Iterator {
        Iterator(token: token, bells: bells.makeAsyncIterator())
    }

    /// Reads the listener's buffer, waiting on its doorbell while it is empty.
    package struct Iterator: AsyncIteratorProtocol {
        package typealias Failure = Never

        let token: ListenerToken<Element>
        var bells: AsyncStream<Void>.Iterator

        /// The next update, or `nil` at the end (finished and read, or cancelled).
        package mutating func next() async -> Element? {
            while !Task.isCancelled {
                switch token.broadcaster.take(listener: token.listener) {
                case .element(let element): return element
                case .ended: return nil
                case .empty: break
                }
                guard await bells.next() != nil else {
                    // Ended by `finish()` (whose last ring may come too late: read on without it) or by cancellation.
                    if case .element(let element) = token.broadcaster.take(listener: token.listener) { return element }
                    break
                }
            }
            token.broadcaster.remove(listener: token.listener)
            return nil
        }
    }
}

/// Removes its listener from the broadcaster when the last sequence or iterator holding it goes away.
final class ListenerToken<Element: CoalescibleUpdate>: Sendable {
    let broadcaster: UpdateBroadcaster<Element>
    let listener: Int

    init(broadcaster: UpdateBroadcaster<Element>, listener: Int) {
        self.broadcaster = broadcaster
        self.listener = listener
    }

    deinit { broadcaster.remove(listener: listener) }
}
