import ArgumentParser
import Testing

@testable import iapcontent

/// Every command names itself. A command without `commandName` gets its name from `String(describing:)` of its type,
/// and every such call makes the Swift runtime scan all of the program's protocol conformances (tens of thousands in
/// the static shipping build): with a dozen unnamed commands that scan was the largest single cost of starting
/// `iapcontent --version` (docs/PERFORMANCE.md, "Installed size, packages and start-up").
@Suite struct CommandNameTests {
    @Test func everyCommandInTheTreeHasAnExplicitName() {
        var unnamed: [String] = []
        var queue: [any ParsableCommand.Type] = [IAPContent.self]
        var seen = 0
        while let command = queue.popLast(), seen < 1000 {
            seen += 1
            if command.configuration.commandName == nil { unnamed.append("\(command)") }
            queue += command.configuration.subcommands
        }
        #expect(seen > 20, "the tree has the program's commands")
        #expect(unnamed.isEmpty, "commands without `commandName:` in their CommandConfiguration: \(unnamed)")
    }

    @Test func theNamesAreTheOnesUsersType() {
        let names = Set(IAPContent.configuration.subcommands.compactMap { $0.configuration.commandName })
        for name in ["validate", "pack", "inspect", "download", "daemon", "serve", "status", "pause", "resume", "cancel"] {
            #expect(names.contains(name), "no `\(name)` subcommand: \(names.sorted())")
        }
    }
}
