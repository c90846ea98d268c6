package import Foundation

/// How long each role's metadata stays valid when signed, and so how often it must be re-signed: `repo refresh`
/// re-signs a role once less than half its lifetime is left.
package struct RoleLifetimes: Sendable, Equatable {
    /// The root (offline keys): a year.
    package var root: TimeInterval = 365 * 86_400
    /// The top-level targets and the bins: a year.
    package var targets: TimeInterval = 365 * 86_400
    /// The snapshot: a week.
    package var snapshot: TimeInterval = 7 * 86_400
    /// The timestamp: a day.
    package var timestamp: TimeInterval = 86_400

    /// The default lifetimes.
    package init() {}
}
