extension ContentQueue {
    /// Every transaction and download change published from now on, in order, for one listener.
    ///
    /// Each access adds a listener with its own sequence, so any number of tasks can follow the queue.
    /// A listener sees what happens after it asked: ask before the call whose effects you want to see, or
    /// read the current state after asking (``transactions()``), as ``installed(productID:)`` does.
    ///
    /// A slow listener does not hold the queue back or grow without bound: while it has not read them,
    /// progress-only updates of a download replace one another (it reads the latest), and every state
    /// change — download states, errors, `timeRemaining` becoming -1 on a stall, transactions — is kept.
    /// The sequence ends after ``close()`` once it was read to the end; cancelling the task that iterates
    /// it, or dropping it, removes the listener. Iterate it from one task only.
    ///
    /// The type is opaque on purpose: it is an `AsyncSequence` of ``ContentQueueUpdate`` that never throws
    /// and can be handed to another task, and its implementation can change without breaking callers.
    public nonisolated var updates: some AsyncSequence<ContentQueueUpdate, Never> & Sendable {
        published.subscribe()
    }

    /// Like ``updates``, for one product only: its transactions and downloads, nothing about others.
    ///
    /// A listener for one product is woken only by that product's changes, and buffers only those.
    public nonisolated func updates(for productID: String) -> some AsyncSequence<ContentQueueUpdate, Never> & Sendable {
        published.subscribe { $0.only(productID: productID) }
    }
}
