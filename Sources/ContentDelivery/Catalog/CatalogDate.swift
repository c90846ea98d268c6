public import Foundation

/// Catalog timestamps as ISO 8601 text in UTC, whole seconds (`2027-01-15T08:00:00Z`), converted by hand.
///
/// The same text as `JSONEncoder`'s `.iso8601` strategy, without its machinery: Foundation's ISO 8601
/// style builds a `Calendar` with the current time zone, which loads ICU's time-zone data (measured +4 MiB of
/// resident memory in `iapcontent download`, for a string `gmtime_r` and `timegm` can build and read).
public enum CatalogDate {
    /// The text of `date`: UTC, fractional seconds dropped (rounded down, as `.iso8601` does).
    public static func string(from date: Date) -> String {
        utcText(seconds: time_t(date.timeIntervalSince1970.rounded(.down)), separator: "T") + "Z"
    }

    /// `yyyy-MM-dd<separator>HH:mm:ss` in UTC for `seconds` since 1970, then `.SSS` when `milliseconds`
    /// is given; shared with the journal's timestamps, which use the same fields with a space.
    package static func utcText(seconds: time_t, separator: String, milliseconds: Int? = nil) -> String {
        var seconds = seconds
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func pad(_ value: Int32, _ width: Int) -> String {
            let digits = String(value)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        let text = "\(pad(parts.tm_year + 1900, 4))-\(pad(parts.tm_mon + 1, 2))-\(pad(parts.tm_mday, 2))\(separator)"
            + "\(pad(parts.tm_hour, 2)):\(pad(parts.tm_min, 2)):\(pad(parts.tm_sec, 2))"
        return milliseconds.map { text + "." + pad(Int32($0), 3) } ?? text
    }

    /// Reads `yyyy-MM-ddTHH:mm:ss` with optional fractional seconds, then `Z` or a `±HH:mm` / `±HHmm` offset;
    /// `nil` for anything else (also out-of-range fields such as month 13).
    public static func date(from text: String) -> Date? {
        var scanner = DigitScanner(Array(text.utf8))
        guard let year = scanner.number(4), scanner.skip("-"), let month = scanner.number(2), scanner.skip("-"),
              let day = scanner.number(2), scanner.skip("T"), let hour = scanner.number(2), scanner.skip(":"),
              let minute = scanner.number(2), scanner.skip(":"), let second = scanner.number(2),
              (1...12).contains(month), (1...31).contains(day), hour < 24, minute < 60, second < 61
        else { return nil }
        var fraction = 0.0
        if scanner.skip(".") {
            var scale = 0.1
            guard let first = scanner.digit() else { return nil }
            fraction = Double(first) * scale
            while let digit = scanner.digit() {
                scale /= 10
                fraction += Double(digit) * scale
            }
        }
        var offset = 0
        if scanner.skip("Z") {
            offset = 0
        } else if let sign = scanner.sign() {
            guard let hours = scanner.number(2) else { return nil }
            _ = scanner.skip(":")
            guard let minutes = scanner.number(2), hours < 24, minutes < 60 else { return nil }
            offset = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard scanner.atEnd else { return nil }
        var parts = tm()
        parts.tm_year = Int32(year - 1900)
        parts.tm_mon = Int32(month - 1)
        parts.tm_mday = Int32(day)
        parts.tm_hour = Int32(hour)
        parts.tm_min = Int32(minute)
        parts.tm_sec = Int32(second)
        let seconds = timegm(&parts)
        guard parts.tm_mday == Int32(day) else { return nil }  // timegm normalised an impossible day (Feb 30)
        return Date(timeIntervalSince1970: Double(Int(seconds) - offset) + fraction)
    }
}

/// Reads ASCII digits and punctuation from the front of a byte array.
private struct DigitScanner {
    private let bytes: [UInt8]
    private var index = 0

    init(_ bytes: [UInt8]) { self.bytes = bytes }

    var atEnd: Bool { index == bytes.count }

    /// The next byte as a digit, consumed; `nil` (nothing consumed) when it is not one.
    mutating func digit() -> Int? {
        guard index < bytes.count, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(bytes[index]) else { return nil }
        defer { index += 1 }
        return Int(bytes[index] - UInt8(ascii: "0"))
    }

    /// Exactly `count` digits as a number.
    mutating func number(_ count: Int) -> Int? {
        var value = 0
        for _ in 0..<count {
            guard let digit = digit() else { return nil }
            value = value * 10 + digit
        }
        return value
    }

    /// Consumes `character` when it is next.
    mutating func skip(_ character: Unicode.Scalar) -> Bool {
        guard index < bytes.count, bytes[index] == UInt8(ascii: character) else { return false }
        index += 1
        return true
    }

    /// `+1` or `-1` for a consumed sign.
    mutating func sign() -> Int? {
        if skip("+") { return 1 }
        if skip("-") { return -1 }
        return nil
    }
}
