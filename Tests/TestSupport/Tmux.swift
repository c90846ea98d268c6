public import Foundation
import Glibc

/// Drives a program inside a real terminal (a detached tmux session) the way a person would: start it at a
/// given size, read the screen with `capture-pane`, press keys (`C-c`), and kill the session when done.
///
/// Each session runs on its own tmux server socket (`tmux -L <name>`) so tests never touch a user's tmux
/// and can run in parallel. Waits are bounded; ``close()`` always kills the server.
public final class TmuxSession: Sendable {
    /// The session (and socket) name, unique per session.
    public let name: String
    /// Columns and rows of the pane.
    public let width: Int, height: Int
    /// The file the command's exit status is written to when it ends (`echo $? > file`).
    private let statusFile: URL

    /// Errors that say which tmux step failed and what it printed.
    public struct Failure: Error, CustomStringConvertible {
        public var description: String
    }

    /// The tmux binary, or nil when tmux is not installed (`tools/setup` installs it).
    public static var executable: URL? {
        ["/usr/bin/tmux", "/usr/local/bin/tmux"].map(URL.init(fileURLWithPath:))
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }

    /// Starts `arguments` (program first) in a detached session `width`×`height`, in `directory`, with
    /// `environment` added. The pane stays open after the program exits so its last screen can be read.
    public init(
        _ arguments: [String], width: Int = 100, height: Int = 20, directory: URL,
        environment: [String: String] = [:]
    ) throws {
        guard Self.executable != nil else { throw Failure(description: "tmux not installed; run tools/setup") }
        self.name = "iapcontent-test-\(UUID().uuidString.prefix(8))"
        self.width = width
        self.height = height
        self.statusFile = directory.appendingPathComponent(".\(name).status")
        let quoted = arguments.map(Self.shellQuote).joined(separator: " ")
        let exports = environment.sorted { $0.key < $1.key }.map { "export \($0.key)=\(Self.shellQuote($0.value)); " }
            .joined()
        // TERM is set so colour decisions match a real xterm; the status file records how the program exited.
        // `trap : INT`: Ctrl-C reaches the program (the trap resets to default across exec) while the shell
        // lives on to record the status. The trailing sleep keeps the last screen until close().
        let script = "trap : INT; \(exports)\(quoted); echo $? > \(Self.shellQuote(statusFile.path)); exec sleep 600"
        try run([
            "new-session", "-d", "-s", name, "-x", "\(width)", "-y", "\(height)", "-c", directory.path,
            "-e", "TERM=xterm-256color", "/bin/bash", "--norc", "--noprofile", "-c", script,
        ])
    }

    deinit { close() }

    /// The visible screen, one string per row (trailing spaces trimmed by tmux).
    public func capture() throws -> [String] {
        try run(["capture-pane", "-p", "-t", name]).components(separatedBy: "\n")
    }

    /// The visible screen with escape sequences (`capture-pane -e`), to check colours.
    public func captureWithEscapes() throws -> String {
        try run(["capture-pane", "-p", "-e", "-t", name])
    }

    /// Sends keys as tmux names them: `"C-c"`, `"Enter"`, or literal text.
    public func send(_ keys: String...) throws {
        try run(["send-keys", "-t", name] + keys)
    }

    /// Polls the screen every 100 ms until `condition` holds or `timeout` passes; returns the last screen.
    @discardableResult
    public func waitForScreen(
        timeout: Duration = .seconds(20), _ condition: ([String]) -> Bool
    ) async throws -> [String] {
        let deadline = ContinuousClock.now + timeout
        var screen = try capture()
        while !condition(screen) {
            guard ContinuousClock.now < deadline else {
                throw Failure(description: "screen never matched within \(timeout); last screen:\n" + screen.joined(separator: "\n"))
            }
            try await Task.sleep(for: .milliseconds(100))
            screen = try capture()
        }
        return screen
    }

    /// Waits until the program has exited and returns its exit status.
    public func waitForExit(timeout: Duration = .seconds(20)) async throws -> Int32 {
        let deadline = ContinuousClock.now + timeout
        while ContinuousClock.now < deadline {
            if let text = try? String(contentsOf: statusFile, encoding: .utf8),
               let status = Int32(text.trimmingCharacters(in: .whitespacesAndNewlines))
            {
                return status
            }
            try await Task.sleep(for: .milliseconds(100))
        }
        throw Failure(description: "program still running after \(timeout); screen:\n" + ((try? capture()) ?? []).joined(separator: "\n"))
    }

    /// Kills the session's tmux server (idempotent) and removes the status file.
    public func close() {
        _ = try? run(["kill-server"])
        try? FileManager.default.removeItem(at: statusFile)
    }

    /// Runs `tmux -L <name> …`, returns stdout; throws with stderr when tmux fails.
    ///
    /// Spawned with `posix_spawn`, an empty signal mask and default signal actions: test worker threads
    /// block most signals and a child inherits that mask, so without this the program in the pane would
    /// never see Ctrl-C (and tmux could not hang up its panes). Output goes through temp files, not
    /// pipes: the server `new-session` forks keeps the client's descriptors open while the session lives.
    @discardableResult
    private func run(_ arguments: [String]) throws -> String {
        guard let executable = Self.executable else { throw Failure(description: "tmux not installed; run tools/setup") }
        let base = FileManager.default.temporaryDirectory.appendingPathComponent("tmux-\(UUID().uuidString)")
        let outPath = base.path + ".out", errPath = base.path + ".err"
        defer { for path in [outPath, errPath] { try? FileManager.default.removeItem(atPath: path) } }
        let isNewSession = arguments.first == "new-session"

        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, isNewSession ? "/dev/null" : outPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, isNewSession ? "/dev/null" : errPath, O_WRONLY | O_CREAT | O_TRUNC, 0o600)

        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t(), all = sigset_t()
        sigemptyset(&empty)
        sigfillset(&all)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setsigdefault(&attributes, &all)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = [executable.path, "-L", name, "-f", "/dev/null"] + arguments
        var cArguments: [UnsafeMutablePointer<CChar>?] = argv.map { strdup($0) } + [nil]
        defer { for pointer in cArguments { free(pointer) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable.path, &actions, &attributes, &cArguments, environ)
        guard spawned == 0 else { throw Failure(description: "cannot start tmux: \(String(cString: strerror(spawned)))") }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) == -1 && errno == EINTR {}
        let exited = (status & 0x7f) == 0, code = (status >> 8) & 0xff
        guard exited && code == 0 else {
            let message = (try? String(contentsOfFile: errPath, encoding: .utf8)) ?? ""
            throw Failure(description: "tmux \(arguments.first ?? "") failed (status \(status)): \(message)")
        }
        return (try? String(contentsOfFile: outPath, encoding: .utf8)) ?? ""
    }

    /// Single-quotes `text` for /bin/sh.
    static func shellQuote(_ text: String) -> String {
        "'" + text.replacingOccurrences(of: "'", with: "'\\''") + "'"
    }
}
