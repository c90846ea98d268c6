public import Foundation
import Glibc

/// What a device is, on each variant axis, in order of preference: the languages its user reads, its CPU
/// architecture, the texture formats its GPU samples, and any custom axis a product declares.
///
/// ``system(environment:)`` fills it from the system (`LANGUAGE`, `LC_ALL`, `LC_MESSAGES`, `LANG`; `uname -m`);
/// ``set(_:)`` overrides one axis (`language=fr`, `texture=astc,etc2`).
public struct DeviceProfile: Codable, Sendable, Equatable {
    /// For each axis, the values this device takes, most preferred first.
    public var values: [String: [String]]

    /// Creates a profile.
    public init(values: [String: [String]] = [:]) {
        self.values = values
    }

    /// The languages, most preferred first (`language`).
    public var languages: [String] { values["language"] ?? [] }

    /// The profile of this machine: languages from the locale variables, the architecture from `uname -m`.
    public static func system(environment: [String: String] = ProcessInfo.processInfo.environment) -> DeviceProfile {
        var profile = DeviceProfile()
        let languages = Self.languages(environment: environment)
        if !languages.isEmpty { profile.values["language"] = languages }
        var name = utsname()
        if uname(&name) == 0 {
            let machine = withUnsafeBytes(of: &name.machine) { String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self) }
            if !machine.isEmpty { profile.values["arch"] = [machine] }
        }
        return profile
    }

    /// The languages the locale variables name: `LANGUAGE`'s list when set (GNU gettext's order of preference),
    /// else the first of `LC_ALL`, `LC_MESSAGES`, `LANG`; encodings and modifiers dropped (`de_DE.UTF-8` → `de-DE`),
    /// `C` and `POSIX` ignored.
    public static func languages(environment: [String: String]) -> [String] {
        func tag(_ locale: Substring) -> String? {
            let base = locale.split(separator: ".", maxSplits: 1).first.map { $0.split(separator: "@", maxSplits: 1).first ?? $0 } ?? ""
            guard !base.isEmpty, base != "C", base != "POSIX", VariantTag.isValue(base) else { return nil }
            return base.replacingOccurrences(of: "_", with: "-")
        }
        if let list = environment["LANGUAGE"], !list.isEmpty {
            let languages = list.split(separator: ":").compactMap(tag)
            if !languages.isEmpty { return languages }
        }
        for variable in ["LC_ALL", "LC_MESSAGES", "LANG"] {
            if let value = environment[variable], !value.isEmpty { return tag(Substring(value)).map { [$0] } ?? [] }
        }
        return []
    }

    /// Sets one axis from `axis=value[,value…]` (`language=fr`, `texture=astc,etc2`).
    /// - Throws: ``PackProblem`` naming what is malformed.
    public mutating func set(_ assignment: String) throws(PackProblem) {
        let parts = assignment.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
        guard parts.count == 2, VariantTag.isAxisName(parts[0]) else {
            throw PackProblem(key: nil, message: "'\(assignment)' is not axis=value; write e.g. language=fr or texture=astc,etc2")
        }
        let list = parts[1].split(separator: ",")
        guard !list.isEmpty, list.allSatisfy(VariantTag.isValue) else {
            throw PackProblem(key: nil, message: "'\(parts[1])' is not a list of values; values are letters, digits, '-', '_' and '.', separated by ','")
        }
        values[String(parts[0])] = list.map(String.init)
    }
}
