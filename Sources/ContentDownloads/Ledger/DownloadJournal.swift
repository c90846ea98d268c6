/// Durable download bookkeeping shared by the driving process and command-only processes.
///
/// The real implementation is ``SQLiteJournal``; every write is durable when the call returns.
package protocol DownloadJournal: Sendable {
    /// Every record, ordered by creation.
    func records() throws -> [TransferRecord]
    /// The record for one product.
    func record(_ productID: String) throws -> TransferRecord?
    /// Inserts or replaces a record.
    func save(_ record: TransferRecord) throws
    /// Records a durable offset (call only after the partial file was fsynced to it) and the boot that wrote it.
    func recordCheckpoint(
        _ productID: String, offset: Int64, validator: Validator?, timeRemaining: Double, writtenInBoot: String?
    ) throws
    /// Leaves a command for the driving process.
    func request(_ command: RequestedCommand, for productID: String) throws -> Bool
    /// Takes (and clears) every pending command, atomically.
    func takeRequestedCommands() throws -> [(productID: String, command: RequestedCommand)]
}
