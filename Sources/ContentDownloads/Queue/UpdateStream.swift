/// The ordered stream of changes an actor publishes: it yields, in order, and whoever holds ``stream``
/// iterates them. The queue and the download manager each own one.
///
/// Unbounded, with one listener: every element is kept until it is read, so a service that never reads
/// the stream of a long-running queue holds every change in memory (it should set an observer instead).
struct UpdateStream<Element: Sendable>: Sendable {
    /// The changes, in the order they were yielded; ends after ``finish()``.
    let stream: AsyncStream<Element>
    private let continuation: AsyncStream<Element>.Continuation

    /// An empty stream.
    init() {
        (stream, continuation) = AsyncStream.makeStream(of: Element.self, bufferingPolicy: .unbounded)
    }

    /// Appends `element` for the listener.
    func yield(_ element: Element) { continuation.yield(element) }

    /// Ends the stream once the listener has read what was yielded.
    func finish() { continuation.finish() }
}
