import Foundation

/// The running program's own path, for starting itself again (`empty-trash` in a detached process).
enum CurrentExecutable {
    /// The running executable's full path (`/proc/self/exe`; the command name as given if unreadable).
    static var path: String {
        var buffer = [CChar](repeating: 0, count: Int(PATH_MAX) + 1)
        let count = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        return count > 0 ? String(decoding: buffer[0..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
            : CommandLine.arguments[0]
    }
}
