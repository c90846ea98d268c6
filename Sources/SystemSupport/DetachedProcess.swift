import CLinuxSystem
import Glibc

/// Starts a program that outlives the process starting it: its own session (`setsid`), standard
/// input and output on `/dev/null`, default signal handling — so neither the terminal's Ctrl-C nor
/// the parent's exit stops it. For work a command leaves behind on its way out (emptying a store's trash).
package enum DetachedProcess {
    /// Starts `program` with `arguments` (the first is `argv[0]`); `false` when it could not be started.
    @discardableResult
    package static func start(_ program: String, arguments: [String]) -> Bool {
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) }
        argv.append(nil)
        defer { for pointer in argv { free(pointer) } }
        return CLinuxSystem_spawnDetached(program, argv) >= 0
    }
}
