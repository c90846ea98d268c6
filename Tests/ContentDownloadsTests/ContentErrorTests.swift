import ContentDownloads
import Foundation
import Testing
import TestSupport

/// Every error of the module is a `ContentError`: one place to catch, a stable code, a message with a next step.
@Suite("Errors: one protocol, stable codes, advice")
struct ContentErrorTests {
    @Test func aStoreOnAFileSaysWhatToDo() throws {
        let folder = try TemporaryDirectory("error")
        let file = folder.url.appendingPathComponent("not-a-folder")
        try Data("x".utf8).write(to: file)
        do {
            _ = try Store(root: file)
            Issue.record("a store was opened on a file")
        } catch {
            let refusal: any ContentError = error  // typed throws: an InstallError
            #expect(refusal.errorCode == "system")
            #expect(refusal.description.contains("a file is in the way"), "\(refusal.description)")
        }
    }

    @Test func queueDriverAndDownloadErrorsAreCaughtAsOne() async throws {
        let store = try makeStore()
        let queue = try ContentQueue(store: store, catalog: nil)
        var codes: [String] = []
        do { try await queue.finish("nothing") } catch { codes.append((error as any ContentError).errorCode) }
        do { _ = try await queue.add(VerifiedPurchase(transactionID: "t", productID: "p")) } catch let error as any ContentError {
            codes.append(error.errorCode)
        }
        try await queue.open()
        let second = try ContentQueue(store: Store(root: store.root), catalog: nil)
        do { try await second.open() } catch let error as any ContentError { codes.append(error.errorCode) }
        await queue.close()
        let download: any ContentError = DownloadError.checksumMismatch(expected: "a", actual: "b")
        codes.append(download.errorCode)
        #expect(codes == ["unknownTransaction", "unknownProduct", "storeBusy", "checksumMismatch"])
    }
}
