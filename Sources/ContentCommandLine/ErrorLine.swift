import Foundation

/// How a command reports a failure on stderr: a sentence for a person, or — when the command line asks for
/// `--json` — one JSON object a script reads, with a stable code to branch on:
/// `{"error":{"code":"catalog","message":"…"}}` (the shape of a download's `error` in `status --json`).
///
/// Codes: a library error's own code (`DownloadError`'s `catalog`, `insufficientSpace`, `checksumMismatch`, …,
/// `QueueError`'s and `InstallError`'s case names), `usage` for a command line that cannot be parsed (exit status
/// 2), and a few of the program's own (`notInstalled`, `storeUnreadable`, `noJournal`, `unknownDownload`,
/// `manifestUnreadable`, `failure` for anything else).
package enum ErrorLine {
    /// Whether this process's command line asks for JSON (`--json` before any `--`): decided once, from the
    /// arguments the process was started with, so every error of the run is written one way.
    package static let isJSON: Bool = CommandLine.arguments.dropFirst().prefix { $0 != "--" }.contains("--json")

    /// The line (ending in a newline) that reports `message` with `code`.
    package static func error(_ message: String, code: String, json: Bool = isJSON) -> String {
        guard json else { return "iapcontent: \(message)\n" }
        return object(["error": ["code": code, "message": message]])
    }

    /// The line (ending in a newline) that warns of `message` (the command goes on).
    package static func warning(_ message: String, json: Bool = isJSON) -> String {
        guard json else { return "iapcontent: warning: \(message)\n" }
        return object(["warning": ["message": message]])
    }

    private static func object(_ value: [String: [String: String]]) -> String {
        let data = (try? JSONSerialization.data(withJSONObject: value, options: [.sortedKeys, .withoutEscapingSlashes])) ?? Data("{}".utf8)
        return String(decoding: data, as: UTF8.self) + "\n"
    }
}
