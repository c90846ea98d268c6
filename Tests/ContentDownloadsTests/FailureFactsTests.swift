@testable import ContentDownloads
import Testing

/// A failure keeps its facts on the way to the record: the numbers and the place a disk-full failure was found
/// with reach the message a person reads, whatever stage found it.
@Suite("Failures keep their facts")
struct FailureFactsTests {
    static func record() -> TransferRecord {
        TransferRecord(
            productID: "com.example.full", contentIdentifier: "com.example.full", contentVersion: "1.0",
            url: "http://127.0.0.1:1/a.tar.zst", expectedLength: 10 << 20, expectedSHA256: String(repeating: "0", count: 64),
            planKind: .chunks, partialPath: "/srv/store/transfers/com.example.full-1.0.update")
    }

    @Test("a full disk found while placing chunks: insufficientSpace with the bytes needed and free, and the store")
    func diskFullWhilePlacing() {
        var record = Self.record()
        let failure = TransferFailure(InstallError.insufficientSpace(needed: 7_340_032, available: 1_048_576))
        let verdict = failure.verdict(for: &record)
        #expect(verdict.final == verdict.error, "a full disk ends the download")
        #expect(verdict.error.code == .insufficientSpace)
        let message = verdict.error.message
        #expect(message.contains("/srv/store") && message.contains("7340032") && message.contains("1048576") && message.contains("6291456"), "\(message)")
        #expect(!message.contains("the store:"), "\(message)")
    }
}
