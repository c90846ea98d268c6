internal import Synchronization

/// The changes an actor publishes, delivered in order to any number of listeners, each with its own
/// bounded buffer. The queue and the download manager each own one.
///
/// Each ``subscribe(filter:)`` adds a listener that gets every update published after it subscribed.
/// A listener that reads slower than updates arrive keeps only the latest progress of each download
/// (see ``CoalescingBuffer``), never losing a state change, so one that never reads holds at most
/// (downloads) + (state changes) updates. A listener is removed when its task is cancelled, when its
/// sequence and iterator are gone, or once it has read everything after ``finish()``.
package final class UpdateBroadcaster<Element: CoalescibleUpdate>: Sendable {
    /// Picks the part of an update a listener wants (`nil`: none of it).
    package typealias Filter = @Sendable (Element) -> Element?

    private struct Listener {
        let id: Int
        var buffer = CoalescingBuffer<Element, Element.DownloadKey>()
        let filter: Filter?
        let doorbell: AsyncStream<Void>.Continuation
        /// Set by ``finish()``: it gets nothing more and ends once it has read its buffer.
        var ended = false
    }

    private struct State {
        /// Few, so an array: indexing it in place never copies a buffer (a dictionary's `values.indices` would).
        var listeners: [Listener] = []
        var nextID = 0
        /// The last update published about each download (one per product): what the next one is compared with.
        var latest: [Element.DownloadKey: Element] = [:]
        var isFinished = false
    }

    private let state = Mutex(State())

    /// A broadcaster with no listener yet.
    package init() {}

    /// A new listener: the updates published from now on (those `filter` keeps, as it maps them; it runs
    /// under the broadcaster's lock, so it must only look at the update).
    package func subscribe(filter: Filter? = nil) -> UpdateSequence<Element> {
        let (bells, doorbell) = AsyncStream.makeStream(of: Void.self, bufferingPolicy: .bufferingNewest(1))
        let id = state.withLock { state -> Int? in
            guard !state.isFinished else { return nil }
            let id = state.nextID
            state.nextID += 1
            state.listeners.append(Listener(id: id, filter: filter, doorbell: doorbell))
            return id
        }
        guard let id else {
            doorbell.finish()
            return UpdateSequence(broadcaster: self, listener: -1, bells: bells)
        }
        // Cancelling the waiting task ends the doorbell: the listener goes with it.
        doorbell.onTermination = { [weak self] termination in
            if case .cancelled = termination { self?.remove(listener: id) }
        }
        return UpdateSequence(broadcaster: self, listener: id, bells: bells)
    }

    /// Delivers `element` to every listener (after the end: nowhere).
    package func yield(_ element: Element) {
        let doorbells = state.withLock { state -> [AsyncStream<Void>.Continuation] in
            guard !state.isFinished else { return [] }
            var progressOf: Element.DownloadKey?
            if let key = element.downloadKey {
                if let previous = state.latest[key], element.onlyMovesProgress(since: previous) { progressOf = key }
                state.latest[key] = element
            }
            var doorbells: [AsyncStream<Void>.Continuation] = []
            for index in state.listeners.indices {
                let delivered: Element?
                if let filter = state.listeners[index].filter { delivered = filter(element) } else { delivered = element }
                guard !state.listeners[index].ended, let delivered else { continue }
                state.listeners[index].buffer.append(delivered, progressOf: progressOf)
                doorbells.append(state.listeners[index].doorbell)
            }
            return doorbells
        }
        for doorbell in doorbells { doorbell.yield() }
    }

    /// Ends every listener once it has read what it was sent; later listeners end at once.
    package func finish() {
        let doorbells = state.withLock { state -> [AsyncStream<Void>.Continuation] in
            state.isFinished = true
            state.latest.removeAll()
            for index in state.listeners.indices { state.listeners[index].ended = true }
            return state.listeners.map(\.doorbell)
        }
        for doorbell in doorbells { doorbell.finish() }
    }

    /// Accepts listeners and updates again after ``finish()`` (a queue opened again after ``ContentQueue/close()``);
    /// the listeners ``finish()`` ended still end once they have read what they were sent.
    package func reopen() {
        state.withLock { $0.isFinished = false }
    }

    /// The next update for `listener`; `.ended` once it was removed, or finished and read to the end.
    func take(listener: Int) -> Take {
        state.withLock { state in
            guard let index = state.listeners.firstIndex(where: { $0.id == listener }) else { return .ended }
            if let element = state.listeners[index].buffer.popFirst() { return .element(element) }
            guard state.listeners[index].ended else { return .empty }
            state.listeners.remove(at: index)
            return .ended
        }
    }

    /// What ``take(listener:)`` found.
    enum Take {
        case element(Element)
        case empty
        case ended
    }

    /// Forgets a listener and what it had not read. Idempotent.
    func remove(listener: Int) {
        state.withLock { $0.listeners.removeAll { $0.id == listener } }
    }

    /// How many listeners are subscribed.
    package var listenerCount: Int { state.withLock { $0.listeners.count } }

    /// How many updates each listener holds unread (for tests and diagnostics).
    package var bufferedCounts: [Int] { state.withLock { $0.listeners.map(\.buffer.count) } }
}
