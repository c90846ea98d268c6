internal import Foundation

/// Journal timestamps as GRDB stores them (`yyyy-MM-dd HH:mm:ss.SSS`, UTC), formatted by hand.
///
/// GRDB's own `Date` encoding goes through `DateFormatter`, which wakes ICU: measured +7 MiB of
/// resident memory in a process that otherwise needs little, for a string `gmtime_r` can build.
/// The text is identical, so existing journals read and sort the same.
enum JournalDate {
    /// The storage text of `date`.
    static func text(_ date: Date) -> String {
        let milliseconds = Int64((date.timeIntervalSince1970 * 1000).rounded(.down))
        var seconds = time_t(milliseconds >= 0 ? milliseconds / 1000 : (milliseconds - 999) / 1000)
        let fraction = Int(milliseconds - Int64(seconds) * 1000)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2)) "
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2)).\(pad(Int32(fraction), 3))"
    }
}
