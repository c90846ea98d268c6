package import ArgumentParser
import Foundation

/// The documented exit statuses of `iapcontent`, the same for every subcommand.
///
/// Commands end with one by throwing it (`throw ExitStatus.interrupted`); ``CommandMain/run(_:)`` maps
/// every other error here too: usage errors → 2, our typed errors → their message and 1.
package enum ExitStatus: Int32, Error, Sendable, CaseIterable {
    /// Everything asked for was done.
    case ok = 0
    /// Something failed; the message on stderr says what and what to do.
    case failure = 1
    /// The command line was wrong (unknown option, missing argument, bad value).
    case usage = 2
    /// Paused or interrupted (Ctrl-C, SIGTERM, `pause` from another shell); run the same command to resume.
    case interrupted = 3
    /// Cancelled (`iapcontent cancel`); partial data was deleted.
    case cancelled = 4

    /// The table shown in `--help` and the README.
    package static let table = """
        EXIT STATUS:
          0  success
          1  failure (the message says what happened and what to do)
          2  usage error (unknown option, missing argument, bad value)
          3  paused or interrupted (Ctrl-C, SIGTERM): run the same command again to resume
          4  cancelled

        ERRORS:
          A failure is one line on stderr: `iapcontent: <what happened and what to do>`. With --json it is one
          JSON object instead: {"error":{"code":"<code>","message":"<text>"}}, the code stable to branch on
          (the library's: catalog, insufficientSpace, checksumMismatch, network, httpStatus, notInstalled,
          unknownPack, essentialPack, an install refusal's own such as unsafeEntry or archiveMismatch; usage;
          the program's: storeUnreadable, noJournal, unknownDownload, manifestUnreadable, failure).
        """
}

/// How an error ends the process: which status, and what to print where.
package struct ExitOutcome: Equatable, Sendable {
    /// The process exit status.
    package var status: Int32
    /// Text to print (empty: nothing), already ending in a newline when non-empty.
    package var message: String
    /// Whether `message` goes to stderr (errors) or stdout (help, version).
    package var toStandardError: Bool

    /// Success: status 0, nothing to print.
    package static let success = ExitOutcome(status: 0, message: "", toStandardError: false)

    /// Maps an error thrown by parsing or running `command` (the root command, which words help and usage
    /// messages) to its outcome. Never includes a stack trace or a Swift type dump: our errors print their
    /// `description`, others their localized description.
    package static func of(_ error: any Error, command: any ParsableCommand.Type) -> ExitOutcome {
        if let status = error as? ExitStatus { return ExitOutcome(status: status.rawValue, message: "", toStandardError: true) }
        if let code = error as? ExitCode { return ExitOutcome(status: code.rawValue, message: "", toStandardError: true) }
        let parserCode = command.exitCode(for: error)
        if parserCode == .success {  // --help, --version, completion scripts
            return ExitOutcome(status: 0, message: terminated(command.fullMessage(for: error)), toStandardError: false)
        }
        if parserCode == .validationFailure {
            let message = ErrorLine.isJSON
                ? ErrorLine.error(command.message(for: error), code: "usage") : terminated(command.fullMessage(for: error))
            return ExitOutcome(status: ExitStatus.usage.rawValue, message: message, toStandardError: true)
        }
        let message = ErrorLine.isJSON ? ErrorLine.error(describe(error), code: "failure") : "iapcontent: error: \(describe(error))\n"
        return ExitOutcome(status: ExitStatus.failure.rawValue, message: message, toStandardError: true)
    }

    /// A person-readable sentence for any error.
    package static func describe(_ error: any Error) -> String {
        if let localized = error as? any LocalizedError, let text = localized.errorDescription { return text }
        return String(describing: error)  // our errors' `description`
    }

    private static func terminated(_ text: String) -> String {
        text.isEmpty || text.hasSuffix("\n") ? text : text + "\n"
    }
}
