/// Why a layout or a layout document was refused: what is wrong and where.
///
/// `path` names the place: in a JSON document a path such as `root.children[2].style.flexGrow`; in a spec
/// tree built in code the chain of elements from the root, each with its identifier when it has one.
public struct LayoutError: Error, Hashable, Sendable, CustomStringConvertible {
    /// What sort of problem this is, for callers that answer differently (a server: 400 or 422).
    public enum Kind: String, Hashable, Sendable {
        /// The text is not JSON.
        case malformed
        /// A value is wrong: an unknown property, a negative size, a ratio <= 0...
        case invalid
        /// The input is valid but exceeds a configured limit (depth, element count).
        case limit
    }

    public var kind: Kind
    public var path: String
    public var reason: String

    public init(_ reason: String, path: String = "", kind: Kind = .invalid) {
        self.reason = reason
        self.path = path
        self.kind = kind
    }

    /// The error with `component` put in front of its path (errors collect their path as they unwind).
    public func within(_ component: String) -> LayoutError {
        var copy = self
        if path.isEmpty {
            copy.path = component
        } else if path.hasPrefix("[") {
            copy.path = component + path
        } else {
            copy.path = component + "." + path
        }
        return copy
    }

    /// One line: `path: reason`. A path of more than 12 steps shows its first and last five.
    public var description: String {
        path.isEmpty ? reason : "\(Self.abbreviated(path)): \(reason)"
    }

    package static func abbreviated(_ path: String) -> String {
        let steps = path.split(separator: ".", omittingEmptySubsequences: false)
        guard steps.count > 12 else { return path }
        return (steps.prefix(5) + ["(\(steps.count - 10) more)"] + steps.suffix(5)).joined(separator: ".")
    }
}
