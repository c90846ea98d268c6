import Foundation
public import Testing

/// python-tuf 7 (`tuf` on PyPI), the reference TUF implementation, run as a Python script: the interoperability
/// tests read our repositories with its `ngclient.Updater` and check our canonical JSON against securesystemslib's.
///
/// `tools/setup` installs it into the venv `/opt/iapcontent-tuf`; `$IAPCONTENT_TUF_PYTHON` names another Python
/// that can `import tuf`.
public enum PythonTUF {
    /// A Python that imports `tuf`: `$IAPCONTENT_TUF_PYTHON`, else `/opt/iapcontent-tuf/bin/python3`, else `python3`
    /// on `PATH` when it has the module.
    public static let executable: String? = {
        var candidates = ["/opt/iapcontent-tuf/bin/python3"]
        if let given = ProcessInfo.processInfo.environment["IAPCONTENT_TUF_PYTHON"] { candidates.insert(given, at: 0) }
        candidates += (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map { $0 + "/python3" }
        return candidates.first { path in
            FileManager.default.isExecutableFile(atPath: path)
                && (try? CommandRunner.run(path, ["-c", "import tuf.ngclient, securesystemslib"]).status) == 0
        }
    }()

    /// Whether the tests that need it run: python-tuf is installed, or `CI` is set (they run and fail).
    public static var testsRun: Bool { executable != nil || Tmpfs.isCI }

    /// Runs `script` with `arguments`; throws when python-tuf is missing.
    public static func run(_ script: String, _ arguments: [String] = []) throws -> CommandRunner.Result {
        guard let python = executable else {
            throw TestSupportError("python-tuf is not installed: run tools/setup (pip install tuf==7.0.0), or set IAPCONTENT_TUF_PYTHON")
        }
        return try CommandRunner.run(python, ["-c", script] + arguments)
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test only where python-tuf is installed, otherwise reports it as skipped; with `CI` set it always
    /// runs, so a missing python-tuf fails it instead.
    public static var needsPythonTUF: Self {
        .enabled("needs python-tuf (tools/setup, or pip install tuf==7.0.0); with CI set it runs, and fails, anyway") {
            PythonTUF.testsRun
        }
    }
}
