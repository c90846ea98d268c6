import ArgumentParser
import ContentCommandLine
import Foundation
import Logging
import Testing

@testable import iapcontent

/// Store location precedence, catalog/key options, log levels, and the error → exit status mapping.
@Suite struct TerminalOptionsTests {
    @Test func storeLocationPrecedence() {
        let home = "/home/ada"
        let all = ["IAPCONTENT_STORE": "/srv/store", "XDG_DATA_HOME": "/data"]
        #expect(StoreLocation.resolve(flag: "/flag", environment: all, home: home).url.path == "/flag")
        #expect(StoreLocation.resolve(flag: "/flag", environment: all, home: home).source == .flag)
        #expect(StoreLocation.resolve(flag: nil, environment: all, home: home).url.path == "/srv/store")
        #expect(StoreLocation.resolve(flag: nil, environment: ["XDG_DATA_HOME": "/data"], home: home).url.path == "/data/iapcontent")
        #expect(StoreLocation.resolve(flag: nil, environment: [:], home: home).url.path == "/home/ada/.local/share/iapcontent")
        // Empty values and a relative XDG_DATA_HOME (invalid per the XDG spec) are ignored.
        let ignored = StoreLocation.resolve(
            flag: "", environment: ["IAPCONTENT_STORE": "", "XDG_DATA_HOME": "rel"], home: home)
        #expect(ignored.url.path == "/home/ada/.local/share/iapcontent")
        #expect(ignored.source == .home)
        // Relative flags are taken from the working directory; ~ from home.
        #expect(StoreLocation.resolve(flag: "s", environment: [:], home: home, currentDirectory: "/work").url.path == "/work/s")
        #expect(StoreLocation.resolve(flag: "~/s", environment: [:], home: home).url.path == "/home/ada/s")
    }

    @Test func storeOptionGroupParses() throws {
        let options = try StoreLocationOptions.parse(["--store", "/tmp/iap-store"])
        #expect(options.location.url.path == "/tmp/iap-store")
        #expect(try StoreLocationOptions.parse([]).path == nil)
    }

    @Test func catalogAndPublicKeys() throws {
        let env = ["IAPCONTENT_CATALOG": "http://127.0.0.1:9/catalog.json", "IAPCONTENT_PUBLIC_KEY": "a2V5MQ==, a2V5Mg=="]
        let none = try CatalogOptions.parse([])
        #expect(try none.catalog(environment: env) == "http://127.0.0.1:9/catalog.json")
        #expect(none.publicKeys(environment: env) == ["a2V5MQ==", "a2V5Mg=="])
        #expect(throws: ValidationError.self) { try none.catalog(environment: [:]) }
        #expect(none.publicKeys(environment: [:]).isEmpty)

        let flags = try CatalogOptions.parse(["--catalog", "site/catalog.json", "--public-key", "k1", "--public-key", "k2"])
        #expect(try flags.catalog(environment: env) == "site/catalog.json")
        #expect(flags.publicKeys(environment: env) == ["k1", "k2"])
    }

    @Test func quietAndVerboseLevels() throws {
        #expect(try GlobalOptions.parse([]).logLevel == .info)
        #expect(try GlobalOptions.parse(["--quiet"]).logLevel == .error)
        #expect(try GlobalOptions.parse(["-v"]).logLevel == .debug)
        #expect(try GlobalOptions.parse(["-v", "-v"]).logLevel == .trace)
        #expect(throws: (any Error).self) { try GlobalOptions.parse(["-q", "-v"]) }
    }

    struct Unreadable: Error, CustomStringConvertible {
        var description: String { "cannot read /tmp/x/catalog.json (permission denied); check the file's mode" }
    }

    @Test func errorsMapToDocumentedStatuses() {
        func outcome(_ arguments: [String]) -> ExitOutcome {
            do {
                _ = try IAPContent.parseAsRoot(arguments)
                return .success
            } catch {
                return ExitOutcome.of(error, command: IAPContent.self)
            }
        }
        #expect(outcome(["--no-such-flag"]).status == 2)
        #expect(outcome(["sign-url"]).status == 2)  // missing argument
        #expect(outcome(["sign-url", "not a url", "--token-key", "k", "--product", "p"]).status == 2)  // validate()
        let version = outcome(["--version"])
        #expect(version.status == 0)
        #expect(!version.toStandardError)
        #expect(version.message == "0.1.0 (development build)\n")  // tools/release-build records the commit
        #expect(IAPContent.helpMessage(columns: 100).contains("3  paused or interrupted"))

        let ours = ExitOutcome.of(Unreadable(), command: IAPContent.self)
        #expect(ours.status == 1)
        #expect(ours.message == "iapcontent: error: cannot read /tmp/x/catalog.json (permission denied); check the file's mode\n")
        #expect(ExitOutcome.of(ExitStatus.interrupted, command: IAPContent.self).status == 3)
        #expect(ExitOutcome.of(ExitStatus.cancelled, command: IAPContent.self).status == 4)
        #expect(ExitOutcome.of(ExitCode(3), command: IAPContent.self).status == 3)
        #expect(ExitOutcome.of(CocoaError(.fileNoSuchFile), command: IAPContent.self).status == 1)
    }

    @Test func everySubcommandHasHelp() {
        for command in IAPContent.configuration.subcommands {
            let configuration = command.configuration
            #expect(!configuration.abstract.isEmpty, "\(command)")
            #expect(configuration.discussion.contains("EXAMPLES:"), "\(command)")
        }
        #expect(IAPContent.configuration.discussion.contains(ExitStatus.table))
        for text in [HelpText.importContent, HelpText.validate, HelpText.pack, HelpText.inspect, HelpText.download, HelpText.status,
                     HelpText.pause, HelpText.resume, HelpText.cancel, HelpText.content, HelpText.delete, HelpText.restore] {
            #expect(text.contains("EXAMPLES:\n  iapcontent "))
        }
    }
}
