/// One listener's unread updates, bounded by what matters: every update that is not progress-only, and at
/// most one progress-only update per download.
///
/// A progress-only update supersedes the unread progress-only update of the same download: that one is
/// dropped and the new one is appended, so what the listener reads is always a subsequence of what was
/// published, in order, with only stale progress left out. That holds across a state change too: the
/// state change stays and carries its own, newer snapshot of the same fields. Without any read, the buffer
/// holds at most (downloads) + (updates that were not progress-only) elements, however many progress
/// updates arrive.
package struct CoalescingBuffer<Element, Key: Hashable> {
    private struct Entry {
        var element: Element
        /// The download whose progress this entry reports, when it is progress-only.
        var progressOf: Key?
    }

    /// Slots in order; a `nil` slot was read or superseded. Compacted once more than half are `nil`.
    private var slots: [Entry?] = []
    /// The first slot not read yet.
    private var head = 0
    /// The slot of each download's unread progress-only update.
    private var progressSlot: [Key: Int] = [:]
    /// Unread updates.
    package private(set) var count = 0

    /// An empty buffer.
    package init() {}

    /// Whether nothing is left to read.
    package var isEmpty: Bool { count == 0 }

    /// Appends `element`; `progressOf` names its download when it only moves that download's progress,
    /// and then the unread progress-only update of the same download, if any, is dropped.
    package mutating func append(_ element: Element, progressOf key: Key?) {
        if let key, let superseded = progressSlot[key] {
            slots[superseded] = nil
            count -= 1
        }
        slots.append(Entry(element: element, progressOf: key))
        count += 1
        if let key { progressSlot[key] = slots.count - 1 }
        compactIfSparse()
    }

    /// Removes and returns the oldest unread update.
    package mutating func popFirst() -> Element? {
        while head < slots.count {
            let index = head
            head += 1
            guard let entry = slots[index] else { continue }
            slots[index] = nil
            count -= 1
            if let key = entry.progressOf, progressSlot[key] == index { progressSlot[key] = nil }
            compactIfSparse()
            return entry.element
        }
        return nil
    }

    /// Drops the `nil` slots once they outnumber the unread ones, so memory follows ``count``.
    private mutating func compactIfSparse() {
        if count == 0 {
            slots.removeAll(keepingCapacity: slots.count <= 64)
            progressSlot.removeAll(keepingCapacity: true)
            head = 0
            return
        }
        guard slots.count >= 64, slots.count > 2 * count else { return }
        var compacted: [Entry?] = []
        compacted.reserveCapacity(2 * count)
        var moved: [Key: Int] = [:]
        for index in head..<slots.count {
            guard let entry = slots[index] else { continue }
            if let key = entry.progressOf, progressSlot[key] == index { moved[key] = compacted.count }
            compacted.append(entry)
        }
        slots = compacted
        progressSlot = moved
        head = 0
    }
}
