internal import Foundation

extension PackDeclaration {
    /// One `Variants` entry, or `nil` with its problems recorded.
    static func readAxis(name: String, _ entry: Any, into problems: inout [PackProblem]) -> Axis? {
        let key = "Variants.\(name)"
        guard VariantTag.isAxisName(Substring(name)) else {
            problems.append(PackProblem(key: key, message: "'\(name)' is not an axis name: use lowercase letters, digits and '-', starting with a letter"))
            return nil
        }
        guard let fields = entry as? [String: Any] else {
            problems.append(PackProblem(key: key, message: "must be a dictionary with Default and/or Fallback"))
            return nil
        }
        var ok = true
        for unknown in fields.keys.sorted() where unknown != "Default" && unknown != "Fallback" {
            problems.append(PackProblem(key: "\(key).\(unknown)", message: "is not an axis key; an axis has Default and Fallback"))
            ok = false
        }
        var defaultValue: String?
        if let value = fields["Default"] {
            if let text = value as? String, VariantTag.isValue(Substring(text)) { defaultValue = text } else {
                problems.append(PackProblem(key: "\(key).Default", message: "must be a value: letters, digits, '-', '_', '.'"))
                ok = false
            }
        }
        var fallback: [String: [String]] = [:]
        if let value = fields["Fallback"] {
            if let table = value as? [String: Any] {
                for (from, targets) in table.sorted(by: { $0.key < $1.key }) {
                    guard VariantTag.isValue(Substring(from)), let list = targets as? [String],
                          list.allSatisfy({ VariantTag.isValue(Substring($0)) })
                    else {
                        problems.append(PackProblem(key: "\(key).Fallback.\(from)", message: "must map a value to an array of values, e.g. pt-BR → [pt]"))
                        ok = false
                        continue
                    }
                    fallback[from] = list
                }
            } else {
                problems.append(PackProblem(key: "\(key).Fallback", message: "must be a dictionary of values to arrays of values"))
                ok = false
            }
        }
        let axis = Axis(name: name, defaultValue: defaultValue, fallback: fallback)
        if let cycle = axis.fallbackCycle() {
            problems.append(PackProblem(
                key: "\(key).Fallback",
                message: "has a cycle (\(cycle.joined(separator: " → "))); a value may not fall back to itself"))
            ok = false
        }
        return ok ? axis : nil
    }
}

extension PackDeclaration.Axis {
    /// A fallback cycle, as the values met on it (first value repeated at the end), or `nil`.
    ///
    /// A depth-first walk with an explicit stack, not recursion: a chain as long as a manifest can hold (hundreds of
    /// thousands of steps) must be refused, not overflow the thread's stack.
    public func fallbackCycle() -> [String]? {
        var state: [String: Bool] = [:]  // false: on the current path, true: done
        var path: [String] = []
        var stack: [(value: String, next: Int)] = []  // each value on the path and the next target to visit
        for start in fallback.keys.sorted() where state[start] == nil {
            state[start] = false
            path.append(start)
            stack.append((start, 0))
            while let top = stack.last {
                let targets = fallback[top.value] ?? []
                guard top.next < targets.count else {
                    stack.removeLast()
                    path.removeLast()
                    state[top.value] = true
                    continue
                }
                stack[stack.count - 1].next += 1
                let next = targets[top.next]
                switch state[next] {
                case true?: continue
                case false?: return Array(path[path.firstIndex(of: next)!...]) + [next]
                case nil:
                    state[next] = false
                    path.append(next)
                    stack.append((next, 0))
                }
            }
        }
        return nil
    }

    /// The values to try, in order, for a device preferring `preferred`: each preferred value, its declared
    /// fallbacks (depth first), and for `language` its shorter forms (`pt-BR` → `pt`); then the default. Values
    /// compare case-insensitively, and `_` is `-` for languages (`pt_BR` is `pt-BR`).
    ///
    /// An explicit stack, not recursion, and each value once: any declaration, however deep, gives a chain no
    /// longer than its distinct values.
    public func chain(preferring preferred: [String]) -> [String] {
        var chain: [String] = []
        var seen = Set<String>()
        var table: [String: [String]] = [:]
        for (from, targets) in fallback.sorted(by: { $0.key < $1.key }) { table[normalized(from)] = table[normalized(from)] ?? targets }
        // Values still to add, last first; a value's followers are pushed in reverse so they come out in order.
        var pending: [String] = []
        func expand(_ value: String) {
            let key = normalized(value)
            guard seen.insert(key).inserted else { return }
            chain.append(value)
            var followers = table[key] ?? []
            if name == "language" {
                let parts = key.split(separator: "-")
                if parts.count > 1 { followers.append(parts.dropLast().joined(separator: "-")) }
            }
            pending.append(contentsOf: followers.reversed())
        }
        for value in preferred + [defaultValue].compactMap({ $0 }) {
            expand(value)
            while let next = pending.popLast() { expand(next) }
        }
        return chain
    }

    /// The form values are compared in.
    public func normalized(_ value: String) -> String {
        let lower = value.lowercased()
        return name == "language" ? lower.replacingOccurrences(of: "_", with: "-") : lower
    }
}
