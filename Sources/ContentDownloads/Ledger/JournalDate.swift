internal import ContentDelivery
internal import Foundation
internal import GRDB

/// Journal timestamps as GRDB stores them (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), formatted by hand.
///
/// GRDB's own `Date` encoding goes through `DateFormatter`, which wakes ICU: measured +7 MiB of
/// resident memory in a process that otherwise needs little, for a string `gmtime_r` can build.
/// The text is identical, so existing journals read and sort the same.
enum JournalDate {
    /// The storage text of `date`.
    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        let seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        return CatalogDate.utcText(seconds: seconds, separator: " ", milliseconds: fraction)
    }
}

/// A row type of the journal: Codable through GRDB, with dates stored as ``JournalDate`` text.
protocol JournalRecord: Codable, FetchableRecord, PersistableRecord {}

extension JournalRecord {
    /// Dates as GRDB's text, without `DateFormatter` (see ``JournalDate``).
    static func databaseDateEncodingStrategy(for column: String) -> DatabaseDateEncodingStrategy {
        .custom { JournalDate.text($0) }
    }
}
