import ContentDownloads
import PropertyBased
import Testing

/// Random appends (progress-only or not, over a few downloads) and reads against the obvious model: a list
/// from which a progress-only append removes the unread progress-only entry of its download.
@Suite("Updates: coalescing buffer properties")
struct CoalescingBufferPropertyTests {
    /// One step: read, or append about download `key` (progress-only or a state change).
    enum Step: Sendable, Equatable {
        case read
        case append(key: Int, progressOnly: Bool)
    }

    static let steps: [Step] = [.read] + (0..<4).flatMap { [Step.append(key: $0, progressOnly: true)] }
        + (0..<4).flatMap { [Step.append(key: $0, progressOnly: true), .append(key: $0, progressOnly: false)] }

    @Test func readsWhatTheModelReadsAndStaysBounded() async {
        await propertyCheck(input: Gen.element(of: Self.steps).array(of: 0...400)) { generated in
            let steps = generated.compactMap { $0 }
            var buffer = CoalescingBuffer<Int, Int>()
            var model: [(value: Int, progressOf: Int?)] = []
            var read: [Int] = []
            var modelRead: [Int] = []
            for (value, step) in steps.enumerated() {
                switch step {
                case .read:
                    if let element = buffer.popFirst() { read.append(element) }
                    if !model.isEmpty { modelRead.append(model.removeFirst().value) }
                case .append(let key, let progressOnly):
                    let progressOf = progressOnly ? key : nil
                    if let progressOf { model.removeAll { $0.progressOf == progressOf } }
                    model.append((value, progressOf))
                    buffer.append(value, progressOf: progressOf)
                }
                #expect(buffer.count == model.count)
                // At most one progress-only entry per download: the rest are state changes.
                #expect(model.filter { $0.progressOf != nil }.count <= 4)
            }
            while let element = buffer.popFirst() { read.append(element) }
            modelRead += model.map(\.value)
            #expect(read == modelRead)
            #expect(read == read.sorted())  // a subsequence of what was appended, in order
            let stateChanges = steps.indices.filter { steps[$0] != .read && !Self.isProgressOnly(steps[$0]) }
            #expect(Set(stateChanges).isSubset(of: Set(read)), "a state change was dropped")
            #expect(buffer.isEmpty)
        }
    }

    static func isProgressOnly(_ step: Step) -> Bool {
        if case .append(_, true) = step { return true }
        return false
    }
}
