import ContentCommandLine
import ContentDownloads
import Foundation

/// Opens `queue` for one command run (`download`, `restore`): another driver holding the store, or a
/// failed recovery of an interrupted install, becomes a message naming the store and exit status 1.
func openForRun(_ queue: ContentQueue) async throws {
    do {
        try await queue.open()
    } catch let error as DriverLockError {
        Output.error(error.description)
        throw ExitStatus.failure
    } catch let error as InstallError {
        Output.error("cannot recover the store \(queue.store.root.path): \(error.description)")
        throw ExitStatus.failure
    }
}
