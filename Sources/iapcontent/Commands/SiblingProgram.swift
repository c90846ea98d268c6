import Foundation

/// A program installed in the same directory as the running `iapcontent` (git-style: `iapcontent serve` runs
/// `iapcontent-serve`), started by replacing this process with it.
enum SiblingProgram {
    /// Why a sibling program could not be started.
    struct LaunchError: Error, CustomStringConvertible {
        /// The program's full path.
        var path: String
        /// What went wrong (`strerror`).
        var reason: String

        var description: String {
            "cannot run \(path): \(reason); `iapcontent serve` needs the \(URL(fileURLWithPath: path).lastPathComponent) "
                + "program installed next to iapcontent (`swift build` builds both)"
        }
    }

    /// The full path of `name` next to the running executable (`/proc/self/exe`).
    static func path(_ name: String) -> String {
        let executable = currentExecutable
        let directory = executable.lastIndex(of: "/").map { String(executable[..<$0]) } ?? "."
        return directory + "/" + name
    }

    /// The running executable's full path (`/proc/self/exe`; the command name as given if unreadable).
    static var currentExecutable: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
    }

    /// The command-line arguments after the first `word` (the subcommand name), exactly as given.
    static func arguments(after word: String) -> [String] {
        let arguments = CommandLine.arguments.dropFirst()
        guard let index = arguments.firstIndex(of: word) else { return Array(arguments) }
        return Array(arguments[(index + 1)...])
    }

    /// Replaces this process with the sibling `name`, passing `arguments`; returns only by throwing.
    ///
    /// The environment, open files (stdout, stderr), pid and ignored signals carry over. The signal mask is
    /// cleared first: this runs on a Dispatch worker thread, which blocks every signal, and `execv` would hand
    /// that mask to the new program — it must start like one launched from a shell, so Ctrl-C and SIGTERM work.
    /// - Throws: ``LaunchError`` naming the path when the program is missing or cannot be executed.
    static func exec(_ name: String, arguments: [String]) throws(LaunchError) -> Never {
        let path = path(name)
        guard access(path, X_OK) == 0 else { throw LaunchError(path: path, reason: String(cString: strerror(errno))) }
        var unblocked = sigset_t()
        sigemptyset(&unblocked)
        pthread_sigmask(SIG_SETMASK, &unblocked, nil)
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        execv(path, argv)
        let reason = String(cString: strerror(errno))
        for pointer in argv { free(pointer) }
        throw LaunchError(path: path, reason: reason)
    }
}
