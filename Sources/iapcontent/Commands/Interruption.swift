import Foundation
import Synchronization

/// Set once by Ctrl-C or SIGTERM, read by the command.
final class InterruptFlag: Sendable {
    private let value = Mutex(false)

    /// A flag not yet set.
    init() {}

    /// Records the interrupt.
    func set() { value.withLock { $0 = true } }

    /// Whether an interrupt arrived.
    var isSet: Bool { value.withLock { $0 } }

    /// On SIGINT or SIGTERM, sets the flag and then calls `stop` (which checkpoints and stops the transfers).
    /// The signals' default actions stay disabled while the returned sources live; cancel them when done.
    func trapTerminationSignals(then stop: @escaping @Sendable () -> Void) -> [any DispatchSourceSignal] {
        [SIGINT, SIGTERM].map { number in
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { [self] in
                set()
                stop()
            }
            source.resume()
            return source
        }
    }
}
