import ArgumentParser
import Foundation

/// `--catalog`, `--public-key` and `--trusted-root` as an option group, with `IAPCONTENT_CATALOG` /
/// `IAPCONTENT_PUBLIC_KEY` / `IAPCONTENT_TRUSTED_ROOT` as defaults so a configured machine needs no flags:
/// `@OptionGroup var catalog: CatalogOptions`. With a trusted root, `--catalog` names a TUF repository's folder
/// (`iapcontent repo`) instead of a `catalog.json`.
struct CatalogOptions: ParsableArguments {
    @Option(
        name: .customLong("catalog"),
        help: ArgumentHelp(
            "The catalog: an http(s) URL or a file path (default: $IAPCONTENT_CATALOG).", valueName: "url"))
    var catalogFlag: String?

    @Option(
        name: .customLong("public-key"),
        help: ArgumentHelp(
            "A trusted catalog-signing public key, base64 (repeatable; default: $IAPCONTENT_PUBLIC_KEY, comma-separated).",
            valueName: "base64"))
    var publicKeyFlags: [String] = []

    @Option(
        name: .customLong("trusted-root"),
        help: ArgumentHelp(
            "A TUF repository's root.json the app ships: --catalog then names the repository's folder URL (default: $IAPCONTENT_TRUSTED_ROOT).",
            valueName: "file"))
    var trustedRootFlag: String?

    /// The catalog URL or path; throws a usage error (exit 2) naming both ways to give one.
    func catalog(environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String {
        guard let location = try catalog(required: true, environment: environment) else { preconditionFailure("a required catalog is given") }
        return location
    }

    /// The catalog URL or path when one is given; `nil` when none is and `required` is false (a command that needs
    /// one only for some of its work); else a usage error (exit 2) naming both ways to give one.
    func catalog(required: Bool, environment: [String: String] = ProcessInfo.processInfo.environment) throws -> String? {
        if let catalogFlag, !catalogFlag.isEmpty { return catalogFlag }
        if let value = environment["IAPCONTENT_CATALOG"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty {
            return value
        }
        guard required else { return nil }
        throw ValidationError(
            "no catalog given: pass --catalog <url> (e.g. http://127.0.0.1:8080/catalog.json) or set IAPCONTENT_CATALOG")
    }

    /// The trusted public keys: the `--public-key` flags, else `IAPCONTENT_PUBLIC_KEY` split on commas.
    /// Empty means the catalog is not signature-checked (the command decides whether that is allowed).
    func publicKeys(environment: [String: String] = ProcessInfo.processInfo.environment) -> [String] {
        let raw = publicKeyFlags.isEmpty ? (environment["IAPCONTENT_PUBLIC_KEY"].map { [$0] } ?? []) : publicKeyFlags
        return raw.flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty }
    }

    /// The trusted root file (`--trusted-root`, else `IAPCONTENT_TRUSTED_ROOT`); `nil` for a signed `catalog.json`.
    func trustedRoot(environment: [String: String] = ProcessInfo.processInfo.environment) -> String? {
        if let trustedRootFlag, !trustedRootFlag.isEmpty { return trustedRootFlag }
        guard let value = environment["IAPCONTENT_TRUSTED_ROOT"]?.trimmingCharacters(in: .whitespaces), !value.isEmpty else { return nil }
        return value
    }
}
