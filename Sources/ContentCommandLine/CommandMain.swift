package import ArgumentParser
import Foundation

/// The one way `iapcontent` runs a command line: parse, run, and turn
/// any error into an exit status and message (see ``ExitOutcome/of(_:command:)``): usage errors exit 2
/// (argument-parser's default is 64), help and version print on stdout and exit 0, our errors print their
/// message and exit 1.
package enum CommandMain {
    /// Parses `arguments` (default: the process's) as `root` and runs the chosen command; returns on
    /// success, exits the process otherwise.
    package static func run(_ root: any ParsableCommand.Type, arguments: [String]? = nil) async {
        do {
            var command = try root.parseAsRoot(arguments)
            if var asyncCommand = command as? any AsyncParsableCommand {
                try await asyncCommand.run()
            } else {
                try command.run()
            }
        } catch {
            let outcome = ExitOutcome.of(error, command: root)
            if !outcome.message.isEmpty {
                (outcome.toStandardError ? FileHandle.standardError : FileHandle.standardOutput)
                    .write(Data(outcome.message.utf8))
            }
            exit(outcome.status)
        }
    }
}
