public import Foundation

/// Runs a child process to completion and captures its exit status and output.
public enum CommandRunner {
    /// Exit status, stdout and stderr of a finished process.
    public struct Result: Sendable {
        /// Exit status (or 128 + signal number when killed).
        public var status: Int32
        /// Everything written to stdout.
        public var stdout: String
        /// Everything written to stderr.
        public var stderr: String
        /// stdout split into lines (no trailing empty line).
        public var stdoutLines: [String] { stdout.split(separator: "\n").map(String.init) }
        /// stderr split into lines (no trailing empty line).
        public var stderrLines: [String] { stderr.split(separator: "\n").map(String.init) }
    }

    /// Runs `executable` with `arguments`; `environment` entries are added to the current environment.
    public static func run(
        _ executable: String, _ arguments: [String], environment: [String: String] = [:],
        currentDirectory: URL? = nil
    ) throws -> Result {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: executable)
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        if let currentDirectory { process.currentDirectoryURL = currentDirectory }
        let out = Pipe()
        let err = Pipe()
        process.standardOutput = out
        process.standardError = err
        try process.run()
        // Read both pipes to the end before waiting, so a chatty child never blocks on a full pipe.
        let group = DispatchGroup()
        nonisolated(unsafe) var errData = Data()
        group.enter()
        DispatchQueue.global().async {
            errData = err.fileHandleForReading.readDataToEndOfFile()
            group.leave()
        }
        let outData = out.fileHandleForReading.readDataToEndOfFile()
        group.wait()
        process.waitUntilExit()
        let status = process.terminationReason == .uncaughtSignal ? 128 + process.terminationStatus : process.terminationStatus
        return Result(
            status: status, stdout: String(decoding: outData, as: UTF8.self),
            stderr: String(decoding: errData, as: UTF8.self))
    }

    /// A product binary of this package (`iapcontent` unless named), found by walking up from the running
    /// test bundle to the build directory (`.build/<config>/<name>`); the one way tests find a built program.
    /// - Throws: ``TestSupportError`` when it is not built.
    public static func builtExecutable(_ name: String = "iapcontent") throws -> URL {
        // Another build of the program (to see a test fail on an earlier version): IAPCONTENT_TEST_EXECUTABLE=PATH.
        if name == "iapcontent", let other = ProcessInfo.processInfo.environment["IAPCONTENT_TEST_EXECUTABLE"], !other.isEmpty {
            return URL(fileURLWithPath: other)
        }
        let bundle = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
        var directory = bundle.deletingLastPathComponent()
        // Inside `X.xctest` bundles (Darwin layout) the binary sits further down; walk up to the build dir.
        while directory.path != "/" {
            let candidate = directory.appendingPathComponent(name)
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate.path, isDirectory: &isDirectory), !isDirectory.boolValue,
               FileManager.default.isExecutableFile(atPath: candidate.path)
            {
                return candidate
            }
            directory.deleteLastPathComponent()
        }
        throw TestSupportError("\(name) binary not found near \(bundle.path); run `swift build --build-tests` first")
    }

    /// Runs the built `iapcontent` binary.
    public static func iapcontent(_ arguments: [String], environment: [String: String] = [:]) throws -> Result {
        try run(builtExecutable().path, arguments, environment: environment)
    }
}
