import ContentDelivery
import ContentDownloads
import ContentPackaging
import Foundation
import GRDB
import Testing

/// The queue's tables are read through Codable records: rows written by an earlier release (the catalog
/// product as a JSON blob, dates as GRDB text) still read back whole, and a row that does not decode is
/// an error naming what is wrong, never a silent default.
@Suite struct JournalTransactionRowsTests {
    @Test func rowsWrittenByAnEarlierReleaseReadBack() throws {
        let store = try makeStore()
        defer { store.remove() }
        _ = try store.journal()  // creates and migrates the journal
        let item = product("com.example.old", bytes: Array("old".utf8))
        let productJSON = try JSONEncoder().encode(item)
        let queue = try DatabaseQueue(path: store.journalFile.path)
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO transactions (id, productID, kind, state, product, url, createdAt) VALUES (?, ?, ?, ?, ?, ?, ?)",
                arguments: ["t-old", item.productID, "restore", "restored", productJSON, "http://127.0.0.1/a", "2026-11-20 10:00:00.000"])
            try db.execute(
                sql: "INSERT INTO history (transactionID, productID, kind, contentVersion, finishedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: ["t-done", "com.example.done", "purchase", "2.0", "2026-11-21 10:00:00.000"])
        }
        try queue.close()

        let overview = try StoreOverview(store: Store(root: store.root))
        let transaction = try #require(overview.transactions.first)
        #expect(overview.transactions.count == 1)
        #expect(transaction.id == "t-old")
        #expect(transaction.productID == item.productID)
        #expect(transaction.kind == .restore)
        #expect(transaction.state == .restored)
        #expect(transaction.contentVersion == item.contentVersion.description)
        #expect(overview.history.map(\.transactionID) == ["t-done"])
        #expect(overview.history.first?.kind == .purchase)
        #expect(overview.history.first?.contentVersion == "2.0")
    }

    @Test func anUnknownKindIsAnErrorNotAPurchase() throws {
        let store = try makeStore()
        defer { store.remove() }
        _ = try store.journal()
        let queue = try DatabaseQueue(path: store.journalFile.path)
        try queue.write { db in
            try db.execute(
                sql: "INSERT INTO history (transactionID, productID, kind, contentVersion, finishedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: ["t-odd", "com.example.odd", "gift", "1.0", "2026-11-21 10:00:00.000"])
        }
        try queue.close()
        #expect(throws: (any Error).self) { try StoreOverview(store: Store(root: store.root)) }
    }
}
