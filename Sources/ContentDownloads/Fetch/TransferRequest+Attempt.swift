extension TransferRequest {
    /// This request as an extraction that follows the transfer sees it.
    var attempt: ArchiveAttempt {
        ArchiveAttempt(
            productID: id, expectedSHA256: expectedSHA256, partialPath: partialPath, archivePath: archivePath,
            chunked: chunked != nil)
    }
}
